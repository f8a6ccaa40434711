package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quickstartPython stands in for python3, the venv's python and its
// scripts: -c answers the two queries bench/py_quickstart.sh makes, -m venv
// makes a venv with an activate script, and a script runs as $FAKE_PY says
// (pass, crash or nograd) and only where the block's packages are.
const quickstartPython = `#!/bin/sh
case "$1" in
-c)
	case "$2" in
	*torch*) echo "$FAKE_DIR/torchsite" ;;
	*sysconfig*) mkdir -p "$VIRTUAL_ENV/lib" && echo "$VIRTUAL_ENV/lib" ;;
	*) exit 2 ;;
	esac ;;
-m)
	d=$3
	mkdir -p "$d/bin"
	printf 'export VIRTUAL_ENV=%s\nexport PATH=%s/bin:$PATH\n' "$d" "$d" >"$d/bin/activate"
	cp "$0" "$d/bin/python"
	printf '#!/bin/sh\nexit 0\n' >"$d/bin/pip" && chmod +x "$d/bin/pip" ;;
*)
	for p in k_up k_bwd; do
		[ -f "$p/__init__.py" ] || { echo "ModuleNotFoundError: No module named '$p'" >&2; exit 1; }
	done
	case "$FAKE_PY" in
	pass) echo PASS ;;
	crash) printf 'Traceback (most recent call last):\nRuntimeError: CUDA error\n' >&2; exit 1 ;;
	nograd) echo "FAIL: no finite gradient for ['x']" >&2; exit 1 ;;
	esac ;;
esac
`

// quickstartSwigen stands in for swigen emit: it makes the -o directory
// with a package in it.
const quickstartSwigen = `#!/bin/sh
while [ $# -gt 0 ]; do
	if [ "$1" = -o ]; then mkdir -p "$2" && : >"$2/__init__.py"; fi
	shift
done
`

// TestPyQuickstartScript runs bench/py_quickstart.sh (the README's
// PyTorch block, read from the README) with python, swigen and pip
// stubbed: it passes only when the Python lines pass; a crash or a missing
// gradient is FAIL with a non-zero exit; a block that writes its packages
// into the checkout is FAIL.
func TestPyQuickstartScript(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash: %v", err)
	}
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	intoCheckout := strings.Replace(string(readme), "    cd \"$(mktemp -d)\"", "    cd .", 1)
	if intoCheckout == string(readme) {
		t.Fatal(`README.md's PyTorch block has no cd "$(mktemp -d)" line`)
	}
	for _, tt := range []struct {
		name, mode, readme string
		wantOK             bool
		want               string
	}{
		{"pass", "pass", string(readme), true, "PASS"},
		{"python crashes", "crash", string(readme), false, "FAIL: the README's Python lines exited 1"},
		{"no gradient", "nograd", string(readme), false, "FAIL: no finite gradient"},
		{"packages in the checkout", "pass", intoCheckout, false, "FAIL: the README's block wrote k_up/ into the checkout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo, fake := t.TempDir(), t.TempDir()
			files := map[string]string{
				filepath.Join(repo, "README.md"):       tt.readme,
				filepath.Join(repo, "python", "x.txt"): "",
				filepath.Join(repo, ".bin", "swigen"):  quickstartSwigen,
				filepath.Join(fake, "python3"):         quickstartPython,
			}
			for p, body := range files {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bash, filepath.Join(root, "bench", "py_quickstart.sh"))
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"), "FAKE_DIR="+fake, "FAKE_PY="+tt.mode, "VIRTUAL_ENV=")
			out, err := cmd.CombinedOutput()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			last := lines[len(lines)-1]
			if (err == nil) != tt.wantOK || !strings.HasPrefix(last, tt.want) {
				t.Errorf("exit error %v, last line %q; want success %v and %q\n%s", err, last, tt.wantOK, tt.want, out)
			}
			if _, err := os.Stat(filepath.Join(repo, "k_up")); tt.wantOK && err == nil {
				t.Errorf("the script left k_up/ in the checkout")
			}
		})
	}
}

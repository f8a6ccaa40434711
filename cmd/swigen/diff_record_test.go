package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
)

// recordedPackage emits a small package (no compile) into a fresh
// directory and returns it; its index records the emit.
func recordedPackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "emit", "--no-compile", "--kernel", "gemm", "--arch", "sm_90a", "--go-package", "kernels", "-o", dir); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	return dir
}

// setCommand rewrites the command the index of dir records.
func setCommand(t *testing.T, dir string, cmd []string) {
	t.Helper()
	path := filepath.Join(dir, gen.IndexFile)
	var idx map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	idx["command"] = cmd
	if b, err = json.Marshal(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// evilCompiler puts at dir/evil/nvcc (and ptxas beside it) a script that
// writes marker when run, and returns marker.
func evilCompiler(t *testing.T, dir string) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(filepath.Join(dir, "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"nvcc", "ptxas"} {
		script := "#!/bin/sh\necho ran >" + marker + "\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n"
		if err := os.WriteFile(filepath.Join(dir, "evil", tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return marker
}

// TestDiffRecordIsData edits the command a package's index records, as a
// pull request could, and runs diff in the package (and with -o from
// outside it): every record that names a compiler, a path outside the
// package, help or an unknown flag is bad input (exit 2), and nothing the
// package holds is run or read from outside it.
func TestDiffRecordIsData(t *testing.T) {
	base := []string{"swigen", "emit", "--arch=sm_90a", "--go-package=kernels", "--kernel=gemm", "--no-compile"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	tests := []struct {
		name string
		cmd  []string
		want string // in stderr
	}{
		{"nvcc in the package", with("--out=.", "--nvcc=evil"), "--nvcc is not a flag a record may set"},
		{"nvcc absolute", with("--out=.", "--nvcc=/bin/true"), "--nvcc is not a flag a record may set"},
		{"out parent", with("--out=.."), "--out=..: a record names its own directory"},
		{"out etc", with("--out=/etc"), "--out=/etc: a record names its own directory"},
		{"out sub", with("--out=sub"), "a record names its own directory"},
		{"tuned etc", with("--out=.", "--tuned=/etc/shadow"), "--tuned=/etc/shadow: not a path inside the package"},
		{"tuned parent", with("--out=.", "--tuned=../t.json"), "--tuned=../t.json: not a path inside the package"},
		{"tuned link", with("--out=.", "--tuned=away/t.json"), "outside"},
		{"help", with("--out=.", "--help"), "help requested"},
		{"short help", with("--out=.", "-h"), "help requested"},
		{"unknown flag", with("--out=.", "--bogus"), "unknown flag: --bogus"},
		{"argument", with("--out=.", "extra"), "unexpected arguments"},
		{"other command", []string{"swigen", "tune", "--out=."}, "records no swigen emit command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := recordedPackage(t)
			marker := evilCompiler(t, dir)
			if err := os.Symlink(t.TempDir(), filepath.Join(dir, "away")); err != nil {
				t.Fatal(err)
			}
			setCommand(t, dir, tt.cmd)
			// The package's evil/ on PATH too: only a record naming it
			// could reach it, never the compiler search.
			t.Setenv("PATH", "/usr/bin:/bin")
			for _, args := range [][]string{{"diff", "-o", dir}, {"diff", "-o", dir, "--nvcc", "/nonexistent/nvcc"}} {
				code, out, errOut := runCLI(t, args...)
				if code != exitUsage || !strings.Contains(errOut, tt.want) {
					t.Errorf("%v: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", args, code, exitUsage, tt.want, out, errOut)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("diff ran the package's evil/nvcc")
			}
		})
	}
}

// TestDiffOutsideFiles: the package's own files linked out of it, or not
// regular files, are refused (exit 2), and none of the outside bytes
// reach the output; nothing hangs.
func TestDiffOutsideFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		file func(dir string) string // the package file to replace
		make func(t *testing.T, path string)
	}{
		{"source linked out", kernelSource, func(t *testing.T, p string) { symlink(t, secret, p) }},
		{"index linked out", indexFile, func(t *testing.T, p string) { symlink(t, secret, p) }},
		{"index to /dev/zero", indexFile, func(t *testing.T, p string) { symlink(t, "/dev/zero", p) }},
		{"source to /dev/zero", kernelSource, func(t *testing.T, p string) { symlink(t, "/dev/zero", p) }},
		{"index FIFO", indexFile, fifo},
		{"source FIFO", kernelSource, fifo},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := recordedPackage(t)
			p := tt.file(dir)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			tt.make(t, p)
			done := make(chan struct{})
			var code int
			var out, errOut string
			go func() { code, out, errOut = runCLI(t, "diff", "-o", dir); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("diff hangs")
			}
			if code != exitUsage || strings.Contains(out+errOut, "TOPSECRET") {
				t.Errorf("exit %d, want %d, no outside bytes\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errOut)
			}
		})
	}
}

// TestDiffFromOutside: diff -o DIR from elsewhere checks DIR against its
// own record, as diff in DIR does.
func TestDiffFromOutside(t *testing.T) {
	dir := recordedPackage(t)
	t.Chdir(t.TempDir())
	code, out, errOut := runCLI(t, "diff", "-o", dir)
	if code != exitOK || !strings.Contains(errOut, "against the emit its manifest.json records") {
		t.Fatalf("diff -o %s: exit %d\nstdout:\n%s\nstderr:\n%s", dir, code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "diff", "-o", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "no manifest.json in ") {
		t.Errorf("diff -o of an empty directory: exit %d:\n%s", code, errOut)
	}
}

func kernelSource(dir string) string {
	idx, err := gen.ReadIndex(dir)
	if err != nil || len(idx.Kernels) == 0 {
		panic("no index in " + dir)
	}
	return filepath.Join(dir, idx.Kernels[0].Source)
}

func indexFile(dir string) string { return filepath.Join(dir, gen.IndexFile) }

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func fifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffReadsBuildCache: diff takes its cubins from the build cache an
// emit filled: with an nvcc that reports the same version but cannot
// compile, a warm diff is still up to date (and compiles nothing).
func TestDiffReadsBuildCache(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("no CUDA compiler: %v", err)
	}
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "emit", "--kernel", "gemm", "--arch", "sm_90a", "--go-package", "kernels", "-o", dir); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	version, err := exec.Command(tc.NVCC, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	fake := t.TempDir()
	for tool, script := range map[string]string{
		"nvcc":  "#!/bin/sh\nif [ \"$1\" = --version ]; then cat <<'EOF'\n" + string(version) + "EOF\nexit 0; fi\nexit 1\n",
		"ptxas": "#!/bin/sh\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(fake, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := runCLI(t, "diff", "-o", dir, "--nvcc", fake); code != exitOK || !strings.Contains(out, "up to date") {
		t.Errorf("warm diff with an nvcc that cannot compile: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

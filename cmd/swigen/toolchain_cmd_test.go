package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/gen/toolchain/install"
)

// fakePythonScript stands in for python3 and the venv's python: `-m venv
// DIR` makes a venv whose bin/python runs this script again, and `-m pip
// install [--target DIR] PINS...` lays out the files of the CUDA wheels.
// It appends one line per call to log ("venv", "pip" or "pip --target")
// and does what the file mode says: fail-venv, fail-pip, no-cicc (pip
// "succeeds" without nvvm/bin/cicc), bad-nvcc (nvcc --version prints no
// version), slow (pip sleeps first); empty or absent is all good.
const fakePythonScript = `#!/bin/sh
ctl=%q
mode="$(cat "$ctl/mode" 2>/dev/null)"
if [ "$1 $2" = "-m venv" ]; then
  echo venv >>"$ctl/log"
  if [ "$mode" = fail-venv ]; then
    mkdir -p "$3/bin" && echo "home = /usr/bin" >"$3/pyvenv.cfg"
    echo "The virtual environment was not created successfully because ensurepip is not available." >&2
    exit 1
  fi
  mkdir -p "$3/bin" "$3/lib/python3.12/site-packages" && echo "home = /usr/bin" >"$3/pyvenv.cfg" || exit 1
  printf '#!/bin/sh\nFAKE_VENV="$(dirname "$(dirname "$0")")" exec %%s "$@"\n' "$0" >"$3/bin/python" && chmod +x "$3/bin/python"
  exit 0
fi
if [ "$1 $2 $3" = "-m pip install" ]; then
  shift 3
  site="$FAKE_VENV/lib/python3.12/site-packages"
  how=pip
  while [ $# -gt 0 ]; do
    case "$1" in
      --target) site="$2"; how="pip --target"; shift 2 ;;
      --progress-bar) shift 2 ;;
      -*) shift ;;
      *) echo "Collecting $1"; shift ;;
    esac
  done
  echo "$how" >>"$ctl/log"
  [ -n "$FAKE_VENV" ] || [ "$how" != pip ] || { echo "fake pip: no venv and no --target" >&2; exit 2; }
  [ "$mode" = slow ] && sleep 0.3
  if [ "$mode" = fail-pip ]; then
    echo "ERROR: Could not find a version that satisfies the requirement nvidia-cuda-nvcc==13.0.88" >&2
    exit 1
  fi
  h="$site/nvidia/cu13"
  mkdir -p "$h/bin" "$h/nvvm/bin" "$h/include/crt" || exit 1
  for f in bin/ptxas bin/cuobjdump bin/nvdisasm nvvm/bin/cicc; do
    printf '#!/bin/sh\nexit 0\n' >"$h/$f" && chmod +x "$h/$f"
  done
  [ "$mode" = no-cicc ] && rm "$h/nvvm/bin/cicc"
  if [ "$mode" = bad-nvcc ]; then
    printf '#!/bin/sh\necho "nvcc: who knows"\n' >"$h/bin/nvcc"
  else
    printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' >"$h/bin/nvcc"
  fi
  chmod +x "$h/bin/nvcc"
  : >"$h/include/cuda_runtime.h"
  : >"$h/include/crt/host_config.h"
  echo "Successfully installed the wheels"
  exit 0
fi
echo "fake python: unexpected arguments: $*" >&2
exit 2
`

// fakePython writes the fake python3 into a new directory and returns its
// path and that directory, where the test sets the mode and reads the log.
func fakePython(t *testing.T) (python, ctl string) {
	t.Helper()
	ctl = t.TempDir()
	python = filepath.Join(ctl, "python3")
	if err := os.WriteFile(python, []byte(fmt.Sprintf(fakePythonScript, ctl)), 0o755); err != nil {
		t.Fatal(err)
	}
	return python, ctl
}

// calls returns the log of the fake python and empties it.
func calls(t *testing.T, ctl string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ctl, "log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(ctl, "log")); err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), "pip --target", "pip--target"))
}

// testInstaller is the real installer, with the real runner, around the
// given pins; swigen's own search (no --nvcc) finds nothing, so the notes
// do not depend on the machine.
func testInstaller(pins []string) (*install.Installer, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &install.Installer{
		Stdout: &out,
		Stderr: &errb,
		Pins:   pins,
		Run:    install.ExecRunner,
		Find: func(o toolchain.FindOptions) (*toolchain.Toolchain, error) {
			if o.NVCC == "" {
				return nil, fmt.Errorf("find toolchain: %w", toolchain.ErrNoCompiler)
			}
			return toolchain.Find(o)
		},
	}, &out, &errb
}

// dryRunTail stands for the commands --dry-run prints, which
// TestToolchainInstallOutput checks.
const dryRunTail = "  ..."

// installStep is one run of toolchain install against the same directory.
type installStep struct {
	name      string
	mode      string // the fake python's mode
	pins      []string
	dryRun    bool
	wantExit  int
	wantCalls []string // of the fake python: venv, pip, pip--target
	wantOut   string   // stdout, with VENV and SITE for the paths, "..." at the end for a prefix; unchecked when wantExit != 0
	wantErr   []string // in the error (wantExit != 0) or else in stderr
	wantStamp []string // the pins in the stamp afterwards; nil: no stamp
}

func runInstallSteps(t *testing.T, steps []installStep) {
	t.Helper()
	python, ctl := fakePython(t)
	venv := filepath.Join(t.TempDir(), "cuda venv") // a space, to check quoting
	for _, st := range steps {
		if err := os.WriteFile(filepath.Join(ctl, "mode"), []byte(st.mode), 0o644); err != nil {
			t.Fatal(err)
		}
		before := tree(t, venv)
		in, out, errb := testInstaller(st.pins)
		err := runToolchainInstall(context.Background(), &toolchainInstallOptions{Venv: venv, Python: python, DryRun: st.dryRun}, in)
		if got := exitCode(err); got != st.wantExit {
			t.Fatalf("%s: exit %d (%v), want %d; stderr:\n%s", st.name, got, err, st.wantExit, errb)
		}
		if diff := cmp.Diff(st.wantCalls, calls(t, ctl)); diff != "" {
			t.Errorf("%s: fake python calls (-want +got):\n%s", st.name, diff)
		}
		if st.wantExit == exitOK {
			site, _ := install.WheelSite(venv)
			want := strings.NewReplacer("VENV", venv, "SITE", site).Replace(st.wantOut)
			if w, ok := strings.CutSuffix(want, "..."); ok && strings.HasPrefix(out.String(), w) {
				want = out.String()
			}
			if diff := cmp.Diff(want, out.String()); diff != "" {
				t.Errorf("%s: stdout (-want +got):\n%s", st.name, diff)
			}
		}
		msg := errb.String()
		if err != nil {
			msg = err.Error()
		}
		for _, w := range st.wantErr {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %s lacks %q:\n%s", st.name, map[bool]string{true: "error", false: "stderr"}[err != nil], w, msg)
			}
		}
		var gotStamp []string
		if b, err := os.ReadFile(filepath.Join(venv, install.StampName)); err == nil {
			gotStamp = strings.Fields(string(b))
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.wantStamp, gotStamp); diff != "" {
			t.Errorf("%s: stamp (-want +got):\n%s", st.name, diff)
		}
		if after := tree(t, venv); st.dryRun && !slices.Equal(before, after) {
			t.Errorf("%s: --dry-run changed %s: %q, then %q", st.name, venv, before, after)
		}
	}
}

// tree lists the files under dir with their sizes, to see that a step
// changed nothing.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) && p == dir {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", p, fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestToolchainInstallVenv(t *testing.T) {
	t.Parallel()
	pins := toolchain.Pins
	newPins := slices.Clone(pins)
	newPins[0] = "nvidia-cuda-nvcc==13.0.99"
	newerPins := slices.Clone(pins)
	newerPins[1] = "nvidia-cuda-crt==13.0.99"
	installed := "installed 6 pinned wheels into VENV (a venv)\nnvcc 13.0.88 (SITE/nvidia/cu13/bin/nvcc)\n"
	reused := "reusing VENV (pins match)\nnvcc 13.0.88 (SITE/nvidia/cu13/bin/nvcc)\n"
	runInstallSteps(t, []installStep{
		{name: "dry run writes nothing", pins: pins, dryRun: true,
			wantOut: "would install the pinned CUDA compiler into VENV (nothing installed there yet):\n" + dryRunTail},
		{name: "fresh install", pins: pins, wantCalls: []string{"venv", "pip"}, wantOut: installed,
			wantErr:   []string{"nothing installed there yet", "  pip: Collecting nvidia-cuda-nvcc==13.0.88", "note: swigen does not search"},
			wantStamp: pins},
		{name: "second run reuses", pins: pins, wantOut: reused, wantStamp: pins},
		{name: "dry run of a ready install reuses and prints the commands", pins: pins, dryRun: true, wantStamp: pins,
			wantOut: reused + "with other pins it would run:\n  'VENV/bin/python' -m pip install ..."},
		{name: "dry run with changed pins: pip only", pins: newPins, dryRun: true, wantStamp: pins,
			wantOut: "would install the pinned CUDA compiler into VENV (pins changed: this swigen needs nvidia-cuda-nvcc==13.0.99):\n  'VENV/bin/python' -m pip install ..."},
		{name: "changed pins reinstall", pins: newPins, wantCalls: []string{"pip"},
			wantOut: installed, wantErr: []string{"pins changed: this swigen needs nvidia-cuda-nvcc==13.0.99"}, wantStamp: newPins},
		{name: "failing pip exits 1 without a stamp", mode: "fail-pip", pins: pins, wantExit: exitFailure, wantCalls: []string{"pip"},
			wantErr: []string{"pip install into ", "exit status 1", "pip's output ends:\n  Collecting nvidia-cuda-nvcc==13.0.88", "Could not find a version", "nothing is marked installed"}},
		{name: "after a failure nothing is reused", pins: pins, wantCalls: []string{"pip"}, wantOut: installed,
			wantErr: []string{"no .swigen-pins there"}, wantStamp: pins},
		{name: "missing tool exits 1 without a stamp", mode: "no-cicc", pins: newerPins, wantExit: exitFailure, wantCalls: []string{"pip"},
			wantErr: []string{"nvidia/cu13/nvvm/bin/cicc is missing", "nothing is marked installed"}},
		{name: "an nvcc that does not run is not ready", mode: "bad-nvcc", pins: newerPins, wantExit: exitFailure, wantCalls: []string{"pip"},
			wantErr: []string{"its nvcc does not run", "release X.Y, VX.Y.Z"}},
		{name: "a broken nvcc under a good stamp is reinstalled", pins: newerPins, wantCalls: []string{"pip"}, wantOut: installed, wantStamp: newerPins},
	})
}

func TestToolchainInstallTargetFallback(t *testing.T) {
	t.Parallel()
	pins := toolchain.Pins
	newPins := slices.Clone(pins)
	newPins[3] = "nvidia-cuda-runtime==13.0.99"
	installed := "installed 6 pinned wheels into VENV (pip --target: no venv module)\nnvcc 13.0.88 (SITE/nvidia/cu13/bin/nvcc)\n"
	runInstallSteps(t, []installStep{
		{name: "dry run shows the fallback", mode: "fail-venv", pins: pins, dryRun: true,
			wantOut: "would install the pinned CUDA compiler into VENV (nothing installed there yet):\n" + dryRunTail},
		{name: "venv fails: pip --target", mode: "fail-venv", pins: pins, wantCalls: []string{"venv", "pip--target"}, wantOut: installed,
			wantErr: []string{"ensurepip is not available.); installing with pip --target instead"}, wantStamp: pins},
		{name: "reused without a venv python", mode: "fail-venv", pins: pins,
			wantOut: "reusing VENV (pins match)\nnvcc 13.0.88 (SITE/nvidia/cu13/bin/nvcc)\n", wantStamp: pins},
		{name: "changed pins: a fresh --target tree", mode: "fail-venv", pins: newPins, wantCalls: []string{"venv", "pip--target"},
			wantOut: installed, wantStamp: newPins},
		{name: "venv works again: the old tree goes", pins: pins, wantCalls: []string{"venv", "pip"},
			wantOut:   "installed 6 pinned wheels into VENV (a venv)\nnvcc 13.0.88 (VENV/lib/python3.12/site-packages/nvidia/cu13/bin/nvcc)\n",
			wantStamp: pins},
	})
}

// TestToolchainInstallOutput checks the commands printed by --dry-run and
// the progress of a slow pip step.
func TestToolchainInstallOutput(t *testing.T) {
	t.Parallel()
	python, ctl := fakePython(t)
	venv := filepath.Join(t.TempDir(), "it's")
	in, out, _ := testInstaller(toolchain.Pins)
	if err := runToolchainInstall(context.Background(), &toolchainInstallOptions{Venv: venv, Python: python, DryRun: true}, in); err != nil {
		t.Fatal(err)
	}
	q := `'` + strings.ReplaceAll(venv, `'`, `'\''`) + `'`
	pip := "-m pip install --disable-pip-version-check --no-input --progress-bar off --only-binary=:all: "
	pq := `'` + strings.ReplaceAll(venv, `'`, `'\''`) + `/lib/python3/site-packages'`
	want := "would install the pinned CUDA compiler into " + venv + " (nothing installed there yet):\n" +
		"  " + python + " -m venv " + q + "\n" +
		"  " + `'` + strings.ReplaceAll(venv, `'`, `'\''`) + `/bin/python' ` + pip + strings.Join(toolchain.Pins, " ") + "\n" +
		"  where " + python + " -m venv fails instead: rm -rf " + q + " && " + python + " " + pip + "--target " + pq + " " + strings.Join(toolchain.Pins, " ") + "\n" +
		"  then check bin/nvcc, bin/ptxas, bin/cuobjdump, bin/nvdisasm, nvvm/bin/cicc, include/cuda_runtime.h, include/crt/host_config.h under nvidia/cu13 in its site-packages, run nvcc --version, and write " + venv + "/.swigen-pins\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("--dry-run output (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(venv); err == nil || len(calls(t, ctl)) != 0 {
		t.Errorf("--dry-run created %s or ran python", venv)
	}

	if err := os.WriteFile(filepath.Join(ctl, "mode"), []byte("slow"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _, errb := testInstaller(toolchain.Pins)
	in.Heartbeat = 50 * time.Millisecond
	if err := runToolchainInstall(context.Background(), &toolchainInstallOptions{Venv: venv, Python: python}, in); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"  " + python + " -m venv " + q + "\n", "downloading and installing 6 wheels", "  ... still running (", "  pip: Successfully installed"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb)
		}
	}
}

func TestToolchainInstallRefuses(t *testing.T) {
	t.Parallel()
	python, ctl := fakePython(t)
	foreign := t.TempDir()
	notes := filepath.Join(foreign, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		o        toolchainInstallOptions
		wantExit int
		wantErr  string
	}{
		{"foreign directory", toolchainInstallOptions{Venv: foreign, Python: python}, exitUsage, "neither a Python venv nor a swigen compiler install"},
		{"a file", toolchainInstallOptions{Venv: notes, Python: python}, exitUsage, "is not a directory"},
		{"empty --python", toolchainInstallOptions{Venv: t.TempDir(), Python: " "}, exitUsage, "--python is empty"},
		{"no such python", toolchainInstallOptions{Venv: filepath.Join(t.TempDir(), "v"), Python: "swigen-no-such-python3"}, exitFailure, "install Python 3 or name it with --python"},
	} {
		in, _, _ := testInstaller(toolchain.Pins)
		err := runToolchainInstall(context.Background(), &tt.o, in)
		if exitCode(err) != tt.wantExit || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %v (exit %d), want exit %d with %q", tt.name, err, exitCode(err), tt.wantExit, tt.wantErr)
		}
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("the foreign directory was touched: %q, %v", b, err)
	}
	if c := calls(t, ctl); len(c) != 0 {
		t.Errorf("python ran: %q", c)
	}
}

// TestToolchainCLI drives the command through run: its flags, exit codes
// and the real wiring.
func TestToolchainCLI(t *testing.T) {
	t.Parallel()
	python, _ := fakePython(t)
	venv := filepath.Join(t.TempDir(), "venv")
	for _, tt := range []struct {
		name     string
		args     []string
		wantExit int
		wantOut  string
		wantErr  string
	}{
		{"group shows help", []string{"toolchain"}, exitOK, "swigen toolchain install --dry-run", ""},
		{"unknown subcommand", []string{"toolchain", "bogus"}, exitUsage, "", `unknown command "bogus" for "swigen toolchain"`},
		{"extra argument", []string{"toolchain", "install", "extra"}, exitUsage, "", `unknown command "extra" for "swigen toolchain install"`},
		{"unknown flag", []string{"toolchain", "install", "--bogus"}, exitUsage, "", "unknown flag: --bogus"},
		{"empty python", []string{"toolchain", "install", "--python", ""}, exitUsage, "", "--python is empty"},
		{"dry run", []string{"toolchain", "install", "--venv", venv, "--python", python, "--dry-run"}, exitOK, "would install the pinned CUDA compiler into " + venv, ""},
		{"install", []string{"toolchain", "install", "--venv", venv, "--python", python}, exitOK, "installed 6 pinned wheels into " + venv, ""},
		{"reuse", []string{"toolchain", "install", "--venv", venv, "--python", python}, exitOK, "reusing " + venv + " (pins match)\nnvcc 13.0.88 (", ""},
	} {
		code, out, errOut := runCLI(t, tt.args...)
		if code != tt.wantExit || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%s: exit %d (want %d), stdout:\n%s\nstderr:\n%s\nwant stdout %q, stderr %q", tt.name, code, tt.wantExit, out, errOut, tt.wantOut, tt.wantErr)
		}
	}
}

// TestCIUsesToolchainInstall checks .ci/run gets its compiler from swigen
// toolchain install, so the pins have one owner (toolchain.Pins).
func TestCIUsesToolchainInstall(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	if !strings.Contains(script, "go run ./cmd/swigen toolchain install") {
		t.Error(".ci/run does not run `go run ./cmd/swigen toolchain install`")
	}
	for _, p := range toolchain.Pins {
		name, _, _ := strings.Cut(p, "==")
		if strings.Contains(script, name+"==") {
			t.Errorf(".ci/run pins %s itself; the pins belong to toolchain.Pins", name)
		}
	}
}

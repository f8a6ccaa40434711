package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/atomicfile"
)

// toolchainInstallOptions are the parsed flags of `swigen toolchain install`.
type toolchainInstallOptions struct {
	Venv   string // "" means toolchain.DefaultVenv()
	Python string
	DryRun bool
}

// validate checks the flags and returns the absolute install directory.
func (o *toolchainInstallOptions) validate() (string, error) {
	if strings.TrimSpace(o.Python) == "" {
		return "", usageError(errors.New("toolchain install: --python is empty; want a Python 3 interpreter such as python3"))
	}
	venv := o.Venv
	if venv == "" {
		v, err := toolchain.DefaultVenv()
		if err != nil {
			return "", usageError(fmt.Errorf("toolchain install: no --venv given: %w", err))
		}
		venv = v
	}
	abs, err := filepath.Abs(venv)
	if err != nil {
		return "", usageError(fmt.Errorf("toolchain install: --venv %q: %w", venv, err))
	}
	return abs, nil
}

const toolchainLong = `Manage the CUDA compiler swigen builds kernels with. swigen needs nvcc,
ptxas, cuobjdump and nvdisasm of pinned versions; NVIDIA publishes them as
Python wheels on PyPI, so no system CUDA and no GPU are needed to compile.
'swigen toolchain install' puts them where swigen looks by itself.`

func newToolchainCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "toolchain",
		Short: "Install the pinned CUDA compiler (nvcc, ptxas, cuobjdump) swigen compiles with",
		Long:  toolchainLong,
		Example: `  swigen toolchain install
  swigen toolchain install --dry-run`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newToolchainInstallCmd(e, nil))
	return cmd
}

func newToolchainInstallCmd(e *env, runF func(context.Context, *toolchainInstallOptions) error) *cobra.Command {
	o := &toolchainInstallOptions{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the pinned CUDA compiler wheels from PyPI into the venv swigen searches",
		Long: `Install the pinned CUDA compiler, the Python wheels

  ` + strings.Join(toolchain.Pins, "\n  ") + `

into a venv at --venv (default $SWIGEN_CUDA_VENV, else ~/.cache/swigen-cuda),
which swigen searches for nvcc. It runs 'PYTHON -m venv DIR' and
'DIR/bin/python -m pip install' of the pinned wheels (binary wheels only);
where the venv module is missing (Debian and Ubuntu without python3-venv) it
installs with 'PYTHON -m pip install --target DIR/lib/python3/site-packages'
instead, which swigen searches too.

It then checks that every tool is there and that nvcc runs, and writes
DIR/.swigen-pins last: an install that failed half-way is never taken for a
ready one. A DIR whose .swigen-pins matches this swigen's pins and whose
tools are present is reused without touching the network; when the pins
differ, the wheels are reinstalled.

The first install downloads a few hundred MB from PyPI (pip honours its
usual settings, e.g. PIP_INDEX_URL for a mirror). Exit 1 when python, pip
or the installed tools fail, with the end of their output.`,
		Example: `  swigen toolchain install
  swigen toolchain install --dry-run
  swigen toolchain install --venv /opt/swigen-cuda --python python3.12`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runToolchainInstall(cmd.Context(), o, &compilerInstaller{
				stdout:    e.stdout,
				stderr:    e.stderr,
				pins:      toolchain.Pins,
				run:       execRunner,
				find:      toolchain.Find,
				heartbeat: 30 * time.Second,
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Venv, "venv", "", "install into this directory (default $SWIGEN_CUDA_VENV, else ~/.cache/swigen-cuda)")
	f.StringVar(&o.Python, "python", "python3", "the Python 3 interpreter that creates the venv and runs pip")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the commands instead of running them; install nothing")
	return cmd
}

func runToolchainInstall(ctx context.Context, o *toolchainInstallOptions, in *compilerInstaller) error {
	venv, err := o.validate()
	if err != nil {
		return err
	}
	return in.install(ctx, venv, o.Python, o.DryRun)
}

// commandRunner runs one command to completion, its stdout and stderr both
// written to out.
type commandRunner func(ctx context.Context, out io.Writer, name string, args ...string) error

func execRunner(ctx context.Context, out io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = out, out
	return cmd.Run()
}

// compilerInstaller does `swigen toolchain install`. Its fields are the
// outside world, replaced in tests.
type compilerInstaller struct {
	stdout, stderr io.Writer
	pins           []string
	run            commandRunner
	find           func(toolchain.FindOptions) (*toolchain.Toolchain, error)
	// heartbeat is how often the pip step says it is still running, as pip
	// prints nothing while it downloads a wheel; 0 turns it off.
	heartbeat time.Duration
}

// stampName is the file, in the install directory, that lists the pins an
// install was completed with, one per line.
const stampName = ".swigen-pins"

func pinStamp(pins []string) string { return strings.Join(pins, "\n") + "\n" }

func (in *compilerInstaller) install(ctx context.Context, venv, python string, dryRun bool) error {
	stamp := filepath.Join(venv, stampName)
	tc, why := in.check(venv)
	if why == "" {
		fmt.Fprintf(in.stdout, "reusing %s (pins match)\n", venv)
		fmt.Fprintf(in.stdout, "nvcc %s (%s)\n", tc.Version, tc.NVCC)
		if !dryRun {
			in.noteDiscovery(venv, tc)
		}
		return nil
	}
	if err := checkInstallDir(venv); err != nil {
		return err
	}
	py := filepath.Join(venv, "bin", "python")
	haveVenv := isExecFile(py)
	fallback := filepath.Join(venv, "lib", "python3", "site-packages")
	if dryRun {
		w := in.stdout
		fmt.Fprintf(w, "would install the pinned CUDA compiler into %s (%s):\n", venv, why)
		if !haveVenv && fileExists(venv) {
			fmt.Fprintf(w, "  rm -rf %s\n", shellWord(venv))
		}
		if !haveVenv {
			fmt.Fprintf(w, "  %s\n", shellLine(python, "-m", "venv", venv))
		}
		fmt.Fprintf(w, "  %s\n", shellLine(py, in.pipArgs("")...))
		if !haveVenv {
			fmt.Fprintf(w, "  where %s -m venv fails instead: rm -rf %s && %s\n", python, shellWord(venv), shellLine(python, in.pipArgs(fallback)...))
		}
		fmt.Fprintf(w, "  then check %s under %s in its site-packages, run nvcc --version, and write %s\n",
			strings.Join(toolchain.WheelFiles, ", "), toolchain.WheelHome, stamp)
		return nil
	}

	fmt.Fprintf(in.stderr, "installing the pinned CUDA compiler into %s: %s\n", venv, why)
	start := time.Now()
	// The stamp says "ready"; it must not survive an install that stops
	// half-way.
	if err := os.Remove(stamp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("toolchain install: remove stale stamp: %w", err)
	}
	how, target, venvFailure := "a venv", "", ""
	if !haveVenv {
		// Without a venv python the directory is absent, empty, a --target
		// install or a broken venv (checkInstallDir); starting afresh keeps
		// an old lib/python3 tree from shadowing the new venv's
		// site-packages, which Find would try after it.
		if err := os.RemoveAll(venv); err != nil {
			return fmt.Errorf("toolchain install: remove the old install: %w", err)
		}
		fmt.Fprintf(in.stderr, "  %s\n", shellLine(python, "-m", "venv", venv))
		tail, err := in.step(ctx, false, python, "-m", "venv", venv)
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return fmt.Errorf("toolchain install: %s -m venv %s: %w; install Python 3 or name it with --python", python, venv, err)
		case ctx.Err() != nil:
			return fmt.Errorf("toolchain install: %s -m venv %s: %w", python, venv, ctx.Err())
		case err != nil:
			// Debian and Ubuntu ship python3 without its venv module (the
			// python3-venv package); a plain --target tree needs only pip,
			// and toolchain.Find searches DIR/lib/python3*/site-packages.
			venvFailure = lastOutputLine(tail, err)
			fmt.Fprintf(in.stderr, "%s -m venv failed (%s); installing with pip --target instead\n", python, venvFailure)
			// checkInstallDir allowed only an absent or empty directory, a
			// venv or an earlier install here, so this deletes nothing else.
			if err := os.RemoveAll(venv); err != nil {
				return fmt.Errorf("toolchain install: remove the failed venv: %w", err)
			}
			if err := os.MkdirAll(fallback, 0o755); err != nil {
				return fmt.Errorf("toolchain install: %w", err)
			}
			py, how, target = python, "pip --target: no venv module", fallback
		}
	}

	args := in.pipArgs(target)
	fmt.Fprintf(in.stderr, "  %s\n", shellLine(py, args...))
	fmt.Fprintf(in.stderr, "  downloading and installing %d wheels (a few hundred MB; minutes on a first install)\n", len(in.pins))
	if tail, err := in.step(ctx, true, py, args...); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("toolchain install: pip install into %s: %w; nothing is marked installed", venv, ctx.Err())
		}
		msg := fmt.Sprintf("toolchain install: pip install into %s: %v", venv, err)
		if venvFailure != "" {
			msg += fmt.Sprintf(" (with --target, as %s -m venv failed: %s)", python, venvFailure)
		}
		if tail != "" {
			msg += "; pip's output ends:\n" + indentLines(tail, "  ")
		}
		return errors.New(msg + "\nnothing is marked installed; pip needs network access to PyPI (or a mirror in PIP_INDEX_URL)")
	}
	tc, why = in.verify(venv)
	if why != "" {
		return fmt.Errorf("toolchain install: pip installed the pinned wheels into %s, but %s; nothing is marked installed", venv, why)
	}
	if err := atomicfile.Write(stamp, []byte(pinStamp(in.pins))); err != nil {
		return fmt.Errorf("toolchain install: write stamp: %w", err)
	}
	fmt.Fprintf(in.stderr, "done in %s\n", time.Since(start).Round(time.Second))
	fmt.Fprintf(in.stdout, "installed %d pinned wheels into %s (%s)\n", len(in.pins), venv, how)
	fmt.Fprintf(in.stdout, "nvcc %s (%s)\n", tc.Version, tc.NVCC)
	in.noteDiscovery(venv, tc)
	return nil
}

func (in *compilerInstaller) pipArgs(target string) []string {
	args := []string{"-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--only-binary=:all:"}
	if target != "" {
		args = append(args, "--target", target)
	}
	return append(args, in.pins...)
}

// check says why the install at venv cannot be reused ("" when it can),
// and returns its toolchain when it can.
func (in *compilerInstaller) check(venv string) (*toolchain.Toolchain, string) {
	stamp := filepath.Join(venv, stampName)
	b, err := os.ReadFile(stamp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(venv); errors.Is(err, fs.ErrNotExist) {
			return nil, "nothing installed there yet"
		}
		return nil, "no " + stampName + " there (a new, unfinished or foreign install)"
	case err != nil:
		return nil, fmt.Sprintf("cannot read %s: %v", stamp, err)
	}
	if have := strings.Fields(string(b)); !slices.Equal(have, in.pins) {
		var want []string
		for _, p := range in.pins {
			if !slices.Contains(have, p) {
				want = append(want, p)
			}
		}
		if len(want) == 0 {
			return nil, "its pins differ from this swigen's"
		}
		return nil, "pins changed: this swigen needs " + strings.Join(want, " ")
	}
	return in.verify(venv)
}

// verify checks that a site-packages directory of venv holds every tool of
// the wheels and that its nvcc runs.
func (in *compilerInstaller) verify(venv string) (*toolchain.Toolchain, string) {
	site, missing := wheelSite(venv)
	if site == "" {
		return nil, missing + " is missing"
	}
	nvcc := filepath.Join(site, filepath.FromSlash(toolchain.WheelHome), "bin", "nvcc")
	tc, err := in.find(toolchain.FindOptions{NVCC: nvcc})
	if err != nil {
		return nil, fmt.Sprintf("its nvcc does not run: %v", err)
	}
	return tc, ""
}

// wheelSite returns the first site-packages directory of venv, in Find's
// order, that holds every file of toolchain.WheelFiles; or "" and the first
// file missing.
func wheelSite(venv string) (site, missing string) {
	sites := toolchain.VenvSitePackages(venv)
	if len(sites) == 0 {
		return "", filepath.Join(venv, "lib", "python3*", "site-packages")
	}
	for _, s := range sites {
		home := filepath.Join(s, filepath.FromSlash(toolchain.WheelHome))
		var absent string
		for _, f := range toolchain.WheelFiles {
			if p := filepath.Join(home, filepath.FromSlash(f)); !fileExists(p) {
				absent = p
				break
			}
		}
		if absent == "" {
			return s, ""
		}
		if missing == "" {
			missing = absent
		}
	}
	return "", missing
}

// noteDiscovery tells, on stderr, whether swigen's own search (no --nvcc)
// picks the compiler at venv, and what to do when it does not.
func (in *compilerInstaller) noteDiscovery(venv string, tc *toolchain.Toolchain) {
	if !searchedVenv(venv) {
		fmt.Fprintf(in.stderr, "note: swigen does not search %s by itself; export SWIGEN_CUDA_VENV=%s or pass --nvcc %s\n", venv, shellWord(venv), shellWord(tc.NVCC))
		return
	}
	def, err := in.find(toolchain.FindOptions{})
	switch {
	case err == nil && def.NVCC == tc.NVCC:
		fmt.Fprintln(in.stderr, "swigen finds this compiler by itself (swigen doctor shows it)")
	case err == nil:
		fmt.Fprintf(in.stderr, "note: swigen's search finds %s before this one; to use this one pass --nvcc %s or set CUDA_HOME=%s\n",
			def, shellWord(tc.NVCC), shellWord(filepath.Dir(filepath.Dir(tc.NVCC))))
	default:
		fmt.Fprintf(in.stderr, "note: swigen's own search does not find this compiler: %v\n", err)
	}
}

// searchedVenv reports whether toolchain.Find searches the venv at dir:
// $SWIGEN_CUDA_VENV, $VIRTUAL_ENV or ~/.cache/swigen-cuda.
func searchedVenv(dir string) bool {
	var venvs []string
	for _, env := range []string{"SWIGEN_CUDA_VENV", "VIRTUAL_ENV"} {
		if v := os.Getenv(env); v != "" {
			venvs = append(venvs, v)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		venvs = append(venvs, filepath.Join(home, ".cache", "swigen-cuda"))
	}
	for _, v := range venvs {
		if abs, err := filepath.Abs(v); err == nil && abs == dir {
			return true
		}
	}
	return false
}

// checkInstallDir refuses a --venv that holds something other than a venv
// or an earlier install, because the --target fallback deletes the
// directory.
func checkInstallDir(venv string) error {
	fi, err := os.Stat(venv)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("toolchain install: %w", err)
	}
	if !fi.IsDir() {
		return usageError(fmt.Errorf("toolchain install: %s is not a directory; pass --venv a new or empty directory", venv))
	}
	entries, err := os.ReadDir(venv)
	if err != nil {
		return fmt.Errorf("toolchain install: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	for _, marker := range []string{"pyvenv.cfg", stampName, filepath.Join("lib", "python3", "site-packages")} {
		if fileExists(filepath.Join(venv, marker)) {
			return nil
		}
	}
	return usageError(fmt.Errorf("toolchain install: %s holds files but is neither a Python venv nor a swigen compiler install; pass --venv a new or empty directory", venv))
}

// step runs one install command and returns the end of its output. With
// progress, its output lines also go to stderr as they come, and a line
// every heartbeat says it is still running.
func (in *compilerInstaller) step(ctx context.Context, progress bool, name string, args ...string) (string, error) {
	t := &outputTail{}
	var wg sync.WaitGroup
	done := make(chan struct{})
	if progress {
		t.w = in.stderr
		if in.heartbeat > 0 {
			start := time.Now()
			tick := time.NewTicker(in.heartbeat)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer tick.Stop()
				for {
					select {
					case <-tick.C:
						t.note(fmt.Sprintf("  ... still running (%s)", time.Since(start).Round(time.Second)))
					case <-done:
						return
					}
				}
			}()
		}
	}
	err := in.run(ctx, t, name, args...)
	close(done)
	wg.Wait()
	return t.String(), err
}

// outputTail keeps the last lines written to it, for an error message, and
// copies each line, indented, to w when w is set.
type outputTail struct {
	mu      sync.Mutex
	w       io.Writer
	partial []byte
	lines   []string
}

const (
	tailLines   = 20
	maxLineSize = 4096 // a longer run without a newline counts as a line
)

func (t *outputTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			if len(t.partial) > maxLineSize {
				t.line(string(t.partial))
				t.partial = t.partial[:0]
			}
			return len(p), nil
		}
		t.line(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
}

// line records one output line; t.mu is held.
func (t *outputTail) line(s string) {
	s = strings.TrimRight(s, "\r \t")
	if strings.TrimSpace(s) == "" {
		return
	}
	if t.w != nil {
		fmt.Fprintf(t.w, "  pip: %s\n", s)
	}
	t.lines = append(t.lines, s)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

func (t *outputTail) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		fmt.Fprintln(t.w, s)
	}
}

func (t *outputTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.partial) > 0 {
		t.line(string(t.partial))
		t.partial = nil
	}
	return strings.Join(t.lines, "\n")
}

// lastOutputLine is the last line of a command's output, or its error when it
// printed nothing.
func lastOutputLine(out string, err error) string {
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if out = strings.TrimSpace(out); out != "" {
		return out
	}
	return err.Error()
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isExecFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// shellLine renders a command for a person to read or paste into a shell.
func shellLine(name string, args ...string) string {
	words := make([]string, 0, 1+len(args))
	for _, a := range append([]string{name}, args...) {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

func shellWord(s string) string {
	const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Package install installs the pinned CUDA compiler wheels (toolchain.Pins)
// into a Python venv, or a pip --target tree where Python has no venv
// module, checks them and stamps the install ready: swigen toolchain
// install's work, apart from its flags.
package install

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

	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/internal/proc"
	"github.com/swigen/swigen/internal/readfile"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/atomicfile"
)

// Runner runs one command to completion, its stdout and stderr both
// written to out.
type Runner func(ctx context.Context, out io.Writer, name string, args ...string) error

// ExecRunner runs name with os/exec.
func ExecRunner(ctx context.Context, out io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	proc.Isolate(cmd)
	cmd.Stdout, cmd.Stderr = out, out
	return cmd.Run()
}

// Installer does `swigen toolchain install`. Its fields are the outside
// world, replaced in tests; New gives the real one.
type Installer struct {
	Stdout, Stderr io.Writer
	Pins           []string
	Run            Runner
	Find           func(toolchain.FindOptions) (*toolchain.Toolchain, error)
	// Heartbeat is how often the pip step says it is still running, as pip
	// prints nothing while it downloads a wheel; 0 turns it off.
	Heartbeat time.Duration
}

// New is the installer of toolchain.Pins that runs the commands, finds
// the compiler with toolchain.Find and writes its report to stdout and
// its progress to stderr.
func New(stdout, stderr io.Writer) *Installer {
	return &Installer{Stdout: stdout, Stderr: stderr, Pins: toolchain.Pins, Run: ExecRunner, Find: toolchain.Find, Heartbeat: 30 * time.Second}
}

// UsageError is an install directory swigen must not install into (bad
// input, which the CLI exits 2 on).
type UsageError = badinput.Error

// StampName is the file, in the install directory, that lists the pins an
// install was completed with, one per line.
const StampName = ".swigen-pins"

func pinStamp(pins []string) string { return strings.Join(pins, "\n") + "\n" }

// printPlan prints, under head, the commands an install into venv with
// python runs (with a venv python there already, or not).
func (in *Installer) printPlan(venv, python, head string, haveVenv bool) {
	w := in.Stdout
	py := filepath.Join(venv, "bin", "python")
	fallback := filepath.Join(venv, "lib", "python3", "site-packages")
	fmt.Fprintf(w, "%s:\n", head)
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
		strings.Join(toolchain.WheelFiles, ", "), toolchain.WheelHome, filepath.Join(venv, StampName))
}

// Install installs the pins into venv with python (reusing an install
// whose stamp matches), or with dryRun prints what it would run.
func (in *Installer) Install(ctx context.Context, venv, python string, dryRun bool) error {
	stamp := filepath.Join(venv, StampName)
	tc, why := in.check(venv)
	py := filepath.Join(venv, "bin", "python")
	haveVenv := isExecFile(py)
	if why == "" {
		fmt.Fprintf(in.Stdout, "reusing %s (pins match)\n", venv)
		fmt.Fprintf(in.Stdout, "nvcc %s (%s)\n", tc.Version, tc.NVCC)
		if dryRun {
			// What it runs is what a user copies to install by hand or
			// elsewhere: show it here too.
			in.printPlan(venv, python, "with other pins it would run", haveVenv)
		} else {
			in.noteDiscovery(venv, tc)
		}
		return nil
	}
	if err := checkInstallDir(venv); err != nil {
		return err
	}
	fallback := filepath.Join(venv, "lib", "python3", "site-packages")
	if dryRun {
		in.printPlan(venv, python, fmt.Sprintf("would install the pinned CUDA compiler into %s (%s)", venv, why), haveVenv)
		return nil
	}

	fmt.Fprintf(in.Stderr, "installing the pinned CUDA compiler into %s: %s\n", venv, why)
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
		fmt.Fprintf(in.Stderr, "  %s\n", shellLine(python, "-m", "venv", venv))
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
			fmt.Fprintf(in.Stderr, "%s -m venv failed (%s); installing with pip --target instead\n", python, venvFailure)
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
	fmt.Fprintf(in.Stderr, "  %s\n", shellLine(py, args...))
	fmt.Fprintf(in.Stderr, "  downloading and installing %d wheels (a few hundred MB; minutes on a first install)\n", len(in.Pins))
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
	if err := atomicfile.Write(stamp, []byte(pinStamp(in.Pins))); err != nil {
		return fmt.Errorf("toolchain install: write stamp: %w", err)
	}
	fmt.Fprintf(in.Stderr, "done in %s\n", time.Since(start).Round(time.Second))
	fmt.Fprintf(in.Stdout, "installed %d pinned wheels into %s (%s)\n", len(in.Pins), venv, how)
	fmt.Fprintf(in.Stdout, "nvcc %s (%s)\n", tc.Version, tc.NVCC)
	in.noteDiscovery(venv, tc)
	return nil
}

func (in *Installer) pipArgs(target string) []string {
	args := []string{"-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--only-binary=:all:"}
	if target != "" {
		args = append(args, "--target", target)
	}
	return append(args, in.Pins...)
}

// check says why the install at venv cannot be reused ("" when it can),
// and returns its toolchain when it can.
func (in *Installer) check(venv string) (*toolchain.Toolchain, string) {
	stamp := filepath.Join(venv, StampName)
	b, err := readfile.Read(stamp, readfile.MaxJSON)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(venv); errors.Is(err, fs.ErrNotExist) {
			return nil, "nothing installed there yet"
		}
		return nil, "no " + StampName + " there (a new, unfinished or foreign install)"
	case err != nil:
		return nil, fmt.Sprintf("cannot read %s: %v", stamp, err)
	}
	if have := strings.Fields(string(b)); !slices.Equal(have, in.Pins) {
		var want []string
		for _, p := range in.Pins {
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
func (in *Installer) verify(venv string) (*toolchain.Toolchain, string) {
	site, missing := WheelSite(venv)
	if site == "" {
		return nil, missing + " is missing"
	}
	nvcc := filepath.Join(site, filepath.FromSlash(toolchain.WheelHome), "bin", "nvcc")
	tc, err := in.Find(toolchain.FindOptions{NVCC: nvcc})
	if err != nil {
		return nil, fmt.Sprintf("its nvcc does not run: %v", err)
	}
	return tc, ""
}

// WheelSite returns the first site-packages directory of venv, in Find's
// order, that holds every file of toolchain.WheelFiles; or "" and the first
// file missing.
func WheelSite(venv string) (site, missing string) {
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
func (in *Installer) noteDiscovery(venv string, tc *toolchain.Toolchain) {
	if !searchedVenv(venv) {
		fmt.Fprintf(in.Stderr, "note: swigen does not search %s by itself; export SWIGEN_CUDA_VENV=%s or pass --nvcc %s\n", venv, shellWord(venv), shellWord(tc.NVCC))
		return
	}
	def, err := in.Find(toolchain.FindOptions{})
	switch {
	case err == nil && def.NVCC == tc.NVCC:
		fmt.Fprintln(in.Stderr, "swigen finds this compiler by itself (swigen doctor shows it)")
	case err == nil:
		fmt.Fprintf(in.Stderr, "note: swigen's search finds %s before this one; to use this one pass --nvcc %s or set CUDA_HOME=%s\n",
			def, shellWord(tc.NVCC), shellWord(filepath.Dir(filepath.Dir(tc.NVCC))))
	default:
		fmt.Fprintf(in.Stderr, "note: swigen's own search does not find this compiler: %v\n", err)
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
		return &UsageError{Err: fmt.Errorf("toolchain install: %s is not a directory; pass --venv a new or empty directory", venv)}
	}
	entries, err := os.ReadDir(venv)
	if err != nil {
		return fmt.Errorf("toolchain install: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	for _, marker := range []string{"pyvenv.cfg", StampName, filepath.Join("lib", "python3", "site-packages")} {
		if fileExists(filepath.Join(venv, marker)) {
			return nil
		}
	}
	return &UsageError{Err: fmt.Errorf("toolchain install: %s holds files but is neither a Python venv nor a swigen compiler install; pass --venv a new or empty directory", venv)}
}

// step runs one install command and returns the end of its output. With
// progress, its output lines also go to stderr as they come, and a line
// every heartbeat says it is still running.
func (in *Installer) step(ctx context.Context, progress bool, name string, args ...string) (string, error) {
	t := &outputTail{}
	var wg sync.WaitGroup
	done := make(chan struct{})
	if progress {
		t.w = in.Stderr
		if in.Heartbeat > 0 {
			start := time.Now()
			tick := time.NewTicker(in.Heartbeat)
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
	err := in.Run(ctx, t, name, args...)
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

// Package toolchain drives the CUDA compiler: it finds nvcc and its
// sibling tools, compiles a kernel source to a cubin in two steps (nvcc
// -ptx, then ptxas -v) behind a content-addressed build cache, parses and
// checks the ptxas report (spills, stack frames, hazard notes), and
// disassembles cubins to SASS. It knows nothing of swigen's kernels: any
// self-contained .cu compiles.
package toolchain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/internal/proc"
)

// Versions of the pinned CUDA compiler wheels (see Pins).
const (
	PinnedNVCCVersion      = "13.0.88"
	PinnedRuntimeVersion   = "13.0.96"
	PinnedCUObjdumpVersion = "13.2.51"
)

// Pins are the CUDA compiler wheels swigen is tested with, as pip
// requirement specifiers. They are the one list: `swigen toolchain install`
// (which .ci/run runs) installs exactly these, and ErrNoCompiler names them
// for a manual install. Treat it as read-only.
var Pins = []string{
	"nvidia-cuda-nvcc==" + PinnedNVCCVersion,
	"nvidia-cuda-crt==" + PinnedNVCCVersion,            // crt/host_config.h etc., which nvcc includes
	"nvidia-nvvm==" + PinnedNVCCVersion,                // cicc, libnvvm
	"nvidia-cuda-runtime==" + PinnedRuntimeVersion,     // include/cuda_runtime.h, included by nvcc for every .cu
	"nvidia-cuda-cuobjdump==" + PinnedCUObjdumpVersion, // SASS checks
	"nvidia-cuda-nvdisasm==" + PinnedCUObjdumpVersion,  // cuobjdump -sass runs nvdisasm
}

// WheelHome is where the CUDA 13 wheels lay out their toolkit, relative to
// a site-packages directory; it serves as that install's CUDA_HOME.
const WheelHome = "nvidia/cu13"

// WheelFiles are the files, relative to WheelHome, that the pinned wheels
// must provide for swigen to compile and disassemble: nvcc runs cicc and
// ptxas and includes the two headers; cuobjdump -sass runs nvdisasm.
var WheelFiles = []string{
	"bin/nvcc",
	"bin/ptxas",
	"bin/cuobjdump",
	"bin/nvdisasm",
	"nvvm/bin/cicc",
	"include/cuda_runtime.h",
	"include/crt/host_config.h",
}

// DefaultVenv is where `swigen toolchain install` puts the pinned compiler
// when given no directory, and one of the places Find searches:
// $SWIGEN_CUDA_VENV, else ~/.cache/swigen-cuda.
func DefaultVenv() (string, error) {
	if v := os.Getenv("SWIGEN_CUDA_VENV"); v != "" {
		return v, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("default CUDA venv: %w (set SWIGEN_CUDA_VENV)", err)
	}
	return filepath.Join(home, ".cache", "swigen-cuda"), nil
}

// VenvSitePackages lists the site-packages directories of the venv (or pip
// --target tree) at dir, lib/python3*/site-packages, in the order Find tries
// them (reverse lexical, so python3.12 before python3.11).
func VenvSitePackages(dir string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "lib", "python3*", "site-packages"))
	sort.Sort(sort.Reverse(sort.StringSlice(matches)))
	return matches
}

// ErrNoCompiler is returned (wrapped) by Find when no usable nvcc is
// found. Test it with errors.Is.
var ErrNoCompiler = errors.New("no CUDA compiler (nvcc) found; run `swigen toolchain install` " +
	"to install the pinned one where swigen finds it ($SWIGEN_CUDA_VENV, default ~/.cache/swigen-cuda), " +
	"or `pip install " + strings.Join(Pins, " ") + "` into a venv yourself " +
	"and point $SWIGEN_CUDA_VENV or --nvcc at it")

// Toolchain is a located set of CUDA compiler tools. Paths are absolute.
// CUObjdump and NVDisasm are empty when not found; only SASS needs them.
type Toolchain struct {
	NVCC      string
	PTXAS     string
	CUObjdump string
	NVDisasm  string
	// Version is the nvcc release, e.g. "13.0.88", from `nvcc --version`.
	Version string
}

// FindOptions controls Find.
type FindOptions struct {
	// NVCC is an explicit nvcc path (or the directory holding it), e.g. from
	// a --nvcc flag. When set, no other place is searched.
	NVCC string
}

// CheckNVCCPath checks an nvcc named by the user (--nvcc) before it is
// run: a directory (whose nvcc the search looks at), or an executable
// regular file (not a device, FIFO or missing path).
func CheckNVCCPath(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return nil
	}
	if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file (%s)", p, fi.Mode())
	}
	return nil
}

// Find locates nvcc and its sibling tools. It searches, in order:
// the explicit o.NVCC; $CUDA_HOME/bin; $PATH; /usr/local/cuda/bin; and the
// CUDA 13 Python wheels (nvidia/cu13/bin) under $SWIGEN_CUDA_VENV,
// $VIRTUAL_ENV, ~/.cache/swigen-cuda, ~/.local, /usr/lib, /usr/local/lib and
// /opt/*/.venv site-packages. The first nvcc that has a ptxas next to it and
// answers `--version` wins. When none does, the error wraps ErrNoCompiler and
// lists every place searched, in order, with what was found there.
func Find(o FindOptions) (*Toolchain, error) {
	if o.NVCC != "" {
		if err := CheckNVCCPath(o.NVCC); err != nil {
			return nil, &badinput.Error{Err: fmt.Errorf("find toolchain: explicit nvcc %q: %w", o.NVCC, err)}
		}
		p := o.NVCC
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, "nvcc")
		}
		tc, err := toolchainAt(p)
		if err != nil {
			return nil, fmt.Errorf("find toolchain: explicit nvcc %q: %w", o.NVCC, err)
		}
		return tc, nil
	}
	var tried, report []string
	for _, pl := range searchPlaces() {
		var unusable []string
		repeats := 0
		for _, c := range pl.nvccs {
			if slices.Contains(tried, c) {
				repeats++
				continue
			}
			tried = append(tried, c)
			if _, err := os.Stat(c); err != nil {
				continue
			}
			tc, err := toolchainAt(c)
			if err != nil {
				unusable = append(unusable, err.Error())
				continue
			}
			return tc, nil
		}
		outcome := pl.skip
		switch {
		case len(unusable) > 0:
			outcome = "unusable: " + strings.Join(unusable, "; ")
		case repeats > 0 && repeats == len(pl.nvccs):
			outcome = "same nvcc as above"
		case outcome == "":
			outcome = "not found"
		}
		report = append(report, "  "+pl.what+": "+outcome)
	}
	return nil, fmt.Errorf("find toolchain: %w\nsearched, in order:\n%s", ErrNoCompiler, strings.Join(report, "\n"))
}

// searchPlace is one step of Find's search order.
type searchPlace struct {
	what  string   // the place as a user would name it, e.g. "$CUDA_HOME/bin/nvcc"
	nvccs []string // the nvcc paths it yields, globs expanded
	skip  string   // why it yields none without looking, e.g. "$CUDA_HOME not set"
}

// searchPlaces lists Find's search order after an explicit nvcc. Globs are
// expanded and sorted in reverse so a newer python3.X directory is tried
// first.
func searchPlaces() []searchPlace {
	var out []searchPlace
	if h := os.Getenv("CUDA_HOME"); h != "" {
		p := filepath.Join(h, "bin", "nvcc")
		out = append(out, searchPlace{what: p + " ($CUDA_HOME/bin/nvcc)", nvccs: []string{p}})
	} else {
		out = append(out, searchPlace{what: "$CUDA_HOME/bin/nvcc", skip: "$CUDA_HOME not set"})
	}
	onPath := searchPlace{what: "nvcc on $PATH"}
	if p, err := exec.LookPath("nvcc"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		onPath.nvccs = []string{p}
	}
	out = append(out, onPath, searchPlace{what: "/usr/local/cuda/bin/nvcc", nvccs: []string{"/usr/local/cuda/bin/nvcc"}})

	wheel := filepath.Join(filepath.FromSlash(WheelHome), "bin", "nvcc")
	site := filepath.Join("lib", "python3*", "site-packages")
	glob := func(what, pattern string) searchPlace {
		matches, _ := filepath.Glob(pattern)
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		return searchPlace{what: what, nvccs: matches}
	}
	for _, env := range []string{"SWIGEN_CUDA_VENV", "VIRTUAL_ENV"} {
		if v := os.Getenv(env); v != "" {
			pat := filepath.Join(v, site, wheel)
			out = append(out, glob(pat+" ($"+env+")", pat))
		} else {
			out = append(out, searchPlace{what: filepath.Join("$"+env, site, wheel), skip: "$" + env + " not set"})
		}
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		pat := filepath.Join(home, ".cache", "swigen-cuda", site, wheel)
		out = append(out, glob(pat+" (the default venv of swigen toolchain install)", pat))
		pat = filepath.Join(home, ".local", site, wheel)
		out = append(out, glob(pat, pat))
	} else {
		for _, d := range []string{".cache/swigen-cuda", ".local"} {
			out = append(out, searchPlace{what: filepath.Join("~", d, site, wheel), skip: "no home directory"})
		}
	}
	for _, sp := range []string{
		"/usr/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/opt/*/.venv/lib/python3*/site-packages",
	} {
		pat := filepath.Join(sp, wheel)
		out = append(out, glob(pat, pat))
	}
	return out
}

// toolchainAt builds a Toolchain around the nvcc at path: ptxas must sit next
// to it (every CUDA install and the pip wheel lay it out that way), while
// cuobjdump and nvdisasm are optional.
func toolchainAt(nvcc string) (*Toolchain, error) {
	abs, err := filepath.Abs(nvcc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nvcc, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%s: %w", abs, err)
	} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("%s: not an executable file", abs)
	}
	dir := filepath.Dir(abs)
	tc := &Toolchain{NVCC: abs}
	tc.PTXAS = siblingTool(dir, "ptxas")
	if tc.PTXAS == "" {
		return nil, fmt.Errorf("%s: no ptxas next to it in %s", abs, dir)
	}
	tc.CUObjdump = siblingTool(dir, "cuobjdump")
	tc.NVDisasm = siblingTool(dir, "nvdisasm")
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, abs, "--version")
	proc.Isolate(cmd) // a wrapper's child that never answers dies with it
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w: %s", abs, err, strings.TrimSpace(string(out)))
	}
	v, err := parseNVCCVersion(string(out))
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", abs, err)
	}
	tc.Version = v
	return tc, nil
}

// versionTimeout bounds nvcc --version, which answers in well under a
// second; a variable so tests can shorten it.
var versionTimeout = 30 * time.Second

// siblingTool returns dir/name when it is an executable file, or "".
func siblingTool(dir, name string) string {
	p := filepath.Join(dir, name)
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

var nvccVersionRE = regexp.MustCompile(`(?m)release \d+\.\d+, V(\d+\.\d+\.\d+)`)

// parseNVCCVersion extracts "13.0.88" from the "Cuda compilation tools,
// release 13.0, V13.0.88" line of `nvcc --version` (ptxas prints the same).
func parseNVCCVersion(out string) (string, error) {
	m := nvccVersionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("no %q line in version output %q", "release X.Y, VX.Y.Z", strings.TrimSpace(out))
	}
	return m[1], nil
}

// String describes the toolchain in one line for logs and `swigen doctor`.
func (t *Toolchain) String() string {
	s := fmt.Sprintf("nvcc %s (%s)", t.Version, t.NVCC)
	if t.CUObjdump == "" {
		s += ", no cuobjdump"
	} else if t.NVDisasm == "" {
		s += ", no nvdisasm"
	}
	return s
}

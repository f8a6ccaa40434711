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
)

// Pinned CUDA compiler wheels. `.ci/run` installs exactly these; the
// versions are repeated here so error messages can say what to install.
const (
	PinnedNVCCVersion      = "13.0.88"
	PinnedCUObjdumpVersion = "13.2.51"
)

// ErrNoCompiler is returned (wrapped) by Find when no usable nvcc is
// found. Test it with errors.Is.
var ErrNoCompiler = errors.New("no CUDA compiler (nvcc) found; install the pinned one with " +
	"`pip install nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.96 " +
	"nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51` (into a venv, then point $SWIGEN_CUDA_VENV or --nvcc at it) " +
	"or run `bash .ci/run`, which creates that venv in ~/.cache/swigen-cuda")

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

// Find locates nvcc and its sibling tools. It searches, in order:
// the explicit o.NVCC; $CUDA_HOME/bin; $PATH; /usr/local/cuda/bin; and the
// CUDA 13 Python wheels (nvidia/cu13/bin) under $SWIGEN_CUDA_VENV,
// $VIRTUAL_ENV, ~/.cache/swigen-cuda, ~/.local, /usr/lib, /usr/local/lib and
// /opt/*/.venv site-packages. The first nvcc that has a ptxas next to it and
// answers `--version` wins. When none does, the error wraps ErrNoCompiler and
// lists the places searched.
func Find(o FindOptions) (*Toolchain, error) {
	if o.NVCC != "" {
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
	var tried []string
	var problems []string
	for _, c := range nvccCandidates() {
		if slices.Contains(tried, c) {
			continue
		}
		tried = append(tried, c)
		if _, err := os.Stat(c); err != nil {
			continue
		}
		tc, err := toolchainAt(c)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		return tc, nil
	}
	msg := "searched " + strings.Join(tried, ", ")
	if len(problems) > 0 {
		msg += "; unusable: " + strings.Join(problems, "; ")
	}
	return nil, fmt.Errorf("find toolchain: %w (%s)", ErrNoCompiler, msg)
}

// nvccCandidates lists nvcc paths in search order. Globs are expanded and
// sorted in reverse so a newer python3.X directory is tried first.
func nvccCandidates() []string {
	var out []string
	if h := os.Getenv("CUDA_HOME"); h != "" {
		out = append(out, filepath.Join(h, "bin", "nvcc"))
	}
	if p, err := exec.LookPath("nvcc"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, p)
	}
	out = append(out, "/usr/local/cuda/bin/nvcc")

	const wheel = "nvidia/cu13/bin/nvcc"
	var venvs []string
	for _, env := range []string{"SWIGEN_CUDA_VENV", "VIRTUAL_ENV"} {
		if v := os.Getenv(env); v != "" {
			venvs = append(venvs, v)
		}
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		venvs = append(venvs, filepath.Join(home, ".cache", "swigen-cuda"))
	}
	var sitePatterns []string
	for _, v := range venvs {
		sitePatterns = append(sitePatterns, filepath.Join(v, "lib", "python3*", "site-packages"))
	}
	if home != "" {
		sitePatterns = append(sitePatterns, filepath.Join(home, ".local", "lib", "python3*", "site-packages"))
	}
	sitePatterns = append(sitePatterns,
		"/usr/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/opt/*/.venv/lib/python3*/site-packages",
	)
	for _, pat := range sitePatterns {
		matches, _ := filepath.Glob(filepath.Join(pat, wheel))
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		out = append(out, matches...)
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, abs, "--version").CombinedOutput()
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

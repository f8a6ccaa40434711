package doctor

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// Write prints r as swigen doctor does: the compiler, the driver, the
// GPUs and which targets build and run here.
func (r *Report) Write(w io.Writer) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	line := func(format string, args ...any) { fmt.Fprintf(tw, format+"\n", args...) }

	line("Compiler")
	if r.ToolchainErr != nil {
		line("  nvcc\tnot usable: %v", r.ToolchainErr)
	} else {
		t := r.Toolchain
		line("  nvcc\t%s (%s)", t.Version, t.NVCC)
		line("  ptxas\t%s", t.PTXAS)
		switch {
		case t.CUObjdump == "":
			line("  cuobjdump\tnot found; SASS checks need it (pip install nvidia-cuda-cuobjdump==%s nvidia-cuda-nvdisasm==%s)", toolchain.PinnedCUObjdumpVersion, toolchain.PinnedCUObjdumpVersion)
		case t.NVDisasm == "":
			line("  cuobjdump\t%s; nvdisasm not found, SASS checks need it (pip install nvidia-cuda-nvdisasm==%s)", t.CUObjdump, toolchain.PinnedCUObjdumpVersion)
		default:
			line("  cuobjdump\t%s (nvdisasm %s)", t.CUObjdump, t.NVDisasm)
		}
	}
	if r.CacheErr != nil {
		line("  build cache\tunavailable: %v", r.CacheErr)
	} else {
		line("  build cache\t%s", r.CacheDir)
	}
	for _, a := range tiling.Arches() {
		line("  build %s\t%s", a, buildStatus(r, a))
	}

	line("")
	line("Driver")
	switch {
	case errors.Is(r.DriverErr, cu.ErrNoDriver):
		line("  libcuda\tnot found: %v", r.DriverErr)
	case r.DriverErr != nil && r.Driver == 0:
		line("  libcuda\tnot usable: %v", r.DriverErr)
	default:
		line("  libcuda\tloaded, CUDA %d.%d (%d)", r.Driver/1000, r.Driver%1000/10, r.Driver)
		if r.DriverErr != nil {
			line("  devices\tquery failed: %v", r.DriverErr)
		}
	}

	line("")
	line("GPUs")
	if len(r.GPUs) == 0 {
		line("  none")
	}
	for _, g := range r.GPUs {
		s := fmt.Sprintf("  %d\t%s\tcompute capability %d.%d\t%d SMs", g.Ordinal, g.Name, g.Major, g.Minor, g.SMs)
		if g.Err != nil {
			s += fmt.Sprintf("\t(query failed: %v)", g.Err)
		}
		line("%s", s)
	}

	line("")
	line("Targets")
	for _, a := range tiling.Arches() {
		line("  %s\t%s", a, targetStatus(r, a))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ew.err
}

func buildStatus(r *Report, a tiling.Arch) string {
	b := r.Builds[a]
	switch {
	case r.ToolchainErr != nil:
		return "unknown (no compiler)"
	case !b.Tried:
		return "not tried (--no-build)"
	case b.Err != nil:
		return "FAILS: " + firstLine(b.Err.Error())
	}
	return fmt.Sprintf("ok (probe kernel compiled in %s)", b.Took.Round(10*time.Millisecond))
}

// runsOn is the compute capability an arch-specific ("a") cubin needs:
// sm_90a runs only on 9.0 and sm_100a only on 10.0.
var runsOn = map[tiling.Arch][2]int{
	tiling.ArchSM90a:  {9, 0},
	tiling.ArchSM100a: {10, 0},
}

func targetStatus(r *Report, a tiling.Arch) string {
	cc := runsOn[a]
	var on, family []string
	for _, g := range r.GPUs {
		if g.Major == cc[0] && g.Minor == cc[1] {
			on = append(on, fmt.Sprintf("GPU %d", g.Ordinal))
		} else if g.Major == cc[0] {
			family = append(family, fmt.Sprintf("GPU %d is %d.%d", g.Ordinal, g.Major, g.Minor))
		}
	}
	var build string
	switch b := r.Builds[a]; {
	case b.Tried && b.Err == nil:
		build = "builds here"
	case b.Tried:
		build = "does NOT build here"
	default:
		build = "build not checked"
	}
	if len(on) > 0 {
		return fmt.Sprintf("%s; RUNS here on %s (compute capability %d.%d)", build, strings.Join(on, ", "), cc[0], cc[1])
	}
	why := fmt.Sprintf("no compute capability %d.%d GPU here", cc[0], cc[1])
	if len(family) > 0 {
		why += fmt.Sprintf(" (%s; %s cubins need exactly %d.%d)", strings.Join(family, ", "), a, cc[0], cc[1])
	}
	if a == tiling.ArchSM100a {
		return fmt.Sprintf("%s; does not run here: %s. sm_100a kernels are generated and compile-verified only, not executed", build, why)
	}
	return fmt.Sprintf("%s; does not run here: %s", build, why)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// errWriter remembers the first write error so printing code can ignore
// errors until the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

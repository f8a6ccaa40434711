// Package wheel builds swigen_kernels, a pip-installable wheel of
// prebuilt kernels: the pure-Python runtime swigen_rt and, per arch, the
// cubins and manifests of every config the heuristic picks for the
// PyTorch ops at any shape (tiling.Selections: the measured table's
// winners and every outcome of the rules), the elementwise module and the
// dispatch plans, with the selection data swigen_rt.select picks a config
// by per call shape. Kernels are rendered, compiled and laid out by the
// emit path (gen.EmitArtifacts, its build cache included); the wheel is a
// zip with fixed timestamps and file order, so the same inputs give the
// same bytes.
package wheel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// Package is the Python package of the kernels inside the wheel.
const Package = "swigen_kernels"

// BundleFile is the data file of Package swigen_rt.select reads.
const BundleFile = "bundle.json"

// Options say what goes into the wheel.
type Options struct {
	Arches []tiling.Arch
	DTypes []tiling.DType
	// Kernels restricts the op kinds shipped (nil: every kind the ops
	// use). The selection data covers only the kinds shipped.
	Kernels []tiling.Kernel
	// Toolchain compiles the kernels; required.
	Toolchain *toolchain.Toolchain
	// Jobs bounds concurrent compiles (0: GOMAXPROCS).
	Jobs int
	// Progress, when set, gets one line per render and compile step.
	Progress io.Writer
}

// Wheel is a built wheel: its file name, its bytes and what it holds.
type Wheel struct {
	Name string
	Data []byte
	// Files lists the wheel's files in their order.
	Files []File
	// Kernels counts the kernels compiled into it.
	Kernels int
}

// Check checks o's arches, dtypes and kinds before any work: an error
// here is a usage error.
func Check(o Options) error {
	if len(o.Arches) == 0 {
		return errors.New("wheel: no arch: name one with --arch (" + string(tiling.ArchSM90a) + ")")
	}
	if len(o.DTypes) == 0 {
		return errors.New("wheel: no dtype: name one with --dtype (bf16)")
	}
	for _, k := range o.Kernels {
		if !slices.ContainsFunc(tiling.OpVariants(), func(v tiling.OpVariant) bool { return v.Kernel == k }) {
			return fmt.Errorf("wheel: --kernel %s: not a kind the PyTorch ops run", k)
		}
		if k.Grouped() {
			return fmt.Errorf("wheel: --kernel %s: a grouped kind is not in the wheel's selection table: emit its package with swigen emit --kernel %s --py-package NAME", k, k)
		}
	}
	return nil
}

// Build selects, renders and compiles every kernel of the wheel and
// lays the wheel out in memory. Render errors are the configs' (none is
// expected: the heuristic's configs validate); a compile failure fails
// the build.
func Build(ctx context.Context, o Options) (*Wheel, error) {
	if err := Check(o); err != nil {
		return nil, err
	}
	if o.Toolchain == nil {
		return nil, errors.New("wheel: no CUDA compiler: a wheel without cubins cannot launch a kernel")
	}
	sel, err := selections(o)
	if err != nil {
		return nil, err
	}
	cfgs, err := sel.Configs()
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	ds, gemms, err := emit.DispatchPlans(cfgs, emit.SeedShape)
	if err != nil {
		return nil, fmt.Errorf("wheel: dispatch plans: %w", err)
	}
	arts, err := gen.RenderAll(append(cfgs, gemms...))
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	// Nothing is written (DryRun): the emit lays its files out in memory.
	// Its directory is an empty one of our own, so no previous emit's
	// index is read.
	dir, err := os.MkdirTemp("", "swigen-wheel-")
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	defer os.RemoveAll(dir)
	var idx gen.Index
	res, err := gen.EmitArtifacts(ctx, arts, gen.EmitOptions{
		Dir:       dir,
		Toolchain: o.Toolchain,
		Jobs:      o.Jobs,
		Progress:  o.Progress,
		DryRun:    true,
		Dispatch:  ds,
		ExtraFiles: func(i gen.Index, _ []gen.EmittedKernel) ([]gen.OutputFile, error) {
			idx = i
			return nil, nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	files, err := packageFiles(o, sel, ds, idx, res.Output)
	if err != nil {
		return nil, err
	}
	name, data, listing, err := zipWheel(files)
	if err != nil {
		return nil, err
	}
	return &Wheel{Name: name, Data: data, Files: listing, Kernels: len(arts)}, nil
}

// selections is the heuristic's data for o's arches, dtypes and kinds.
func selections(o Options) (*tiling.SelectionTable, error) {
	t, err := tiling.Selections(o.Arches, o.DTypes)
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	if len(o.Kernels) > 0 {
		t.Selection = slices.DeleteFunc(t.Selection, func(s tiling.Selection) bool { return !slices.Contains(o.Kernels, s.Kernel) })
	}
	return t, nil
}

// dispatchJSON is the dispatch plans as the bundle lists them.
func dispatchJSON(ds []manifest.Dispatch) []manifest.Dispatch {
	if ds == nil {
		return []manifest.Dispatch{}
	}
	return ds
}

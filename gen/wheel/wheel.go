// Package wheel builds swigen_kernels, a pip-installable wheel of
// prebuilt kernels: the pure-Python runtime swigen_rt and, per arch, the
// cubins and manifests of every config the heuristic picks for the
// PyTorch ops at any shape (tiling.Selections: the measured table's
// winners and every outcome of the rules; a grouped kind's one rule
// config per op variant, on the arches it has code for), the elementwise module and the
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
	"github.com/swigen/swigen/internal/join"
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
	// Notes say which kinds it leaves out on which arch, and why (a
	// grouped kind on sm_100a).
	Notes []string
}

// Check checks o's arches, dtypes and kinds before any work: an error
// here is a usage error.
func Check(o Options) error {
	if len(o.Arches) == 0 {
		return errors.New("wheel: no arch: name one with --arch (" + string(tiling.ArchSM90a) + ")")
	}
	if len(o.DTypes) == 0 {
		return errors.New("wheel: no dtype: name one with --dtype (" + string(tiling.DefaultDType) + ")")
	}
	for _, k := range o.Kernels {
		if !slices.ContainsFunc(tiling.OpVariants(), func(v tiling.OpVariant) bool { return v.Kernel == k }) {
			return fmt.Errorf("wheel: --kernel %s: not a kind the PyTorch ops run", k)
		}
		if err := checkGrouped(k, o); err != nil {
			return err
		}
	}
	return nil
}

// checkGrouped refuses --kernel k where k is a grouped kind with code on
// no arch and dtype of o (tiling.GroupedMissing): the wheel would ship
// none of its kernels.
func checkGrouped(k tiling.Kernel, o Options) error {
	why := ""
	for _, v := range tiling.OpVariants() {
		if v.Kernel != k {
			continue
		}
		for _, a := range o.Arches {
			for _, d := range o.DTypes {
				w := tiling.GroupedMissing(v, a, d)
				if w == "" {
					return nil
				}
				why = w
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("wheel: --kernel %s: no kernel of it on --arch %s: %s", k, join.Strings(o.Arches), why)
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
	return &Wheel{Name: name, Data: data, Files: listing, Kernels: len(arts), Notes: skipNotes(sel)}, nil
}

// skipNotes says, once per kind and arch, which kinds sel leaves out and why.
func skipNotes(sel *tiling.SelectionTable) []string {
	var notes []string
	for _, s := range sel.Skipped {
		n := fmt.Sprintf("skipped %s for %s: %s", s.Kernel, s.Arch, s.Why)
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	return notes
}

// selections is the heuristic's data for o's arches, dtypes and kinds.
func selections(o Options) (*tiling.SelectionTable, error) {
	t, err := tiling.Selections(o.Arches, o.DTypes)
	if err != nil {
		return nil, fmt.Errorf("wheel: %w", err)
	}
	if len(o.Kernels) > 0 {
		t.Selection = slices.DeleteFunc(t.Selection, func(s tiling.Selection) bool { return !slices.Contains(o.Kernels, s.Kernel) })
		t.Skipped = slices.DeleteFunc(t.Skipped, func(s tiling.Skipped) bool { return !slices.Contains(o.Kernels, s.Kernel) })
		return t, nil
	}
	// A held kind ships only when asked for: its skip note says why.
	held := slices.DeleteFunc(slices.Clone(t.Selection), func(s tiling.Selection) bool { return s.Kernel.WheelHold() == "" })
	for _, s := range held {
		t.Skipped = append(t.Skipped, tiling.Skipped{Kernel: s.Kernel, Variant: s.Variant, Arch: s.Arch, DType: s.DType,
			Why: "left out unless --kernel names it: " + s.Kernel.WheelHold()})
	}
	t.Selection = slices.DeleteFunc(t.Selection, func(s tiling.Selection) bool { return s.Kernel.WheelHold() != "" })
	return t, nil
}

// dispatchJSON is the dispatch plans as the bundle lists them.
func dispatchJSON(ds []manifest.Dispatch) []manifest.Dispatch {
	if ds == nil {
		return []manifest.Dispatch{}
	}
	return ds
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/gobind"
	"github.com/swigen/swigen/gen/pybind"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// emitPlan is what emit knows before it looks for a compiler: every
// config resolved, validated and rendered, the flags checked.
type emitPlan struct {
	cfgs     []tiling.Config
	arts     []*gen.Artifact
	notes    []string
	dispatch []manifest.Dispatch
	unfused  []string // configs emitted only for a plan's unfused path
	extra    func(gen.Index, []gen.EmittedKernel) ([]gen.OutputFile, error)
}

// selection is emit's flags as the config selection reads them
// (pick.Request, where its rules live); --tuned's winners come from the
// results DB (tunedConfig).
func (o *emitOptions) selection() *pick.Request {
	r := o.Request
	r.TunedConfig = tunedConfig
	return &r
}

// configs resolves the flags to the configs to emit, plus notes for the
// user (pick.Request.Configs). Errors are usage errors.
func (o *emitOptions) configs() ([]tiling.Config, []string, error) { return o.selection().Configs() }

// heuristicReasons says which config the heuristic chose for each kind
// and arch, and why (pick.Request.HeuristicReasons).
func (o *emitOptions) heuristicReasons() []string { return o.selection().HeuristicReasons() }

// override applies the field flags given to every base config
// (pick.Request.Override).
func (o *emitOptions) override(base []tiling.Config) ([]tiling.Config, []string, error) {
	return o.selection().Override(base)
}

// prepare does every check of emit's (and diff's) flags and configs that
// needs no compiler: it resolves, validates and renders every config, so
// an invalid one (a render-time rule included) is a usage error before
// anything compiles or is written. All its errors are exit 2.
func (o *emitOptions) prepare() (*emitPlan, error) {
	cmd := o.name()
	if err := checkOutDir(o.Out); err != nil {
		return nil, usageError(fmt.Errorf("%s: %w", cmd, err))
	}
	p := &emitPlan{}
	if o.GoPackage != "" {
		if err := gobind.ValidatePackage(o.GoPackage); err != nil {
			return nil, usageError(fmt.Errorf("%s: --go-package: %w", cmd, err))
		}
		p.extra = gobind.Hook(o.GoPackage)
	}
	if o.PyPackage != "" {
		if err := pybind.ValidatePackage(o.PyPackage); err != nil {
			return nil, usageError(fmt.Errorf("%s: --py-package: %w", cmd, err))
		}
		p.extra = pybind.Compose(p.extra, pybind.Hook(o.PyPackage))
	}
	var err error
	if p.cfgs, p.notes, err = o.configs(); err != nil {
		return nil, usageError(fmt.Errorf("%s: %w", cmd, err))
	}
	if err := validate(p.cfgs); err != nil {
		return nil, usageError(fmt.Errorf("%s: nothing written:\n%w", cmd, err))
	}
	ds, gemms, notes, err := o.dispatchPlans(p.cfgs)
	if err != nil {
		return nil, usageError(fmt.Errorf("%s: %w", cmd, err))
	}
	p.dispatch, p.cfgs, p.notes = ds, append(p.cfgs, gemms...), append(p.notes, notes...)
	for _, g := range gemms {
		p.unfused = append(p.unfused, g.Name())
	}
	// Rendering applies the generator's own rules (tiling.Implemented and
	// the templates' limits): a config it cannot render is as invalid to
	// the user as one that fails Validate.
	if p.arts, err = gen.RenderAll(p.cfgs); err != nil {
		return nil, usageError(fmt.Errorf("%s: nothing written: %w", cmd, err))
	}
	return p, nil
}

// checkOutDir checks -o: not empty, and not an existing non-directory.
// A missing directory is fine (emit creates it).
func checkOutDir(dir string) error {
	if strings.TrimSpace(dir) == "" {
		return errors.New("-o: empty output directory; name one (default out)")
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: exists and is not a directory", dir)
	}
	return nil
}

// noCompilerGoPackage says why emit --go-package stops without a compiler.
const noCompilerGoPackage = "emit: --go-package needs the CUDA compiler: bindings without cubins build but cannot load a kernel, so a go generate step would ship a broken package; install the compiler, or pass --no-compile to write sources and bindings without cubins on purpose; nothing written"

// noCompilerPyPackage says why emit --py-package stops without a compiler.
const noCompilerPyPackage = "emit: --py-package needs the CUDA compiler: a Python package without cubins imports but cannot load a kernel; install the compiler, or pass --no-compile to write sources and the package without cubins on purpose; nothing written"

func runEmit(ctx context.Context, e *env, o *emitOptions) error {
	p, err := o.prepare()
	if err != nil {
		return err
	}
	if o.DryRun == nil { // diff checks files; why a config was chosen is emit's news
		for _, r := range o.heuristicReasons() {
			fmt.Fprintf(e.stderr, "heuristic: %s\n", r)
		}
	}
	for _, n := range p.notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}

	var tc *toolchain.Toolchain
	if !o.NoCompile {
		tc, err = toolchain.Find(toolchain.FindOptions{NVCC: o.NVCC})
		switch {
		case errors.Is(err, toolchain.ErrNoCompiler) && o.DryRun != nil:
			return fmt.Errorf("diff: cubins and Go bindings cannot be checked without a CUDA compiler; pass --no-compile to compare sources and manifests only: %w", err)
		case errors.Is(err, toolchain.ErrNoCompiler) && o.GoPackage != "":
			return fmt.Errorf("%s:\n%w", noCompilerGoPackage, err)
		case errors.Is(err, toolchain.ErrNoCompiler) && o.PyPackage != "":
			return fmt.Errorf("%s:\n%w", noCompilerPyPackage, err)
		case errors.Is(err, toolchain.ErrNoCompiler):
			fmt.Fprintf(e.stderr, "swigen: %v\nWriting sources and manifests only (no cubins).\n", err)
			tc = nil
		case err != nil:
			return fmt.Errorf("%s: %w", o.name(), err)
		default:
			fmt.Fprintf(e.stderr, "compiling %s with %s\n", plural(len(p.arts), "kernel"), tc)
		}
	} else if o.GoPackage != "" && o.DryRun == nil {
		fmt.Fprintf(e.stderr, "note: --no-compile: the Go package %s gets no cubins; its loaders return an error until emit runs with a compiler\n", o.GoPackage)
	} else if o.PyPackage != "" && o.DryRun == nil {
		fmt.Fprintf(e.stderr, "note: --no-compile: the Python package %s gets no cubins; its kernels raise LoadError until emit runs with a compiler\n", o.PyPackage)
	}
	if o.PyPackage != "" && o.DryRun == nil {
		if abs, err := filepath.Abs(o.Out); err == nil && filepath.Base(abs) != o.PyPackage {
			fmt.Fprintf(e.stderr, "note: --py-package %s: the directory %s imports as %s (Python names a package by its directory); swigen_rt.package.load_dir(%q) imports it under any name\n", o.PyPackage, o.Out, filepath.Base(abs), o.Out)
		}
	}
	cmdline, err := emitCommand(o)
	if err != nil {
		return fmt.Errorf("%s: %w", o.name(), err)
	}
	res, err := gen.EmitArtifacts(ctx, p.arts, gen.EmitOptions{
		Dir:       o.Out,
		Toolchain: tc,
		// diff writes nothing, the build cache included, and the cache has
		// no read-only mode: diff compiles without it.
		Compile:     toolchain.CompileOptions{AllowSpills: o.AllowSpills, NoCache: o.DryRun != nil},
		ExtraFiles:  p.extra,
		DryRun:      o.DryRun != nil,
		Command:     cmdline,
		Dispatch:    p.dispatch,
		UnfusedOnly: p.unfused,
	})
	switch {
	case err != nil && o.DryRun != nil:
		return fmt.Errorf("diff: %w", err)
	case err != nil:
		return fmt.Errorf("emit: nothing written: %w", err)
	}
	if o.DryRun != nil {
		return o.DryRun(res, tc)
	}
	printEmitResult(e, res)
	return nil
}

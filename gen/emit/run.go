package emit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
)

// noCompilerGoPackage says why emit --go-package stops without a compiler.
const noCompilerGoPackage = "emit: --go-package needs the CUDA compiler: bindings without cubins build but cannot load a kernel, so a go generate step would ship a broken package; install the compiler, or pass --no-compile to write sources and bindings without cubins on purpose; nothing written"

// noCompilerPyPackage says why emit --py-package stops without a compiler.
const noCompilerPyPackage = "emit: --py-package needs the CUDA compiler: a Python package without cubins imports but cannot load a kernel; install the compiler, or pass --no-compile to write sources and the package without cubins on purpose; nothing written"

// Run is swigen emit: it selects, validates and renders the configs o
// asks for (a UsageError when any is invalid), compiles them unless
// o.NoCompile, and writes every file into o.Out or none. Notes for the
// user (why a config was chosen, what changed, which compiler) go to
// log as they come (nil discards them).
func Run(ctx context.Context, o *Options, log io.Writer) (*Result, error) {
	log = orDiscard(log)
	p, err := prepare(o, "emit")
	if err != nil {
		return nil, err
	}
	for _, r := range o.HeuristicReasons() {
		fmt.Fprintf(log, "heuristic: %s\n", r)
	}
	for _, n := range p.notes {
		fmt.Fprintf(log, "note: %s\n", n)
	}
	var tc *toolchain.Toolchain
	if !o.NoCompile {
		tc, err = toolchain.Find(toolchain.FindOptions{NVCC: o.NVCC})
		switch {
		case errors.Is(err, toolchain.ErrNoCompiler) && o.GoPackage != "":
			return nil, fmt.Errorf("%s:\n%w", noCompilerGoPackage, err)
		case errors.Is(err, toolchain.ErrNoCompiler) && o.PyPackage != "":
			return nil, fmt.Errorf("%s:\n%w", noCompilerPyPackage, err)
		case errors.Is(err, toolchain.ErrNoCompiler):
			fmt.Fprintf(log, "swigen: %v\nWriting sources and manifests only (no cubins).\n", err)
			tc = nil
		case err != nil:
			return nil, fmt.Errorf("emit: %w", err)
		default:
			fmt.Fprintf(log, "compiling %s with %s\n", kernels(len(p.arts)), tc)
		}
	} else if o.GoPackage != "" {
		fmt.Fprintf(log, "note: --no-compile: the Go package %s gets no cubins; its loaders return an error until emit runs with a compiler\n", o.GoPackage)
	} else if o.PyPackage != "" {
		fmt.Fprintf(log, "note: --no-compile: the Python package %s gets no cubins; its kernels raise LoadError until emit runs with a compiler\n", o.PyPackage)
	}
	if o.PyPackage != "" {
		if abs, err := filepath.Abs(o.Out); err == nil && filepath.Base(abs) != o.PyPackage {
			fmt.Fprintf(log, "note: --py-package %s: the directory %s imports as %s (Python names a package by its directory); swigen_rt.package.load_dir(%q) imports it under any name\n", o.PyPackage, o.Out, filepath.Base(abs), o.Out)
		}
	}
	if rel, err := pathFromOut(o.Out, o.Tuned); err == nil && rel != "" && !filepath.IsLocal(filepath.FromSlash(rel)) {
		fmt.Fprintf(log, "note: --tuned %s lies outside the output directory: diff without flags refuses a record that reads outside its package, so check it with diff and these flags (or keep the DB in the package)\n", o.Tuned)
	}
	res, err := build(ctx, o, p, tc, false)
	if err != nil {
		return nil, fmt.Errorf("emit: %w", err)
	}
	return &Result{res}, nil
}

// dryRun is diff's emit: the same checks and notes under the name diff
// (but why a config was chosen, emit's news), then every file laid out
// in memory and nothing written. It returns the toolchain too: nil when
// o.NoCompile, so only sources were laid out.
func dryRun(ctx context.Context, o *Options, log io.Writer) (*gen.EmitResult, *toolchain.Toolchain, error) {
	log = orDiscard(log)
	p, err := prepare(o, "diff")
	if err != nil {
		return nil, nil, err
	}
	for _, n := range p.notes {
		fmt.Fprintf(log, "note: %s\n", n)
	}
	var tc *toolchain.Toolchain
	if !o.NoCompile {
		tc, err = toolchain.Find(toolchain.FindOptions{NVCC: o.NVCC})
		switch {
		case errors.Is(err, toolchain.ErrNoCompiler):
			return nil, nil, fmt.Errorf("diff: cubins and Go bindings cannot be checked without a CUDA compiler; pass --no-compile to compare sources and manifests only: %w", err)
		case err != nil:
			return nil, nil, fmt.Errorf("diff: %w", err)
		default:
			fmt.Fprintf(log, "compiling %s with %s\n", kernels(len(p.arts)), tc)
		}
	}
	res, err := build(ctx, o, p, tc, true)
	if err != nil {
		return nil, nil, fmt.Errorf("diff: %w", err)
	}
	return res, tc, nil
}

// build records o's command line and compiles and lays out p's kernels
// with tc (nil: sources only), writing them unless dry. Its errors say
// nothing was written (a write error) or are the dry run's.
func build(ctx context.Context, o *Options, p *plan, tc *toolchain.Toolchain, dry bool) (*gen.EmitResult, error) {
	cmdline, err := Command(o)
	if err != nil {
		return nil, err
	}
	res, err := gen.EmitArtifacts(ctx, p.arts, gen.EmitOptions{
		Dir:       o.Out,
		Toolchain: tc,
		// diff writes nothing, the build cache included: it reads the
		// cache but stores no build in it.
		Compile:     toolchain.CompileOptions{AllowSpills: o.AllowSpills, CacheReadOnly: dry},
		ExtraFiles:  p.extra,
		DryRun:      dry,
		Command:     cmdline,
		Dispatch:    p.dispatch,
		UnfusedOnly: p.unfused,
		Progress:    o.Progress,
		Force:       o.Force,
	})
	if err != nil && !dry {
		return nil, fmt.Errorf("nothing written: %w", err)
	}
	return res, err
}

// kernels is n with the noun kernel, singular or plural.
func kernels(n int) string {
	if n == 1 {
		return "1 kernel"
	}
	return fmt.Sprintf("%d kernels", n)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

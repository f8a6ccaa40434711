// Package builder is gen's toolchain as the runtime's launch.Builder: the
// one place where rendering and compiling meet loading. The runtime
// defines what it needs (launch.Compiler, launch.Builder) and the commands
// and tests pass this, so that neither runtime/... nor generated bindings
// link the generator.
package builder

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Builder renders with gen and compiles with a gen toolchain.
type Builder struct {
	TC *toolchain.Toolchain
}

// New returns the builder of tc.
func New(tc *toolchain.Toolchain) *Builder { return &Builder{TC: tc} }

// CompileCUDA compiles a hand-written CUDA source for arch into a cubin.
func (b *Builder) CompileCUDA(ctx context.Context, name string, src []byte, arch tiling.Arch) ([]byte, error) {
	br, err := b.TC.Compile(ctx, name, src, toolchain.CompileOptions{Arch: string(arch)})
	if err != nil {
		return nil, err
	}
	return br.Cubin, nil
}

// Build renders cfg's kernel, with the probe called probe where it is not
// empty, and compiles it held to the product's build checks. A compiler or
// build-check failure comes back as a *launch.CompileError.
func (b *Builder) Build(ctx context.Context, cfg tiling.Config, probe string) (*launch.Built, error) {
	art, err := render(cfg, probe)
	if err != nil {
		return nil, err
	}
	br, err := b.TC.Compile(ctx, art.Name, art.Source, toolchain.CompileOptions{Arch: string(cfg.Arch), Include: art.Include})
	if err != nil {
		return nil, asCompileError(err)
	}
	out := &launch.Built{Cubin: br.Cubin, Manifest: art.Manifest}
	if fr := entryReport(br.Report, art.Name); fr != nil {
		out.Usage = launch.Usage{Registers: fr.Registers, SpillStores: fr.SpillStores, StackFrame: fr.StackFrame}
	}
	return out, nil
}

// render checks cfg, the builder's boundary, and renders it; both errors
// name cfg once.
func render(cfg tiling.Config, probe string) (*gen.Artifact, error) {
	k, err := tiling.Check(cfg)
	if err != nil {
		return nil, err
	}
	var a *gen.Artifact
	if probe == "" {
		a, err = gen.Render(k)
	} else {
		a, err = gen.RenderProbe(k, probe)
	}
	if err != nil && !strings.Contains(err.Error(), cfg.Name()) {
		err = fmt.Errorf("render %s: %w", cfg.Name(), err)
	}
	return a, err
}

// entryReport is what ptxas said about the kernel's entry, or about the
// module's first function where the entry is not named.
func entryReport(r toolchain.BuildReport, entry string) *toolchain.FunctionReport {
	if fr := r.Function(entry); fr != nil {
		return fr
	}
	if len(r.Functions) > 0 {
		return &r.Functions[0]
	}
	return nil
}

// asCompileError marks the toolchain's compile and build-check failures,
// which the tuner counts apart from faults.
func asCompileError(err error) error {
	var ce *toolchain.CompileError
	var be *toolchain.BuildCheckError
	if errors.As(err, &ce) || errors.As(err, &be) {
		return &launch.CompileError{Err: err}
	}
	return err
}

var _ launch.Builder = (*Builder)(nil)

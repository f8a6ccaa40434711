package launch

import (
	"context"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// The runtime builds nothing itself: whoever runs it (cmd/swigen, tests)
// passes a Compiler or Builder, backed by gen's toolchain
// (gen/builder). A binary that only launches prebuilt kernels, like
// the generated Go bindings, links no generator.

// Compiler compiles hand-written CUDA sources (the references' and
// baselines' helper kernels) into cubins.
type Compiler interface {
	CompileCUDA(ctx context.Context, name string, src []byte, arch tiling.Arch) ([]byte, error)
}

// Builder renders and compiles swigen kernels, and compiles helpers.
type Builder interface {
	Compiler
	// Build renders cfg's kernel, instrumented with the probe called probe
	// ("" for the product kernel), and compiles it.
	Build(ctx context.Context, cfg tiling.Config, probe string) (*Built, error)
}

// Built is one rendered and compiled kernel.
type Built struct {
	Cubin    []byte
	Manifest manifest.Manifest
	// Usage is the compiler's resource use of the kernel's entry.
	Usage Usage
}

// Usage is what the compiler reports about a kernel's resources.
type Usage struct {
	Registers   int // per thread
	SpillStores int // bytes
	StackFrame  int // bytes
}

// CompileError marks a build failure of generated code: the compiler or
// a build check rejected it, as opposed to a failure to render or to load.
// The tuner counts such candidates as not compiling.
type CompileError struct{ Err error }

func (e *CompileError) Error() string { return e.Err.Error() }

// Unwrap returns the builder's own error.
func (e *CompileError) Unwrap() error { return e.Err }

// Package kernelsrc holds the CUDA text of swigen's hand-written kernels:
// the elementwise module (dSwiGLU and SwiGLU, the second half of each
// unfused path and of the cuBLAS baselines) and the prelude of types and
// bf16/fp16 conversions they and the runtime's helper kernels share,
// prepended to each kernel's source so that every kernel is still one
// self-contained compile unit. It imports nothing of swigen: the generator
// reads the module's text here without linking the CUDA driver, and the
// runtime (runtime/elementwise, lab/bench) compiles it.
//
// The .cu texts' opening comments still name runtime/elementwise and
// runtime/kernelsrc, where they lived: any byte of them, comments too,
// changes the cubin nvcc builds from them (and so every shipped
// elementwise cubin and diff's verdict on emitted packages), so they move
// with the next change that rebuilds those cubins anyway.
package kernelsrc

import (
	_ "embed"
	"slices"
)

var (
	//go:embed convert.cuh
	prelude []byte
	//go:embed dswiglu.cu
	dswigluBody []byte
	//go:embed swiglu.cu
	swigluBody []byte
)

// ElementwiseModule names the elementwise module's compile unit (and the
// emitted cubin).
const ElementwiseModule = "swigen_elementwise"

// WithPrelude returns the prelude followed by src: the source to compile.
func WithPrelude(src []byte) []byte { return slices.Concat(prelude, src) }

// Elementwise is the CUDA source of the elementwise module: the prelude,
// then both kernels, one compile unit.
func Elementwise() []byte { return slices.Concat(WithPrelude(dswigluBody), swigluBody) }

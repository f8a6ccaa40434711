// Package kernelsrc holds what the runtime's hand-written CUDA kernels (the
// baselines' elementwise kernels) share: a prelude of types and bf16/fp16
// conversions, prepended to each kernel's source so that every kernel is
// still one self-contained compile unit.
package kernelsrc

import (
	_ "embed"
	"slices"
)

//go:embed convert.cuh
var prelude []byte

// WithPrelude returns the prelude followed by src: the source to compile.
func WithPrelude(src []byte) []byte { return slices.Concat(prelude, src) }

package baseline

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Elementwise is the baseline's standalone dSwiGLU kernel (package
// elementwise, its one owner), loaded on one context.
type Elementwise struct{ m *elementwise.Module }

// NewElementwise compiles the elementwise module for sm_90a with tc and
// loads it.
func NewElementwise(ctx *cu.Context, tc launch.Compiler) (*Elementwise, error) {
	m, err := elementwise.Compile(context.Background(), ctx, tc, tiling.ArchSM90a)
	if err != nil {
		return nil, fmt.Errorf("baseline: new elementwise: %w", err)
	}
	return &Elementwise{m: m}, nil
}

// Close unloads the module.
func (e *Elementwise) Close() error {
	if e == nil {
		return nil
	}
	return e.m.Close()
}

// Module is the loaded elementwise module (for the unfused path, which
// runs the same kernels after swigen's gemm).
func (e *Elementwise) Module() *elementwise.Module { return e.m }

// Run launches dSwiGLU on stream (nil: the default stream): gradDe [M,2I]
// and, unless out is 0, out [M,I] from dout [M,I] and de = [left|gate]
// [M,2I], all dtype. Asynchronous.
func (e *Elementwise) Run(dtype tiling.DType, M, I int, dout, de, gradDe, out cu.DevicePtr, stream *cu.Stream) error {
	if e == nil {
		return fmt.Errorf("baseline: elementwise: not loaded")
	}
	return e.m.DSwiGLU(dtype, M, I, dout, de, gradDe, out, stream)
}

// Bwd is the whole unfused baseline of bwd_dswiglu: the cuBLAS dout GEMM
// into a scratch buffer, then the elementwise kernel.
type Bwd struct {
	BLAS *CuBLAS
	EW   *Elementwise
}

// Run computes dout = dy @ W_down^T into dout [M,I] (scratch, dtype; the
// unfused baseline must round-trip it through HBM) and then grad_de and
// optionally out, on stream. wdown is [I,K], or [K,I] with wdownMN.
func (b Bwd) Run(dtype tiling.DType, M, K, I int, dy, wdown, de, dout, gradDe, out cu.DevicePtr, wdownMN bool, stream *cu.Stream) error {
	if b.BLAS == nil || b.EW == nil {
		return fmt.Errorf("baseline: bwd: cuBLAS or elementwise kernel not loaded")
	}
	if err := b.BLAS.GemmRowMajor(dtype, !wdownMN, M, I, K, dy, wdown, dout, stream); err != nil {
		return err
	}
	return b.EW.Run(dtype, M, I, dout, de, gradDe, out, stream)
}

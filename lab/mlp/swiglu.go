package mlp

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// SwiGLU is the baseline's forward elementwise kernel, out = left *
// silu(gate) (package elementwise, its one owner), loaded on one context.
type SwiGLU struct{ m *elementwise.Module }

// NewSwiGLU compiles the elementwise module for sm_90a with tc (the build
// cache makes this a lookup after the first run) and loads it.
func NewSwiGLU(ctx context.Context, cctx *cu.Context, tc launch.Compiler) (*SwiGLU, error) {
	m, err := elementwise.Compile(ctx, cctx, tc, tiling.ArchSM90a)
	if err != nil {
		return nil, fmt.Errorf("mlp: new swiglu: %w", err)
	}
	return &SwiGLU{m: m}, nil
}

// Close unloads the module.
func (s *SwiGLU) Close() error {
	if s == nil {
		return nil
	}
	return s.m.Close()
}

// Module is the loaded elementwise module (for the unfused path, which
// runs the same kernels after swigen's gemm).
func (s *SwiGLU) Module() *elementwise.Module { return s.m }

// Run launches out [M,I] = left * silu(gate) from de = [left|gate] [M,2I]
// on stream (nil: the default stream). Asynchronous.
func (s *SwiGLU) Run(dtype tiling.DType, M, I int, de, out cu.DevicePtr, stream *cu.Stream) error {
	if s == nil {
		return fmt.Errorf("mlp: swiglu: kernel not loaded")
	}
	return s.m.SwiGLU(dtype, M, I, de, out, stream)
}

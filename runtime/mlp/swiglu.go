package mlp

import (
	"context"
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/kernelsrc"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

//go:embed swiglu.cu
var swigluSourceBody []byte

// swigluSource is the kernel with the shared prelude of types and conversions.
var swigluSource = kernelsrc.WithPrelude(swigluSourceBody)

// SwiGLUSource returns the CUDA source of the forward elementwise kernel.
func SwiGLUSource() []byte { return append([]byte(nil), swigluSource...) }

// SwiGLU is the baseline's forward elementwise kernel, out = left *
// silu(gate), loaded on one context.
type SwiGLU struct{ h *launch.Helper }

func swigluEntry(dt tiling.DType, vec bool) string {
	if vec {
		return "swigen_mlp_swiglu_" + string(dt) + "_vec8"
	}
	return "swigen_mlp_swiglu_" + string(dt) + "_scalar"
}

// NewSwiGLU compiles swiglu.cu for sm_90a with tc (the build cache makes
// this a lookup after the first run) and loads it.
func NewSwiGLU(ctx context.Context, cctx *cu.Context, tc launch.Compiler) (*SwiGLU, error) {
	h, err := launch.LoadHelper(ctx, cctx, tc, "swigen_mlp_swiglu", swigluSource, launch.VariantEntries(swigluEntry))
	if err != nil {
		return nil, fmt.Errorf("mlp: new swiglu: %w", err)
	}
	return &SwiGLU{h: h}, nil
}

// Close unloads the module.
func (s *SwiGLU) Close() error {
	if s == nil {
		return nil
	}
	return s.h.Close()
}

const (
	ewBlock = 256
	// ewBlocksPerSM caps the grid-stride grid at 8 waves of full-occupancy
	// 256-thread blocks: enough loads in flight for HBM, little launch cost.
	ewBlocksPerSM = 64
)

// swigluPlan picks the 16-byte path when I % 8 == 0 and both bases are
// 16-byte aligned (then every row of left, gate and out is), and sizes the
// grid-stride grid.
func swigluPlan(M, I int, de, out cu.DevicePtr, sms int) (vec bool, grid uint32, err error) {
	const maxInt32 = 1<<31 - 1
	if M <= 0 || I <= 0 || M > maxInt32 || I > maxInt32 {
		return false, 0, fmt.Errorf("mlp: swiglu M=%d I=%d: sizes must be in [1, 2^31)", M, I)
	}
	vec = I%8 == 0 && de%16 == 0 && out%16 == 0
	items := uint64(M) * uint64(I)
	if vec {
		items /= 8
	}
	blocks := (items + ewBlock - 1) / ewBlock
	return vec, uint32(min(blocks, uint64(max(sms, 1)*ewBlocksPerSM))), nil
}

// Run launches out [M,I] = left * silu(gate) from de = [left|gate] [M,2I]
// on stream (nil: the default stream). Asynchronous.
func (s *SwiGLU) Run(dtype tiling.DType, M, I int, de, out cu.DevicePtr, stream *cu.Stream) error {
	if dtype != tiling.BF16 && dtype != tiling.FP16 {
		return fmt.Errorf("mlp: swiglu: dtype %q: want bf16 or fp16", dtype)
	}
	if s == nil || !s.h.Loaded() {
		return fmt.Errorf("mlp: swiglu: kernel not loaded")
	}
	if de == 0 || out == 0 {
		return fmt.Errorf("mlp: swiglu: null de or out pointer")
	}
	vec, grid, err := swigluPlan(M, I, de, out, s.h.SMs)
	if err != nil {
		return err
	}
	m, i := int32(M), int32(I)
	return s.h.Ctx.Launch(s.h.Fns[swigluEntry(dtype, vec)],
		cu.LaunchConfig{Grid: [3]uint32{grid, 1, 1}, Block: [3]uint32{ewBlock, 1, 1}, Stream: stream},
		unsafe.Pointer(&de), unsafe.Pointer(&out), unsafe.Pointer(&m), unsafe.Pointer(&i))
}

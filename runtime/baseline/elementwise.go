package baseline

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

//go:embed elementwise.cu
var elementwiseSourceBody []byte

// elementwiseSource is the kernel with the shared prelude of types and conversions.
var elementwiseSource = kernelsrc.WithPrelude(elementwiseSourceBody)

// ElementwiseSource returns the CUDA source of the baseline dSwiGLU kernel.
func ElementwiseSource() []byte { return append([]byte(nil), elementwiseSource...) }

// Elementwise is the baseline's standalone dSwiGLU kernel, loaded on one
// context.
type Elementwise struct{ h *launch.Helper }

// NewElementwise compiles elementwise.cu for sm_90a with tc and loads it.
func NewElementwise(ctx *cu.Context, tc launch.Compiler) (*Elementwise, error) {
	h, err := launch.LoadHelper(context.Background(), ctx, tc, "swigen_baseline_dswiglu", elementwiseSource, launch.VariantEntries(elementwiseEntry))
	if err != nil {
		return nil, fmt.Errorf("baseline: new elementwise: %w", err)
	}
	return &Elementwise{h: h}, nil
}

// Close unloads the module.
func (e *Elementwise) Close() error {
	if e == nil {
		return nil
	}
	return e.h.Close()
}

func elementwiseEntry(dt tiling.DType, vec bool) string {
	if vec {
		return "swigen_baseline_dswiglu_" + string(dt) + "_vec8"
	}
	return "swigen_baseline_dswiglu_" + string(dt) + "_scalar"
}

const (
	ewBlock = 256
	// ewBlocksPerSM caps the grid-stride grid at 8 full-occupancy waves of
	// 256-thread blocks: enough bytes in flight to saturate HBM, few enough
	// blocks that launch overhead stays negligible.
	ewBlocksPerSM = 8 * 8
)

// ewPlan decides the launch of the elementwise kernel: the 16-byte path
// needs every row of dout, left and gate to start 16-byte aligned, i.e.
// I % 8 == 0 and 16-byte aligned base pointers; anything else takes the
// scalar path.
func ewPlan(M, I int, ptrs []cu.DevicePtr, sms int) (vec bool, grid uint32, err error) {
	const maxInt32 = 1<<31 - 1
	if M <= 0 || I <= 0 || M > maxInt32 || I > maxInt32 {
		return false, 0, fmt.Errorf("baseline: elementwise M=%d I=%d: sizes must be in [1, 2^31)", M, I)
	}
	vec = I%8 == 0
	for _, p := range ptrs {
		if p%16 != 0 {
			vec = false
		}
	}
	items := uint64(M) * uint64(I)
	if vec {
		items /= 8
	}
	blocks := (items + ewBlock - 1) / ewBlock
	return vec, uint32(min(blocks, uint64(max(sms, 1)*ewBlocksPerSM))), nil
}

// Run launches dSwiGLU on stream (nil: the default stream): gradDe [M,2I]
// and, unless out is 0, out [M,I] from dout [M,I] and de = [left|gate]
// [M,2I], all dtype. Asynchronous.
func (e *Elementwise) Run(dtype tiling.DType, M, I int, dout, de, gradDe, out cu.DevicePtr, stream *cu.Stream) error {
	if dtype != tiling.BF16 && dtype != tiling.FP16 {
		return fmt.Errorf("baseline: elementwise: dtype %q: want bf16 or fp16", dtype)
	}
	if dout == 0 || de == 0 || gradDe == 0 {
		return fmt.Errorf("baseline: elementwise: null dout, de or grad_de pointer")
	}
	vec, grid, err := ewPlan(M, I, []cu.DevicePtr{dout, de, gradDe, out}, e.h.SMs)
	if err != nil {
		return err
	}
	m, i := int32(M), int32(I)
	return e.h.Ctx.Launch(e.h.Fns[elementwiseEntry(dtype, vec)],
		cu.LaunchConfig{Grid: [3]uint32{grid, 1, 1}, Block: [3]uint32{ewBlock, 1, 1}, Stream: stream},
		unsafe.Pointer(&dout), unsafe.Pointer(&de), unsafe.Pointer(&gradDe), unsafe.Pointer(&out),
		unsafe.Pointer(&m), unsafe.Pointer(&i))
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

package ref

import (
	"context"
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

//go:embed naive_bwd.cu
var naiveBwdSource []byte

// NaiveBwdSource returns the CUDA source of the naive GPU reference.
func NaiveBwdSource() []byte { return append([]byte(nil), naiveBwdSource...) }

// naiveBlock is the kernel's thread-block width (its __launch_bounds__).
const naiveBlock = 256

// maxGridY is the hardware limit of gridDim.y; the kernel strides rows past it.
const maxGridY = 65535

// GPURef runs the naive GPU reference kernels on one context.
type GPURef struct {
	h   *launch.Helper
	fns map[tiling.DType]*cu.Function
}

// NewGPURef compiles naive_bwd.cu for sm_90a with tc and loads it into ctx.
func NewGPURef(ctx *cu.Context, tc launch.Compiler) (*GPURef, error) {
	dts := []tiling.DType{tiling.BF16, tiling.FP16}
	var entries []string
	for _, dt := range dts {
		entries = append(entries, naiveEntry(dt))
	}
	h, err := launch.LoadHelper(context.Background(), ctx, tc, "swigen_ref_bwd_dswiglu", naiveBwdSource, entries)
	if err != nil {
		return nil, fmt.Errorf("ref: new gpu ref: %w", err)
	}
	g := &GPURef{h: h, fns: map[tiling.DType]*cu.Function{}}
	for _, dt := range dts {
		g.fns[dt] = h.Fns[naiveEntry(dt)]
	}
	return g, nil
}

// Close unloads the module.
func (g *GPURef) Close() error {
	if g == nil {
		return nil
	}
	return g.h.Close()
}

func naiveEntry(dt tiling.DType) string { return "swigen_ref_bwd_dswiglu_" + string(dt) }

// BwdDSwiGLU launches the naive bwd_dswiglu on the default stream:
// gradDe [M,2I] (and out [M,I] unless out is 0) from dy [M,K], wdown
// ([I,K], or [K,I] with wdownMN) and de [M,2I], all dtype. It is
// asynchronous; synchronize (or copy back) before reading the outputs.
func (g *GPURef) BwdDSwiGLU(dtype tiling.DType, M, K, I int, dy, wdown, de, gradDe, out cu.DevicePtr, wdownMN bool) error {
	f, ok := g.fns[dtype]
	if !ok {
		return fmt.Errorf("ref: naive bwd_dswiglu: dtype %q: want bf16 or fp16", dtype)
	}
	cfg, err := naiveLaunch(M, K, I)
	if err != nil {
		return err
	}
	if dy == 0 || wdown == 0 || de == 0 || gradDe == 0 {
		return fmt.Errorf("ref: naive bwd_dswiglu: null dy, w_down, de or grad_de pointer")
	}
	m, k, i := int32(M), int32(K), int32(I)
	var mn int32
	if wdownMN {
		mn = 1
	}
	return g.h.Ctx.Launch(f, cfg,
		unsafe.Pointer(&dy), unsafe.Pointer(&wdown), unsafe.Pointer(&de), unsafe.Pointer(&gradDe), unsafe.Pointer(&out),
		unsafe.Pointer(&m), unsafe.Pointer(&k), unsafe.Pointer(&i), unsafe.Pointer(&mn))
}

// naiveLaunch is the launch shape of the naive kernel: x covers I, y the
// rows (strided past maxGridY).
func naiveLaunch(M, K, I int) (cu.LaunchConfig, error) {
	const maxInt32 = 1<<31 - 1
	if M <= 0 || K <= 0 || I <= 0 || M > maxInt32 || K > maxInt32 || I > maxInt32 {
		return cu.LaunchConfig{}, fmt.Errorf("ref: naive bwd_dswiglu: M=%d K=%d I=%d: sizes must be in [1, 2^31)", M, K, I)
	}
	return cu.LaunchConfig{
		Grid:  [3]uint32{uint32((I + naiveBlock - 1) / naiveBlock), uint32(min(M, maxGridY)), 1},
		Block: [3]uint32{naiveBlock, 1, 1},
	}, nil
}

package ref

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unsafe"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

//go:embed naive.cu
var naiveSource []byte

// NaiveSource returns the CUDA source of the naive GPU references.
func NaiveSource() []byte { return append([]byte(nil), naiveSource...) }

// naiveBlock is the kernels' thread-block width (their __launch_bounds__).
const naiveBlock = 256

// maxGridY is the hardware limit of gridDim.y; the kernels stride rows past it.
const maxGridY = 65535

// maxInt32 bounds every size: the kernels take sizes as int.
const maxInt32 = 1<<31 - 1

// naiveKinds are the kernel kinds naive.cu has a reference for, each with
// an entry point per type the helper modules take (tiling.HelperDTypes,
// naiveEntry).
var naiveKinds = []tiling.Kernel{tiling.KernelGEMM, tiling.KernelFwdGateUp, tiling.KernelFwdDown, tiling.KernelBwdDSwiGLU}

// GPURef runs the naive GPU reference kernels on one context.
type GPURef struct {
	h   *launch.Helper
	fns map[string]*cu.Function // by entry name
}

// NewGPURef compiles naive.cu for sm_90a with tc and loads it into ctx.
func NewGPURef(ctx *cu.Context, tc launch.Compiler) (*GPURef, error) {
	var entries []string
	for _, k := range naiveKinds {
		for _, dt := range tiling.HelperDTypes() {
			entries = append(entries, naiveEntry(k, dt))
		}
	}
	h, err := launch.LoadHelper(context.Background(), ctx, tc, "swigen_ref_naive", naiveSource, entries)
	if err != nil {
		return nil, fmt.Errorf("ref: new gpu ref: %w", err)
	}
	return &GPURef{h: h, fns: h.Fns}, nil
}

// Close unloads the module.
func (g *GPURef) Close() error {
	if g == nil || g.h == nil {
		return nil
	}
	return g.h.Close()
}

// naiveEntry is the entry point of kind's reference for dt.
func naiveEntry(kind tiling.Kernel, dt tiling.DType) string {
	return "swigen_ref_" + string(kind) + "_" + string(dt)
}

// dim is one named problem size.
type dim struct {
	name string
	v    int
}

// ptr is one named device buffer.
type ptr struct {
	name string
	p    cu.DevicePtr
}

// prepare checks a launch of kind's reference before anything runs: a
// dtype with an entry point, every size in [1, 2^31), every required
// buffer non-null, no layout error (layout, nil for none), and a loaded
// module. It returns the function and the launch shape (x over cols, y
// over rows).
func (g *GPURef) prepare(kind tiling.Kernel, dt tiling.DType, dims []dim, ptrs []ptr, rows, cols int, layout error) (*cu.Function, cu.LaunchConfig, error) {
	op := "ref: naive " + string(kind)
	if _, err := dt.HelperSpec(op); err != nil {
		return nil, cu.LaunchConfig{}, err
	}
	var bad []string
	for _, d := range dims {
		if d.v <= 0 || d.v > maxInt32 {
			bad = append(bad, fmt.Sprintf("%s=%d", d.name, d.v))
		}
	}
	if len(bad) > 0 {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: %s: sizes must be in [1, 2^31)", op, strings.Join(bad, " "))
	}
	var null []string
	for _, p := range ptrs {
		if p.p == 0 {
			null = append(null, p.name)
		}
	}
	if len(null) > 0 {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: null %s pointer", op, strings.Join(null, ", "))
	}
	if layout != nil {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: %w", op, layout)
	}
	cfg, err := naiveLaunch(rows, cols)
	if err != nil {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: %w", op, err)
	}
	if g == nil || !g.h.Loaded() {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: the GPU reference is not loaded", op)
	}
	f, ok := g.fns[naiveEntry(kind, dt)]
	if !ok || f == nil {
		return nil, cu.LaunchConfig{}, fmt.Errorf("%s: entry point %s is not loaded", op, naiveEntry(kind, dt))
	}
	return f, cfg, nil
}

// flag is a bool as the kernels' int argument.
func flag(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Gemm launches the naive C = A @ B on the default stream: C [M,N], a
// float64 buffer (8 bytes per element) of the unrounded float64 sums, from
// A ([M,K], or [K,M] with aMN) and B ([N,K], or [K,N] with bMN), both
// dtype; all row-major, the majors of tiling.Config.MajorA/MajorB. It is
// asynchronous; synchronize (or copy back) before reading C.
func (g *GPURef) Gemm(dtype tiling.DType, M, N, K int, a, b, c cu.DevicePtr, aMN, bMN bool) error {
	f, cfg, err := g.prepare(tiling.KernelGEMM, dtype,
		[]dim{{"M", M}, {"N", N}, {"K", K}},
		[]ptr{{"A", a}, {"B", b}, {"C", c}}, M, N, nil)
	if err != nil {
		return err
	}
	m, n, k, amn, bmn := int32(M), int32(N), int32(K), flag(aMN), flag(bMN)
	return g.h.Ctx.Launch(f, cfg,
		unsafe.Pointer(&a), unsafe.Pointer(&b), unsafe.Pointer(&c),
		unsafe.Pointer(&m), unsafe.Pointer(&n), unsafe.Pointer(&k), unsafe.Pointer(&amn), unsafe.Pointer(&bmn))
}

// FwdGateUp launches the naive fwd_gateup on the default stream: out
// [M,I] = left*silu(gate) and, unless de is 0, de [M,2I] = [left | gate] =
// x @ W, both float64 buffers (8 bytes per element) of unrounded float64
// values, from x [M,K] and W ([2I,K]: left rows then gate rows, or [K,2I]
// with wMN), both dtype; all row-major. out is computed from the unrounded
// left and gate. It is asynchronous; synchronize (or copy back) before
// reading the outputs.
func (g *GPURef) FwdGateUp(dtype tiling.DType, M, K, I int, x, w, de, out cu.DevicePtr, wMN bool) error {
	// The kernel indexes W's 2I columns as int.
	f, cfg, err := g.prepare(tiling.KernelFwdGateUp, dtype,
		[]dim{{"M", M}, {"K", K}, {"I", I}, {"2I", 2 * I}},
		[]ptr{{"x", x}, {"W", w}, {"out", out}}, M, I, nil)
	if err != nil {
		return err
	}
	m, k, i, mn := int32(M), int32(K), int32(I), flag(wMN)
	return g.h.Ctx.Launch(f, cfg,
		unsafe.Pointer(&x), unsafe.Pointer(&w), unsafe.Pointer(&de), unsafe.Pointer(&out),
		unsafe.Pointer(&m), unsafe.Pointer(&k), unsafe.Pointer(&i), unsafe.Pointer(&mn))
}

// FwdDown launches the naive fwd_down on the default stream: y [M,K] =
// out @ W_down (+ residual unless residual is 0), a float64 buffer (8
// bytes per element) of unrounded float64 values, from out [M,I], W_down
// ([I,K], or [K,I] with wdownKI: nn.Linear's down_proj, major_b=k) and
// residual [M,K], all dtype; all row-major. The residual is added to the
// float64 sum; being 16-bit, it cannot share y's memory, and a residual
// that overlaps y is an error. It is asynchronous; synchronize (or copy
// back) before reading y.
func (g *GPURef) FwdDown(dtype tiling.DType, M, K, I int, out, wdown, residual, y cu.DevicePtr, wdownKI bool) error {
	f, cfg, err := g.prepare(tiling.KernelFwdDown, dtype,
		[]dim{{"M", M}, {"K", K}, {"I", I}},
		[]ptr{{"out", out}, {"W_down", wdown}, {"y", y}}, M, K, residualOverlap(M, K, dtype.Size(), residual, y))
	if err != nil {
		return err
	}
	m, k, i, ki := int32(M), int32(K), int32(I), flag(wdownKI)
	return g.h.Ctx.Launch(f, cfg,
		unsafe.Pointer(&out), unsafe.Pointer(&wdown), unsafe.Pointer(&residual), unsafe.Pointer(&y),
		unsafe.Pointer(&m), unsafe.Pointer(&k), unsafe.Pointer(&i), unsafe.Pointer(&ki))
}

// BwdDSwiGLU launches the naive bwd_dswiglu on the default stream:
// gradDe [M,2I] (and out [M,I] unless out is 0), float64 buffers (8 bytes
// per element) of unrounded float64 values, from dy [M,K], wdown ([I,K],
// or [K,I] with wdownMN) and de [M,2I], all dtype; all row-major. It is
// asynchronous; synchronize (or copy back) before reading the outputs.
func (g *GPURef) BwdDSwiGLU(dtype tiling.DType, M, K, I int, dy, wdown, de, gradDe, out cu.DevicePtr, wdownMN bool) error {
	f, cfg, err := g.prepare(tiling.KernelBwdDSwiGLU, dtype,
		[]dim{{"M", M}, {"K", K}, {"I", I}},
		[]ptr{{"dy", dy}, {"w_down", wdown}, {"de", de}, {"grad_de", gradDe}}, M, I, nil)
	if err != nil {
		return err
	}
	m, k, i, mn := int32(M), int32(K), int32(I), flag(wdownMN)
	return g.h.Ctx.Launch(f, cfg,
		unsafe.Pointer(&dy), unsafe.Pointer(&wdown), unsafe.Pointer(&de), unsafe.Pointer(&gradDe), unsafe.Pointer(&out),
		unsafe.Pointer(&m), unsafe.Pointer(&k), unsafe.Pointer(&i), unsafe.Pointer(&mn))
}

// residualOverlap is the error of a residual [M,K] (elements of el bytes)
// that shares memory with y [M,K] (float64), or nil; also nil for sizes
// prepare rejects.
func residualOverlap(M, K, el int, residual, y cu.DevicePtr) error {
	if residual == 0 || y == 0 || M <= 0 || K <= 0 || M > maxInt32 || K > maxInt32 {
		return nil
	}
	n := uint64(M) * uint64(K)
	rb := uint64(el) * n
	if !overlap(residual, rb, y, 8*n) {
		return nil
	}
	return fmt.Errorf("residual (%d bytes at %#x) overlaps y (%d bytes at %#x)", rb, uint64(residual), 8*n, uint64(y))
}

// overlap reports whether the byte ranges [a, a+na) and [b, b+nb) share
// a byte.
func overlap(a cu.DevicePtr, na uint64, b cu.DevicePtr, nb uint64) bool {
	return uint64(a) < uint64(b)+nb && uint64(b) < uint64(a)+na
}

// naiveLaunch is the launch shape of the naive kernels: x covers the
// output's cols, y its rows (strided past maxGridY).
func naiveLaunch(rows, cols int) (cu.LaunchConfig, error) {
	if rows <= 0 || cols <= 0 || rows > maxInt32 || cols > maxInt32 {
		return cu.LaunchConfig{}, fmt.Errorf("launch of %d rows x %d cols: sizes must be in [1, 2^31)", rows, cols)
	}
	return cu.LaunchConfig{
		Grid:  [3]uint32{uint32((cols + naiveBlock - 1) / naiveBlock), uint32(min(rows, maxGridY)), 1},
		Block: [3]uint32{naiveBlock, 1, 1},
	}, nil
}

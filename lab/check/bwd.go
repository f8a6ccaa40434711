// Package check verifies swigen kernels on the GPU against the references:
// fresh random inputs per shape, outputs poisoned before every launch, every
// output compared element by element.
package check

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// DefaultTol is the relative Frobenius error an output of the default
// operand type must stay under (num.Tol of tiling.DefaultDType): verify's
// --tol default.
var DefaultTol = num.Tol(tiling.DefaultDType)

// cpuRefMaxMACs bounds the shapes checked against the CPU float64
// reference; larger ones use the naive GPU reference (itself tested against
// the CPU one).
const cpuRefMaxMACs = 1 << 31

// Options tune a verification run.
type Options struct {
	Tol     float64       // 0 means the config's dtype's (num.Tol)
	Timeout time.Duration // per launch; 0 means 30 s
	Seed    uint64
	// ForceGPURef uses the naive GPU reference even for shapes the CPU
	// float64 reference covers, for every kernel kind.
	ForceGPURef bool
	// Unfused, when set, checks the kernel's unfused path (its gemm
	// kernel, then the elementwise kernel) instead of the fused kernel,
	// on the same inputs and references (bwd_dswiglu, fwd_gateup).
	Unfused *launch.Unfused
	// Repeat, above 1, launches the kernel that many times on the same
	// inputs, its main output (gemm C, bwd_dswiglu grad_de, fwd_gateup
	// out, fwd_down y) poisoned before each launch, and fails a shape
	// where any launch's output differs by a bit from the first's.
	Repeat int
}

// planCall plans one call of k's kind at a: the fused kernel, or with
// o.Unfused its unfused path with a workspace allocated from b.
func planCall(k *launch.Kernel, o Options, b *cu.Buffers, a launch.Args) (launchWaiter, error) {
	if o.Unfused == nil {
		return k.Plan(a)
	}
	n, err := o.Unfused.WorkspaceBytes(a)
	if err != nil {
		return nil, err
	}
	var ws cu.DevicePtr
	if n > 0 {
		if ws, err = b.Alloc(n); err != nil {
			return nil, err
		}
	}
	switch x := a.(type) {
	case launch.BwdArgs:
		x.Workspace = ws
		a = x
	case launch.FwdGateUpArgs:
		x.Workspace = ws
		a = x
	}
	return o.Unfused.Plan(a)
}

// OutputResult is the comparison of one output tensor.
type OutputResult struct {
	Name  string
	Stats num.ErrStats
}

// ShapeResult is the verdict for one shape.
type ShapeResult struct {
	Shape   tiling.Shape
	Ref     string // "cpu-float64" or "gpu-naive"
	Outputs []OutputResult
	Pass    bool
	Err     error
}

// Env is what verification needs from the machine: a context, its device,
// a builder of kernels and the naive GPU reference.
type Env struct {
	Ctx     *cu.Context
	Dev     cu.Device
	Builder launch.Builder
	GPURef  *ref.GPURef
}

// BuildAndLoad builds and loads cfg's kernel.
func BuildAndLoad(ctx context.Context, env *Env, cfg tiling.Config) (*launch.Kernel, *launch.Built, error) {
	return BuildAndLoadProbe(ctx, env, cfg, "")
}

// BuildAndLoadProbe builds cfg's kernel with the probe called probe (""
// is the product kernel) and loads it. A probe's build is held to the
// product's checks (no spills, no stack, no hazard notes), so the times it
// measures are those of a kernel like the product's.
func BuildAndLoadProbe(ctx context.Context, env *Env, cfg tiling.Config, probe string) (*launch.Kernel, *launch.Built, error) {
	if env.Builder == nil {
		return nil, nil, fmt.Errorf("check: build %s: no builder", cfg.Name())
	}
	b, err := env.Builder.Build(ctx, cfg, probe)
	if err != nil {
		return nil, nil, err
	}
	k, err := launch.Load(env.Ctx, env.Dev, b.Cubin, b.Manifest)
	if err != nil {
		return nil, b, err
	}
	return k, b, nil
}

// bwdInputs holds one random bwd_dswiglu problem on the host.
type bwdInputs struct {
	dy, w, de []float32
}

// newBwdInputs draws fresh inputs: dy and W_down normal with unit-scale
// dout; left normal; gate normal with one element in 16 set to ±20 so the
// epilogue's saturated sigmoid is exercised.
func newBwdInputs(rng *num.Rand, dt tiling.DType, M, K, I int) bwdInputs {
	dy := rng.Normal(dt, M*K, 1)
	w := rng.Normal(dt, I*K, 1/math.Sqrt(float64(K)))
	de := rng.Normal(dt, M*2*I, 2)
	ext := rng.Uniform(dt, M*I, 0, 1)
	for m := 0; m < M; m++ {
		for i := 0; i < I; i++ {
			u := ext[m*I+i]
			if u < 1.0/32 {
				de[m*2*I+I+i] = 20
			} else if u < 1.0/16 {
				de[m*2*I+I+i] = -20
			}
		}
	}
	return bwdInputs{dy: dy, w: w, de: de}
}

// VerifyBwd runs a loaded bwd_dswiglu kernel on each shape and compares
// grad_de (its dleft and dgate halves separately) and, if stored, out.
func VerifyBwd(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyBwdShape)
}

func verifyBwdShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	r := ShapeResult{Shape: s}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.BwdArgs{M: M, K: K, I: I}); err != nil {
		return fail(err)
	}
	macs := int64(M) * int64(K) * int64(I)
	gpu := useGPURef(o, macs, cpuRefMaxMACs)
	r.Ref = refCPU
	if gpu {
		r.Ref = refGPU
		if err := needGPURef(env, o, fmt.Sprintf("bwd_dswiglu M=%d K=%d I=%d", M, K, I), macs, cpuRefMaxMACs); err != nil {
			return fail(err)
		}
	}
	in := newBwdInputs(rng, dt, M, K, I)
	wdev := in.w
	if cfg.MajorB == tiling.MNMajor { // the kernel reads W_down stored [K,I]
		wdev = transpose32(in.w, I, K)
	}
	b := env.Ctx.NewBuffers()
	defer b.Free()
	up := func(x []float32) (cu.DevicePtr, error) {
		raw := num.Encode(dt, x)
		p, err := b.Alloc(len(raw))
		if err != nil {
			return 0, err
		}
		return p, env.Ctx.MemcpyHtoD(p, raw)
	}
	dy, err := up(in.dy)
	if err != nil {
		return fail(err)
	}
	wd, err := up(wdev)
	if err != nil {
		return fail(err)
	}
	de, err := up(in.de)
	if err != nil {
		return fail(err)
	}
	gde, err := b.Alloc(M * 2 * I * dt.Size())
	if err != nil {
		return fail(err)
	}
	var out cu.DevicePtr
	if cfg.StoreOut {
		if out, err = b.Alloc(M * I * dt.Size()); err != nil {
			return fail(err)
		}
	}
	poison := num.Poison(dt)
	if err := env.Ctx.MemsetD16(gde, poison, uint64(M*2*I)); err != nil {
		return fail(err)
	}
	if cfg.StoreOut {
		if err := env.Ctx.MemsetD16(out, poison, uint64(M*I)); err != nil {
			return fail(err)
		}
	}
	plan, err := planCall(k, o, b, launch.BwdArgs{M: M, K: K, I: I, Dy: dy, WDown: wd, De: de, GradDe: gde, Out: out})
	if err != nil {
		return fail(err)
	}
	if err := launchWait(plan, o.Timeout); err != nil {
		return fail(err)
	}
	gotG := make([]byte, M*2*I*dt.Size())
	if err := env.Ctx.MemcpyDtoH(gotG, gde); err != nil {
		return fail(err)
	}
	if err := (&run{env: env, dt: dt, b: b}).sameOnRepeat(plan, o, gde, gotG); err != nil {
		return fail(err)
	}
	var gotO []byte
	if cfg.StoreOut {
		gotO = make([]byte, M*I*dt.Size())
		if err := env.Ctx.MemcpyDtoH(gotO, out); err != nil {
			return fail(err)
		}
	}

	var wantG, wantO []float64
	if !gpu {
		res := ref.BwdDSwiGLU(ref.BwdProblem{M: M, K: K, I: I, Dy: num.Float64s(in.dy), WDown: num.Float64s(in.w), De: num.Float64s(in.de)})
		wantG, wantO = res.GradDe, res.Out
	} else {
		// The reference writes float64 outputs into poisoned buffers of
		// its own; out is left null unless the kernel stores it.
		dev := &run{env: env, dt: dt, b: b}
		rg := dev.refBuffer(M * 2 * I)
		var ro cu.DevicePtr
		if cfg.StoreOut {
			ro = dev.refBuffer(M * I)
		}
		dev.reference(refTimeout(o, macs), func() error {
			return env.GPURef.BwdDSwiGLU(dt, M, K, I, dy, wd, de, rg, ro, cfg.MajorB == tiling.MNMajor)
		})
		wantG = dev.refOutput("grad_de", rg, M*2*I).f64
		if cfg.StoreOut {
			wantO = dev.refOutput("out", ro, M*I).f64
		}
		if dev.err != nil {
			return fail(dev.err)
		}
	}
	left, gate := splitHalves(gotG, M)
	wl, wg := splitHalves64(wantG, M, I)
	r.Outputs = append(r.Outputs,
		OutputResult{Name: "dleft", Stats: num.CompareRaw(dt, left, wl)},
		OutputResult{Name: "dgate", Stats: num.CompareRaw(dt, gate, wg)})
	if cfg.StoreOut {
		r.Outputs = append(r.Outputs, OutputResult{Name: "out", Stats: num.CompareRaw(dt, gotO, wantO)})
	}
	r.Pass = true
	for _, x := range r.Outputs {
		if !x.Stats.OK(o.tol(dt)) {
			r.Pass = false
		}
	}
	return r
}

// splitHalves splits M raw [M,2I] rows into the [M,I] left and gate halves;
// the element size is what len(raw) makes it.
func splitHalves(raw []byte, M int) (left, gate []byte) {
	half := len(raw) / max(2*M, 1) // I elements
	left = make([]byte, 0, M*half)
	gate = make([]byte, 0, M*half)
	for m := 0; m < M; m++ {
		row := raw[2*m*half : 2*(m+1)*half]
		left = append(left, row[:half]...)
		gate = append(gate, row[half:]...)
	}
	return left, gate
}

func splitHalves64(x []float64, M, I int) (left, gate []float64) {
	left = make([]float64, 0, M*I)
	gate = make([]float64, 0, M*I)
	for m := 0; m < M; m++ {
		left = append(left, x[m*2*I:m*2*I+I]...)
		gate = append(gate, x[m*2*I+I:(m+1)*2*I]...)
	}
	return left, gate
}

// transpose32 returns the [cols,rows] transpose of a row-major [rows,cols].
func transpose32(a []float32, rows, cols int) []float32 {
	t := make([]float32, len(a))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = a[r*cols+c]
		}
	}
	return t
}

// RaggedShapes is the built-in list of verification shapes: M, I and K not
// multiples of any tile, the smallest legal K, a single row, and shapes
// large enough that the CTAs of the persistent grid run several tiles
// each, one of them ragged too (ring-phase bugs that need a CTA's second
// and third tile showed only there: docs/PERFORMANCE.md#epilogue-shared-ring).
func RaggedShapes() []tiling.Shape {
	return []tiling.Shape{
		{M: 256, K: 128, I: 256},
		{M: 200, K: 72, I: 136},
		{M: 1, K: 8, I: 8},
		{M: 129, K: 8, I: 200},
		{M: 333, K: 392, I: 328},
		{M: 1000, K: 776, I: 1048},
		{M: 1536, K: 264, I: 2056},
		{M: 3000, K: 136, I: 2056},
		{M: 2048, K: 768, I: 4608},
	}
}

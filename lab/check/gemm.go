package check

import (
	"fmt"
	"math"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// cpuRefMaxMACsFwd bounds the shapes the gemm and forward kernels are
// checked on against the CPU float64 reference (a few seconds at this size
// on a GPU host's cores); larger ones, or every one with
// Options.ForceGPURef, use the naive GPU reference, itself tested against
// the CPU one. It is above bwd's cpuRefMaxMACs so that every shape these
// kinds were checked on before they had a GPU reference keeps the exact one.
const cpuRefMaxMACsFwd = 1 << 35

// Verify runs a loaded kernel of any kind on each shape against its
// reference, dispatching on the kernel kind: VerifyBwd, VerifyGemm,
// VerifyFwdGateUp or VerifyFwdDown; a grouped kind runs on its routings
// (VerifyGroupedRoutings) instead of shapes. A kind without a verifier
// fails every shape, naming the kind.
func Verify(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	if v, ok := verifiers[k.Man.Config.Kernel]; ok {
		return v(env, k, shapes, o)
	}
	res := make([]ShapeResult, len(shapes))
	for i, s := range shapes {
		res[i] = ShapeResult{Shape: s, Err: fmt.Errorf("check: %s: kind %q has no verifier", k.Man.Name, k.Man.Config.Kernel)}
	}
	return res
}

// verifiers checks each registered kind against its reference (the test
// checks that every kind of tiling.Kinds has one).
var verifiers = map[tiling.Kernel]func(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult{
	tiling.KernelBwdDSwiGLU:    VerifyBwd,
	tiling.KernelGEMM:          VerifyGemm,
	tiling.KernelFwdGateUp:     VerifyFwdGateUp,
	tiling.KernelFwdDown:       VerifyFwdDown,
	tiling.KernelMoEFwdGateUp:  VerifyGroupedRoutings,
	tiling.KernelMoEBwdDSwiGLU: VerifyGroupedBwdRoutings,
	tiling.KernelMoEGEMM:       VerifyGroupedGemmRoutings,
	tiling.KernelMoEWgrad:      VerifyGroupedWgradRoutings,
}

// VerifyGroupedRoutings verifies a loaded moe_fwd_gateup kernel on
// MoERoutings for its TileM: a grouped problem is a routing, not an M,K,I
// shape, so shapes are not read (swigen verify refuses --shape for the
// grouped kinds).
func VerifyGroupedRoutings(env *Env, k *launch.Kernel, _ []tiling.Shape, o Options) []ShapeResult {
	return VerifyMoEFwdGateUp(env, k, MoERoutings(k.Man.Config.TileM), o)
}

// shapeCheck verifies a loaded kernel on one shape.
type shapeCheck func(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult

// eachShape runs check on every shape in order, with o's defaults filled
// in and one random stream (seeded by o.Seed) across the shapes.
func eachShape(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options, check shapeCheck) []ShapeResult {
	o = o.defaults()
	rng := num.NewRand(o.Seed)
	var res []ShapeResult
	for _, s := range shapes {
		res = append(res, check(env, k, s, rng, o))
	}
	return res
}

// defaults fills in Options' zero values.
func (o Options) defaults() Options {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	return o
}

// run is the device side shared by the gemm and forward checks: it
// uploads inputs, allocates poisoned outputs, launches and reads back.
//
// Its methods keep the first error in err: after a failure they do nothing
// and return zero values, so a caller stages a whole run and checks err
// once.
type run struct {
	env *Env
	dt  tiling.DType
	b   *cu.Buffers
	err error
}

func newRun(env *Env, dt tiling.DType) *run {
	return &run{env: env, dt: dt, b: env.Ctx.NewBuffers()}
}

func (r *run) free() { r.b.Free() }

// upload copies x, encoded as the run's dtype, into a new device buffer.
func (r *run) upload(x []float32) cu.DevicePtr {
	if r.err != nil {
		return 0
	}
	raw := num.Encode(r.dt, x)
	p, err := r.b.Alloc(len(raw))
	if err == nil {
		err = r.env.Ctx.MemcpyHtoD(p, raw)
	}
	r.err = err
	return p
}

// poisoned allocates n elements of the run's dtype filled with the poison
// pattern, so an element the kernel never writes is detected.
func (r *run) poisoned(n int) cu.DevicePtr {
	if r.err != nil {
		return 0
	}
	p, err := r.b.Alloc(n * r.dt.Size())
	if err == nil {
		err = r.env.Ctx.MemsetD16(p, num.Poison(r.dt), uint64(n))
	}
	r.err = err
	return p
}

// exec launches plan and waits for it (see launchWait).
func (r *run) exec(plan launchWaiter, timeout time.Duration) {
	if r.err == nil {
		r.err = launchWait(plan, timeout)
	}
}

// download copies n elements of the run's dtype at p back to the host.
func (r *run) download(p cu.DevicePtr, n int) []byte {
	if r.err != nil {
		return nil
	}
	raw := make([]byte, n*r.dt.Size())
	r.err = r.env.Ctx.MemcpyDtoH(raw, p)
	return raw
}

// sameOnRepeat launches plan o.Repeat-1 more times, re-poisoning the n
// elements (len(first) bytes) at out and the plan's workspace scratch before
// each, and reports the first launch whose output differs from first by a
// bit (nil without o.Repeat > 1).
func (r *run) sameOnRepeat(plan launchWaiter, o Options, out cu.DevicePtr, first []byte) error {
	for i := 2; i <= o.Repeat && r.err == nil; i++ {
		n := len(first) / r.dt.Size()
		if r.err = r.env.Ctx.MemsetD16(out, num.Poison(r.dt), uint64(n)); r.err != nil {
			break
		}
		if r.err = r.poisonScratch(plan); r.err != nil {
			break
		}
		r.exec(plan, o.Timeout)
		again := r.download(out, n)
		if r.err != nil {
			break
		}
		if d := firstDiff(first, again); d >= 0 {
			return fmt.Errorf("not deterministic: launch %d's output differs from launch 1's at element %d (%#04x%02x, then %#04x%02x)",
				i, d/r.dt.Size(), first[d|1], first[d&^1], again[d|1], again[d&^1])
		}
	}
	return r.err
}

// poisonScratch fills the bytes of plan's workspace past its ZeroBytes
// with 0xff (NaN as fp32): scratch the kernel must write before it reads,
// so a read that comes too early (stream-K's owner passing a flag set by
// an earlier launch) sums NaN instead of the earlier launch's equal
// partials, and the repeat check sees it.
func (r *run) poisonScratch(plan launchWaiter) error {
	p, ok := plan.(interface {
		Workspace() (cu.DevicePtr, manifest.WorkspaceSize)
	})
	if !ok {
		return nil
	}
	ws, size := p.Workspace()
	if ws == 0 || size.Bytes <= size.ZeroBytes {
		return nil
	}
	return r.env.Ctx.MemsetD8(ws+cu.DevicePtr(size.ZeroBytes), 0xff, uint64(size.Bytes-size.ZeroBytes))
}

// firstDiff is the first byte index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if len(b) > len(a) {
		return len(a)
	}
	return -1
}

// launchWaiter is a launch plan of any kind.
type launchWaiter interface {
	Launch() error
	Sync(timeout time.Duration) error
}

// launchWait launches plan and waits for it at most timeout.
func launchWait(plan launchWaiter, timeout time.Duration) error {
	if err := plan.Launch(); err != nil {
		return err
	}
	return plan.Sync(timeout)
}

// tol is the tolerance of an output of dtype dt: Tol, or the type's own
// (num.Tol) when Tol is 0.
func (o Options) tol(dt tiling.DType) float64 {
	if o.Tol != 0 {
		return o.Tol
	}
	return num.Tol(dt)
}

// finish sets Pass from the outputs.
func finish(r ShapeResult, tol float64) ShapeResult {
	r.Pass = len(r.Outputs) > 0
	for _, x := range r.Outputs {
		if !x.Stats.OK(tol) {
			r.Pass = false
		}
	}
	return r
}

// gemmShape is the shape a gemm config is checked on for s: M rows, N = I
// columns, K = K. An MN-major A is stored [K,M], so its row pitch needs M
// a multiple of 8; M is rounded up to one (the result names the shape
// actually run).
func gemmShape(cfg tiling.Config, s tiling.Shape) tiling.Shape {
	if cfg.MajorA == tiling.MNMajor && s.M%8 != 0 {
		s.M = (s.M + 7) / 8 * 8
	}
	return s
}

// VerifyGemm runs a loaded gemm kernel on each shape (M, K, and N = the
// shape's I) and compares C with the CPU float64 reference.
func VerifyGemm(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyGemmShape)
}

func verifyGemmShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	s = gemmShape(cfg, s)
	dt := cfg.DType
	M, N, K := s.M, s.I, s.K
	aMN, bMN := cfg.MajorA == tiling.MNMajor, cfg.MajorB == tiling.MNMajor
	r := ShapeResult{Shape: s, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.GemmArgs{M: M, N: N, K: K}); err != nil {
		return fail(err)
	}
	macs := int64(M) * int64(N) * int64(K)
	gpu := useGPURef(o, macs, cpuRefMaxMACsFwd)
	if gpu {
		r.Ref = refGPU
		if err := needGPURef(env, o, fmt.Sprintf("gemm %dx%dx%d", M, N, K), macs, cpuRefMaxMACsFwd); err != nil {
			return fail(err)
		}
	}
	a := rng.Normal(dt, M*K, 1)                       // logical [M,K]
	b := rng.Normal(dt, N*K, 1/math.Sqrt(float64(K))) // logical [K,N]
	aDev, bDev := a, transpose32(b, K, N)             // [M,K], [N,K]
	if aMN {
		aDev = transpose32(a, M, K) // [K,M]
	}
	if bMN {
		bDev = b // [K,N]
	}
	dev := newRun(env, dt)
	defer dev.free()
	ap, bp := dev.upload(aDev), dev.upload(bDev)
	var want expect
	if gpu {
		// The reference runs first and its output is read back before the
		// kernel under test runs, so nothing that kernel writes out of
		// bounds can reach it.
		refC := dev.refBuffer(M * N)
		dev.reference(refTimeout(o, macs), func() error {
			return env.GPURef.Gemm(dt, M, N, K, ap, bp, refC, aMN, bMN)
		})
		want = dev.refOutput("C", refC, M*N)
	}
	cp := dev.poisoned(M * N)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(launch.GemmArgs{M: M, N: N, K: K, A: ap, B: bp, C: cp})
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	got := dev.download(cp, M*N)
	if dev.err != nil {
		return fail(dev.err)
	}
	if err := dev.sameOnRepeat(plan, o, cp, got); err != nil {
		return fail(err)
	}
	if !gpu {
		want.f64 = ref.Gemm(ref.GemmProblem{M: M, N: N, K: K, A: num.Float64s(a), B: num.Float64s(b), BMNMajor: true})
	}
	r.Outputs = []OutputResult{{Name: "C", Stats: want.compare(dt, got)}}
	return finish(r, o.tol(dt))
}

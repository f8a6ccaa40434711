package check

import (
	"fmt"
	"math"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// VerifyGroupedGemmRoutings verifies a loaded moe_gemm kernel on
// MoERoutings for its TileM (shapes are not read, as for
// VerifyGroupedRoutings).
func VerifyGroupedGemmRoutings(env *Env, k *launch.Kernel, _ []tiling.Shape, o Options) []ShapeResult {
	return VerifyMoEGemm(env, k, MoERoutings(k.Man.Config.TileM), o)
}

// VerifyMoEGemm runs a loaded moe_gemm kernel on each routing, the
// routing's K as the GEMM's K and its I as N, and compares C with the
// float64 per-expert reference (ref.MoEGemm); C is poisoned before each
// launch, so a row the kernel leaves or a row of another expert it
// overwrites shows up, and with Options.Repeat the launch repeats and must
// give the same bits. The result's Shape is {M: T, K: K, I: N}.
func VerifyMoEGemm(env *Env, k *launch.Kernel, routings []Routing, o Options) []ShapeResult {
	return eachRouting(env, k, routings, o, verifyMoEGemm)
}

func verifyMoEGemm(env *Env, k *launch.Kernel, rt Routing, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	T, N, K, E := rt.T(), rt.I, rt.K, len(rt.Counts)
	r := ShapeResult{Shape: tiling.Shape{M: T, K: K, I: N}, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = fmt.Errorf("%s (E=%d): %w", rt.Name, E, err); return r }
	args := launch.MoEGemmArgs{T: T, N: N, K: K, E: E}
	if err := launch.CheckShape(cfg, args); err != nil {
		return fail(err)
	}
	a := rng.Normal(dt, T*K, 1)
	b := rng.Normal(dt, E*N*K, 1/math.Sqrt(float64(K))) // [E,N,K] or [E,K,N]
	offs := rt.Offs()
	dev := newRun(env, dt)
	defer dev.free()
	args.A, args.B = dev.upload(a), dev.upload(b)
	args.Offs = dev.uploadI32(offs)
	args.C = dev.poisoned(T * N)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(args)
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	got := dev.download(args.C, T*N)
	if dev.err != nil {
		return fail(dev.err)
	}
	if err := dev.sameOnRepeatAll(plan, o, []repeated{{"C", args.C, got}}); err != nil {
		return fail(err)
	}
	want := ref.MoEGemm(ref.MoEGemmProblem{T: T, N: N, K: K, E: E, A: num.Float64s(a), B: num.Float64s(b),
		BMNMajor: cfg.MajorB == tiling.MNMajor, Offs: offs})
	if want == nil {
		return fail(fmt.Errorf("the reference refused the problem"))
	}
	r.Outputs = []OutputResult{{Name: "C", Stats: expect{f64: want}.compare(dt, got)}}
	return finish(r, o.tol(dt))
}

// TimeMoEGemm launches a moe_gemm kernel k reps times on the down
// projection of the layer sh = (T, K, I, E) (SWIGEN_MOE_TIME's order: the
// GEMM's K is the layer's I and its N the layer's K, C [T,K] = h [T,I] @
// W_down[e]^T) with uniform routing and returns the median wall time of one
// launch in microseconds, as TimeMoEFwdGateUp.
func TimeMoEGemm(env *Env, k *launch.Kernel, sh [4]int, reps int) (float64, error) {
	dev := newRun(env, k.Man.Config.DType)
	defer dev.free()
	args := dev.moeGemmTimingArgs(sh, UniformCounts(1, sh[0], sh[3]), num.NewRand(1))
	if dev.err != nil {
		return 0, dev.err
	}
	plan, err := k.Plan(args)
	if err != nil {
		return 0, err
	}
	return medianUs(env, plan, reps)
}

// moeGemmTimingArgs are a moe_gemm launch's arguments at sh = (T, N, K,
// E) (TimeMoEGemm's order) routed by counts: random A and B, C poisoned.
func (dev *run) moeGemmTimingArgs(sh [4]int, counts []int, rng *num.Rand) launch.MoEGemmArgs {
	T, N, K, E := sh[0], sh[1], sh[2], sh[3]
	dt := dev.dt
	rt := Routing{K: K, I: N, Counts: counts}
	args := launch.MoEGemmArgs{T: T, N: N, K: K, E: E,
		A: dev.uploadTiled(T*K, rng.Normal(dt, 1<<22, 1)),
		B: dev.uploadTiled(E*N*K, rng.Normal(dt, 1<<22, 1/math.Sqrt(float64(K))))}
	args.Offs = dev.uploadI32(rt.Offs())
	args.C = dev.poisoned(T * N)
	return args
}

// VerifyMoEGemmBadOffs launches a loaded moe_gemm kernel on each case's
// raw offs and on its clamped offs (same A and B, the case's K as K and
// its I as N, C poisoned before each) and reports, per case, whether C
// differs (nil where it is the same bits), as VerifyMoEFwdBadOffs.
func VerifyMoEGemmBadOffs(env *Env, k *launch.Kernel, cases []BadOffs, seed uint64) []error {
	return eachBadOffs(env, k, cases, seed, verifyMoEGemmBadOffs)
}

func verifyMoEGemmBadOffs(env *Env, k *launch.Kernel, c BadOffs, rng *num.Rand) error {
	E, N, K := len(c.Raw), c.I, c.K
	dev := newRun(env, k.Man.Config.DType)
	defer dev.free()
	a, b := dev.upload(rng.Normal(dev.dt, c.T*K, 1)), dev.upload(rng.Normal(dev.dt, E*N*K, 0.1))
	var got [2][]byte
	for i, offs := range [][]int32{c.Raw, ClampOffs(c.Raw, c.T)} {
		args := launch.MoEGemmArgs{T: c.T, N: N, K: K, E: E, A: a, B: b}
		args.Offs = dev.uploadI32(offs)
		args.C = dev.poisoned(c.T * N)
		if dev.err != nil {
			return dev.err
		}
		plan, err := k.Plan(args)
		if err != nil {
			return err
		}
		dev.exec(plan, 60*time.Second)
		got[i] = dev.download(args.C, c.T*N)
		if dev.err != nil {
			return dev.err
		}
	}
	if d := firstDiff(got[0], got[1]); d >= 0 {
		return fmt.Errorf("C differs from the clamped offs' launch at element %d", d/2)
	}
	return nil
}

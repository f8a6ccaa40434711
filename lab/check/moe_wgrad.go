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

// VerifyGroupedWgradRoutings verifies a loaded moe_wgrad kernel on
// MoERoutings for its TileK, the k-block the expert's token range is cut
// into (shapes are not read, as for VerifyGroupedRoutings). At TileK 64
// the routing's TileK±1 and 2*TileK±1 counts are also TileM±1 at TileM 128.
func VerifyGroupedWgradRoutings(env *Env, k *launch.Kernel, _ []tiling.Shape, o Options) []ShapeResult {
	return VerifyMoEWgrad(env, k, MoERoutings(k.Man.Config.TileK), o)
}

// VerifyMoEWgrad runs a loaded moe_wgrad kernel on each routing, the
// routing's I as N and its K as K, and compares dW [E,N,K] with the
// float64 per-expert reference (ref.MoEWgrad); dW is poisoned before each
// launch, so an expert the kernel leaves (an empty one must be zeros) or a
// row of the next expert it reduces over shows up, and with
// Options.Repeat the launch repeats and must give the same bits. The
// result's Shape is {M: T, K: K, I: N}.
func VerifyMoEWgrad(env *Env, k *launch.Kernel, routings []Routing, o Options) []ShapeResult {
	return eachRouting(env, k, routings, o, verifyMoEWgrad)
}

func verifyMoEWgrad(env *Env, k *launch.Kernel, rt Routing, rng *num.Rand, o Options) ShapeResult {
	dt := k.Man.Config.DType
	T, N, K, E := rt.T(), rt.I, rt.K, len(rt.Counts)
	r := ShapeResult{Shape: tiling.Shape{M: T, K: K, I: N}, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = fmt.Errorf("%s (E=%d): %w", rt.Name, E, err); return r }
	args := launch.MoEWgradArgs{T: T, N: N, K: K, E: E}
	if err := launch.CheckShape(k.Man.Config, args); err != nil {
		return fail(err)
	}
	// B scaled by the largest expert's rows keeps dW near 1 in magnitude.
	a := rng.Normal(dt, T*N, 1)
	b := rng.Normal(dt, T*K, 1/math.Sqrt(float64(max(1, maxCount(rt.Counts)))))
	offs := rt.Offs()
	dev := newRun(env, dt)
	defer dev.free()
	args.A, args.B = dev.upload(a), dev.upload(b)
	args.Offs = dev.uploadI32(offs)
	args.DW = dev.poisoned(E * N * K)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(args)
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	got := dev.download(args.DW, E*N*K)
	if dev.err != nil {
		return fail(dev.err)
	}
	if err := dev.sameOnRepeatAll(plan, o, []repeated{{"dW", args.DW, got}}); err != nil {
		return fail(err)
	}
	want := ref.MoEWgrad(ref.MoEWgradProblem{T: T, N: N, K: K, E: E, A: num.Float64s(a), B: num.Float64s(b), Offs: offs})
	if want == nil {
		return fail(fmt.Errorf("the reference refused the problem"))
	}
	r.Outputs = []OutputResult{{Name: "dW", Stats: expect{f64: want}.compare(dt, got)}}
	return finish(r, o.tol(dt))
}

// maxCount is the largest of counts (0 for none).
func maxCount(counts []int) int {
	m := 0
	for _, c := range counts {
		m = max(m, c)
	}
	return m
}

// TimeMoEWgrad launches a moe_wgrad kernel k reps times at sh = (T, N, K,
// E), dW [E,N,K] from A [T,N] and B [T,K], with uniform routing and
// returns the median wall time of one launch in microseconds, as
// TimeMoEFwdGateUp.
func TimeMoEWgrad(env *Env, k *launch.Kernel, sh [4]int, reps int) (float64, error) {
	T, N, K, E := sh[0], sh[1], sh[2], sh[3]
	dt := k.Man.Config.DType
	rng := num.NewRand(1)
	dev := newRun(env, dt)
	defer dev.free()
	rt := Routing{K: K, I: N, Counts: UniformCounts(1, T, E)}
	args := launch.MoEWgradArgs{T: T, N: N, K: K, E: E,
		A: dev.uploadTiled(T*N, rng.Normal(dt, 1<<22, 1)),
		B: dev.uploadTiled(T*K, rng.Normal(dt, 1<<22, 1/math.Sqrt(float64(max(1, T/E)))))}
	args.Offs = dev.uploadI32(rt.Offs())
	args.DW = dev.poisoned(E * N * K)
	if dev.err != nil {
		return 0, dev.err
	}
	plan, err := k.Plan(args)
	if err != nil {
		return 0, err
	}
	return medianUs(env, plan, reps)
}

// VerifyMoEWgradBadOffs launches a loaded moe_wgrad kernel on each case's
// raw offs and on its clamped offs (same A and B, the case's I as N and
// its K as K, dW poisoned before each) and reports, per case, whether dW
// differs (nil where it is the same bits), as VerifyMoEFwdBadOffs: the
// K-grouped walk clamps offs as the grouped cursor does.
func VerifyMoEWgradBadOffs(env *Env, k *launch.Kernel, cases []BadOffs, seed uint64) []error {
	return eachBadOffs(env, k, cases, seed, verifyMoEWgradBadOffs)
}

func verifyMoEWgradBadOffs(env *Env, k *launch.Kernel, c BadOffs, rng *num.Rand) error {
	E, N, K := len(c.Raw), c.I, c.K
	dev := newRun(env, k.Man.Config.DType)
	defer dev.free()
	a, b := dev.upload(rng.Normal(dev.dt, c.T*N, 1)), dev.upload(rng.Normal(dev.dt, c.T*K, 0.1))
	var got [2][]byte
	for i, offs := range [][]int32{c.Raw, ClampOffs(c.Raw, c.T)} {
		args := launch.MoEWgradArgs{T: c.T, N: N, K: K, E: E, A: a, B: b}
		args.Offs = dev.uploadI32(offs)
		args.DW = dev.poisoned(E * N * K)
		if dev.err != nil {
			return dev.err
		}
		plan, err := k.Plan(args)
		if err != nil {
			return err
		}
		dev.exec(plan, 60*time.Second)
		got[i] = dev.download(args.DW, E*N*K)
		if dev.err != nil {
			return dev.err
		}
	}
	if d := firstDiff(got[0], got[1]); d >= 0 {
		return fmt.Errorf("dW differs from the clamped offs' launch at element %d", d/2)
	}
	return nil
}

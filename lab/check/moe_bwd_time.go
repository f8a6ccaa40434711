package check

import (
	"math"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/launch"
)

// TimeMoEBwd launches a moe_bwd_dswiglu kernel k reps times at sh = (T,
// K, I, E) with uniform routing and returns the median wall time of one
// launch in microseconds (each launch between two events on the default
// stream), as TimeMoEFwdGateUp.
func TimeMoEBwd(env *Env, k *launch.Kernel, sh [4]int, reps int) (float64, error) {
	dev := newRun(env, k.Man.Config.DType)
	defer dev.free()
	args, err := dev.moeBwdTimingArgs(k, sh, UniformCounts(1, sh[0], sh[3]), num.NewRand(1))
	if err != nil {
		return 0, err
	}
	plan, err := k.Plan(args)
	if err != nil {
		return 0, err
	}
	return medianUs(env, plan, reps)
}

// moeBwdTimingArgs are a moe_bwd_dswiglu launch's arguments at sh = (T,
// K, I, E) routed by counts: random dy, W_down and de, poisoned outputs.
func (dev *run) moeBwdTimingArgs(k *launch.Kernel, sh [4]int, counts []int, rng *num.Rand) (launch.MoEBwdArgs, error) {
	T, K, I, E := sh[0], sh[1], sh[2], sh[3]
	dt := dev.dt
	rt := Routing{K: K, I: I, Counts: counts}
	args := launch.MoEBwdArgs{T: T, K: K, I: I, E: E,
		Dy:    dev.uploadTiled(T*K, rng.Normal(dt, 1<<22, 1)),
		WDown: dev.uploadTiled(E*K*I, rng.Normal(dt, 1<<22, 1/math.Sqrt(float64(K)))),
		De:    dev.uploadTiled(T*2*I, rng.Normal(dt, 1<<22, 2))}
	args.Offs = dev.uploadI32(rt.Offs())
	args.GradDe = dev.poisoned(T * 2 * I)
	if k.Man.Config.StoreOut {
		args.Out = dev.poisoned(T * I)
	}
	if k.Man.Config.Score {
		sc, err := dev.scoreBuffers(k, rng, args)
		if err != nil {
			return args, err
		}
		args.Score, args.DScorePart = sc.score, sc.part
	}
	return args, dev.err
}

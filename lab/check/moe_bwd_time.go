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
	T, K, I, E := sh[0], sh[1], sh[2], sh[3]
	dt := k.Man.Config.DType
	rng := num.NewRand(1)
	dev := newRun(env, dt)
	defer dev.free()
	rt := Routing{K: K, I: I, Counts: UniformCounts(1, T, E)}
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
			return 0, err
		}
		args.Score, args.DScorePart = sc.score, sc.part
	}
	if dev.err != nil {
		return 0, dev.err
	}
	plan, err := k.Plan(args)
	if err != nil {
		return 0, err
	}
	return medianUs(env, plan, reps)
}

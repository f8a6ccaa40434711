package check

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
)

// parseMoETime reads "T,K,I,E".
func parseMoETime(s string) ([4]int, error) {
	var v [4]int
	parts := strings.Split(strings.TrimSpace(s), ",")
	if len(parts) != 4 {
		return v, fmt.Errorf("moe timing shape %q: want T,K,I,E", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			return v, fmt.Errorf("moe timing shape %q: size %q must be a positive integer", s, p)
		}
		v[i] = n
	}
	return v, nil
}

// TimeMoEFwdGateUp launches k (inference, or training with StoreOut: de
// stored too) reps times at sh = (T, K, I, E) with uniform routing and
// returns the median wall time of one launch in microseconds
// (each launch between two events on the default stream).
func TimeMoEFwdGateUp(env *Env, k *launch.Kernel, sh [4]int, reps int) (float64, error) {
	dev := newRun(env, k.Man.Config.DType)
	defer dev.free()
	args := dev.moeFwdTimingArgs(k, sh, UniformCounts(1, sh[0], sh[3]), num.NewRand(1))
	if dev.err != nil {
		return 0, dev.err
	}
	plan, err := k.Plan(args)
	if err != nil {
		return 0, err
	}
	return medianUs(env, plan, reps)
}

// moeFwdTimingArgs are a moe_fwd_gateup launch's arguments at sh = (T,
// K, I, E) routed by counts: random x and W, poisoned outputs.
func (dev *run) moeFwdTimingArgs(k *launch.Kernel, sh [4]int, counts []int, rng *num.Rand) launch.MoEFwdGateUpArgs {
	T, K, I, E := sh[0], sh[1], sh[2], sh[3]
	dt := dev.dt
	rt := Routing{K: K, I: I, Counts: counts}
	args := launch.MoEFwdGateUpArgs{T: T, K: K, I: I, E: E,
		X: dev.uploadTiled(T*K, rng.Normal(dt, 1<<22, 1)), W: dev.uploadTiled(E*2*I*K, rng.Normal(dt, 1<<22, 2/math.Sqrt(float64(K))))}
	args.Offs = dev.uploadI32(rt.Offs())
	args.Out = dev.poisoned(T * I)
	if k.Man.Config.StoreOut {
		args.De = dev.poisoned(T * 2 * I)
	}
	if k.Man.Config.Score {
		args.Score, _ = dev.routerScore(rng, T)
	}
	return args
}

// medianUs is the median of reps timed launches of plan (timeOne), after
// three untimed ones.
func medianUs(env *Env, plan *launch.Plan, reps int) (float64, error) {
	for i := 0; i < 3; i++ { // warm-up
		if err := launchWait(plan, 30*time.Second); err != nil {
			return 0, err
		}
	}
	us := make([]float64, 0, reps)
	for i := 0; i < reps; i++ {
		t, err := timeOne(env, plan)
		if err != nil {
			return 0, err
		}
		us = append(us, t)
	}
	slices.Sort(us)
	return us[len(us)/2], nil
}

// timeOne is one launch of plan between two events, in microseconds.
func timeOne(env *Env, plan *launch.Plan) (float64, error) {
	return timeFunc(env, plan, plan.Launch)
}

// syncTimeout bounds each wait for a timed launch.
const syncTimeout = 30 * time.Second

// timeFunc is one call of f (launches on the default stream) between two
// events, in microseconds, waited for through plan.
func timeFunc(env *Env, plan *launch.Plan, f func() error) (float64, error) {
	a, err := env.Ctx.NewEvent()
	if err != nil {
		return 0, err
	}
	defer func() { _ = a.Destroy() }()
	b, err := env.Ctx.NewEvent()
	if err != nil {
		return 0, err
	}
	defer func() { _ = b.Destroy() }()
	if err := a.Record(nil); err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		return 0, err
	}
	if err := b.Record(nil); err != nil {
		return 0, err
	}
	if err := plan.Sync(syncTimeout); err != nil {
		return 0, err
	}
	ms, err := cu.Elapsed(a, b)
	return float64(ms) * 1e3, err
}

// uploadTiled fills a new device buffer of n elements with chunk repeated
// (random inputs for timing without generating gigabytes on the host).
func (r *run) uploadTiled(n int, chunk []float32) cu.DevicePtr {
	if r.err != nil {
		return 0
	}
	raw := num.Encode(r.dt, chunk)
	size := n * r.dt.Size()
	p, err := r.b.Alloc(size)
	for off := 0; err == nil && off < size; off += len(raw) {
		m := min(len(raw), size-off)
		err = r.env.Ctx.MemcpyHtoD(p+cu.DevicePtr(off), raw[:m])
	}
	r.err = err
	return p
}

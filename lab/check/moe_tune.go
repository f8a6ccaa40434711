package check

import (
	"fmt"
	"slices"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// GroupedRun is one grouped kernel's launch at a routing on random inputs
// (the timing tests' data), with its buffers, so that swigen tune can time
// it interleaved with a baseline that reads the same inputs.
type GroupedRun struct {
	// Args are the launch's arguments: launch.MoEFwdGateUpArgs,
	// launch.MoEBwdArgs or launch.MoEGemmArgs (by the kind's family).
	Args   launch.Args
	Counts []int
	env    *Env
	dev    *run
	plan   *launch.Plan
}

// NewGroupedRun uploads the inputs of a grouped kernel k at sh (T, K, I, E
// for moe_fwd_gateup and moe_bwd_dswiglu; T, N, K, E for moe_gemm, as
// TimeMoEGemm reads it) routed by counts (one per expert, summing to T)
// and plans its launch. Close frees it.
func NewGroupedRun(env *Env, k *launch.Kernel, sh [4]int, counts []int) (*GroupedRun, error) {
	if len(counts) != sh[3] {
		return nil, fmt.Errorf("check: grouped run: %d token counts for E=%d experts: want one per expert", len(counts), sh[3])
	}
	if t := (Routing{Counts: counts}).T(); t != sh[0] {
		return nil, fmt.Errorf("check: grouped run: the token counts sum to %d, not T=%d", t, sh[0])
	}
	cfg := k.Man.Config
	g := &GroupedRun{Counts: counts, env: env, dev: newRun(env, cfg.DType)}
	rng := num.NewRand(1)
	var err error
	switch spec, _ := tiling.KindOf(cfg.Kernel); {
	case !spec.Grouped || spec.KGrouped:
		err = fmt.Errorf("check: grouped run: %s is not an M-grouped kind (its rows are not split by expert)", cfg.Kernel)
	case spec.Family == "gateup":
		g.Args = g.dev.moeFwdTimingArgs(k, sh, counts, rng)
	case spec.Family == "bwd":
		g.Args, err = g.dev.moeBwdTimingArgs(k, sh, counts, rng)
	case spec.Family == "gemm":
		g.Args = g.dev.moeGemmTimingArgs(sh, counts, rng)
	default:
		err = fmt.Errorf("check: grouped run: %s is not a grouped kind with a timing run", cfg.Kernel)
	}
	if err == nil {
		err = g.dev.err
	}
	if err == nil {
		g.plan, err = k.Plan(g.Args)
	}
	if err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// Close frees the run's buffers (and those AllocElems made).
func (g *GroupedRun) Close() { g.dev.free() }

// AllocElems is a device buffer of n elements of the run's dtype freed
// with the run (a baseline's scratch).
func (g *GroupedRun) AllocElems(n int) (cu.DevicePtr, error) {
	return g.dev.b.Alloc(n * g.dev.dt.Size())
}

// TimeAB times reps launches of the kernel and, when baseline is not nil,
// reps runs of baseline (each on the default stream between two events,
// the kernel and the baseline alternating, after three untimed runs of
// each) and returns each one's times in microseconds, sorted.
func (g *GroupedRun) TimeAB(reps int, baseline func() error) (kernel, base []float64, err error) {
	run := func() error { return g.plan.Launch() }
	fns := []func() error{run}
	if baseline != nil {
		fns = append(fns, baseline)
	}
	for _, f := range fns {
		for range 3 {
			if err := f(); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := g.plan.Sync(syncTimeout); err != nil {
		return nil, nil, err
	}
	times := make([][]float64, len(fns))
	for range reps {
		for i, f := range fns {
			t, err := timeFunc(g.env, g.plan, f)
			if err != nil {
				return nil, nil, err
			}
			times[i] = append(times[i], t)
		}
	}
	for _, ts := range times {
		slices.Sort(ts)
	}
	if baseline == nil {
		return times[0], nil, nil
	}
	return times[0], times[1], nil
}

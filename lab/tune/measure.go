package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/lab/mlp"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// MeasureEnv is what a worker needs on its GPU: the verification
// environment (context, device, toolchain) and the benchmark environment
// (the same context and the baseline).
type MeasureEnv struct {
	Check *check.Env
	Bench *bench.Env
	// SwiGLU is the forward elementwise kernel, the second half of
	// fwd_gateup's baseline (after Bench's cuBLAS); needed only to
	// measure fwd_gateup.
	SwiGLU *mlp.SwiGLU
}

// MeasureOptions tune one worker's measurement.
type MeasureOptions struct {
	// VerifyShapes are checked against the float64 reference before
	// anything is timed; default VerifyShapes().
	VerifyShapes []tiling.Shape
	Bench        bench.Options
	// SyncTimeout bounds each wait for the GPU (the kernels also trap by
	// themselves after a few seconds stuck on a barrier); default 20 s.
	SyncTimeout time.Duration
	// ProbeReps is the number of launches timed for the early-stop check;
	// default 5.
	ProbeReps int
}

// VerifyShapes is the one small ragged shape every candidate must pass
// before it is timed: M, K and I all off the tile grid, several tiles per
// CTA, and small enough for the CPU float64 reference.
func VerifyShapes() []tiling.Shape { return []tiling.Shape{{M: 333, K: 392, I: 328}} }

// Classify maps a worker-side error to a candidate Status: a GPU wait
// that timed out is StatusTimeout, a compile or build-check failure
// (launch.CompileError) StatusCompile, anything else (driver errors,
// traps) StatusFault.
func Classify(err error) Status {
	var te *cu.TimeoutError
	var ce *launch.CompileError
	switch {
	case errors.As(err, &te):
		return StatusTimeout
	case errors.As(err, &ce):
		return StatusCompile
	}
	return StatusFault
}

// finite returns v, or 0 for NaN and ±Inf (JSON has no encoding for them;
// the failure is spelled out in the result's Error instead).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Measurable reports whether Measure can time kernels of kind k.
func Measurable(k tiling.Kernel) bool {
	s, ok := tiling.KindOf(k)
	return ok && s.Tunable
}

// Measure runs one job on the worker's GPU: build and load (a build cache
// hit after the parent's Prepare), verify on o.VerifyShapes against the
// float64 reference (check.Verify, which picks the kind's check), measure
// the ceilings if the job has none, probe a few launches at the tuned
// shape for the early stop (not for a gemm), then time it against its
// baseline in the same run and check its output against the baseline's:
// bench.BenchBwd (cuBLAS dout GEMM + dSwiGLU elementwise),
// mlp.BenchFwdGateUp (cuBLAS de GEMM + SwiGLU elementwise) or
// bench.BenchGemm (cuBLAS). It never panics on a bad candidate: every
// failure is a Status with its reason.
func Measure(ctx context.Context, env *MeasureEnv, j Job, o MeasureOptions) Output {
	if len(o.VerifyShapes) == 0 {
		o.VerifyShapes = VerifyShapes()
	}
	if o.SyncTimeout == 0 {
		o.SyncTimeout = 20 * time.Second
	}
	if o.ProbeReps == 0 {
		o.ProbeReps = 5
	}
	if o.Bench.Timeout == 0 {
		o.Bench.Timeout = o.SyncTimeout
	}
	start := time.Now()
	out := Output{Result: Result{Config: j.Name(), Device: j.Device}, Ceilings: j.Ceilings}
	fail := func(st Status, format string, a ...any) Output {
		out.Status = st
		out.Error = fmt.Sprintf(format, a...)
		out.WallS = time.Since(start).Seconds()
		return out
	}
	failErr := func(step string, err error) Output {
		return fail(Classify(err), "%s: %v", step, err)
	}
	mark := time.Now()
	phase := func(name string) {
		now := time.Now()
		out.Phases = append(out.Phases, Phase{Name: name, S: now.Sub(mark).Seconds()})
		mark = now
	}
	kind := j.Config.Kernel
	if !Measurable(kind) {
		return fail(StatusCompile, "tune measures %s, not %s", tiling.Words(tiling.TunableKinds()), kind)
	}
	if elementwiseOf(kind) == "swiglu" && env.SwiGLU == nil {
		return fail(StatusFault, "fwd_gateup: the worker has no SwiGLU elementwise kernel (the baseline's second half)")
	}

	k, _, err := check.BuildAndLoadProbe(ctx, env.Check, j.Config, j.Probe)
	if err != nil {
		return failErr("build/load", err)
	}
	defer k.Close()
	phase("build")

	worst := 0.0
	for _, r := range check.Verify(env.Check, k, o.VerifyShapes, check.Options{Timeout: o.SyncTimeout, Seed: 1}) {
		if r.Err != nil {
			return failErr(fmt.Sprintf("verify %s", r.Shape), r.Err)
		}
		for _, x := range r.Outputs {
			worst = math.Max(worst, x.Stats.RelFrobenius)
			if tol := num.Tol(k.Man.Config.DType); !r.Pass && !x.Stats.OK(tol) {
				out.VerifyErr = finite(worst)
				return fail(StatusWrong, "verify %s vs %s reference: %s %s (tolerance %.0e)", r.Shape, r.Ref, x.Name, x.Stats, tol)
			}
		}
		if !r.Pass {
			return fail(StatusWrong, "verify %s: failed", r.Shape)
		}
	}
	out.VerifyErr = finite(worst)
	phase("verify")

	if !out.Ceilings.Known() {
		c, err := bench.MeasureCeilings(env.Bench, j.Config.DType, o.Bench)
		if err != nil {
			return failErr("measure ceilings", err)
		}
		out.Ceilings = c
		phase("ceilings")
	}

	if kind.Grouped() {
		// No early-stop probe: the space is small and a grouped launch short.
		reps := o.Bench.Reps
		if reps <= 0 {
			reps = bench.Options{}.WithDefaults().Reps
		}
		g, err := measureGrouped(env, k, j, reps)
		if err != nil {
			return failErr("bench", err)
		}
		phase("bench")
		out.US, out.P20US, out.P80US, out.BaselineUS = g.US, g.P20US, g.P80US, g.BaselineUS
		out.Status = StatusOK
		out.WallS = time.Since(start).Seconds()
		return out
	}
	if kind == tiling.PlainGEMM() {
		// A gemm's shape is M, K and N (in I's place); its baseline is
		// cuBLAS on the same layouts. No probe: a gemm run is short.
		rep, err := bench.BenchGemm(env.Bench, k, j.Shape.M, j.Shape.I, j.Shape.K,
			out.Ceilings, o.Bench)
		if rep != nil {
			sw, cb := rep.Rows[0].T, rep.Rows[1].T
			out.US, out.P20US, out.P80US = sw.Median, sw.P20, sw.P80
			out.BaselineUS = cb.Median
			out.RelErr = finite(rep.RelErr)
		}
		if err != nil {
			if rep != nil {
				return fail(StatusWrong, "bench: %v", err)
			}
			return failErr("bench", err)
		}
		out.Status = StatusOK
		out.WallS = time.Since(start).Seconds()
		return out
	}

	if j.BestUS > 0 && j.SlowFactor > 1 {
		samples, err := probe(env.Check.Ctx, k, j.Shape, o.ProbeReps, o.SyncTimeout)
		if err != nil {
			return failErr("probe", err)
		}
		phase("probe")
		if EarlyStop(samples, j.BestUS, j.SlowFactor) {
			out.US = minOf(samples)
			return fail(StatusSlow, "first %d launches took >= %.1f us, at least %gx the best so far (%.1f us); stopped early",
				len(samples), out.US, j.SlowFactor, j.BestUS)
		}
	}

	ceil := out.Ceilings
	var rows []bench.Row
	var relErr float64
	var warnings []string
	if elementwiseOf(kind) == "swiglu" {
		menv := &mlp.Env{Ctx: env.Bench.Ctx, Dev: env.Bench.Dev, BLAS: env.Bench.Base.BLAS, SwiGLU: env.SwiGLU, Cmp: env.Bench.Cmp}
		rep, err := mlp.BenchFwdGateUp(menv, k, j.Shape, ceil, o.Bench)
		if err != nil {
			return failErr("bench", err)
		}
		rows, relErr, warnings = rep.Rows, rep.RelErr, rep.Warnings
	} else {
		rep, err := bench.BenchBwd(env.Bench, k, j.Shape, ceil, o.Bench)
		if err != nil {
			return failErr("bench", err)
		}
		rows, relErr, warnings = rep.Rows, rep.RelErr, rep.Warnings
	}
	phase("bench")
	fused, baseline := rows[0].T, rows[1].T
	out.US, out.P20US, out.P80US = fused.Median, fused.P20, fused.P80
	out.BaselineUS = baseline.Median
	out.RelErr = finite(relErr)
	if tol := num.Tol(k.Man.Config.DType); len(warnings) > 0 || !(relErr <= tol) {
		return fail(StatusWrong, "output at %s differs from the baseline's: rel err %.3g (tolerance %.0e) %v",
			j.Shape, relErr, tol, warnings)
	}
	out.Status = StatusOK
	out.WallS = time.Since(start).Seconds()
	return out
}

// probe launches k (bwd_dswiglu or fwd_gateup) at shape s twice to warm
// up, then reps times bracketed by events, and returns the per-launch
// times in µs. The inputs are constant (not random): the probe only has
// to tell "hopeless" from "maybe", and the full timing that follows uses
// random data.
func probe(ctx *cu.Context, k *launch.Kernel, s tiling.Shape, reps int, timeout time.Duration) ([]float64, error) {
	cfg := k.Man.Config
	M, K, I := s.M, s.K, s.I
	var ptrs []cu.DevicePtr
	defer func() {
		for _, p := range ptrs {
			ctx.MemFree(p)
		}
	}()
	alloc := func(elems int, v uint16) (cu.DevicePtr, error) {
		bytes := elems * cfg.DType.Size()
		p, err := ctx.MemAlloc(uint64(bytes))
		if err != nil {
			return 0, fmt.Errorf("allocate %d bytes: %w", bytes, err)
		}
		ptrs = append(ptrs, p)
		return p, ctx.MemsetD16(p, v, uint64(elems))
	}
	one := num.Encode(cfg.DType, []float32{0.5})
	v := uint16(one[0]) | uint16(one[1])<<8
	type buf struct {
		p *cu.DevicePtr
		n int
	}
	allocAll := func(bufs []buf) error {
		for _, x := range bufs {
			var err error
			if *x.p, err = alloc(x.n, v); err != nil {
				return err
			}
		}
		return nil
	}
	var plan interface {
		Launch() error
		Sync(time.Duration) error
	}
	switch cfg.Kernel {
	case tiling.KernelBwdDSwiGLU:
		a := launch.BwdArgs{M: M, K: K, I: I}
		bufs := []buf{{&a.Dy, M * K}, {&a.WDown, I * K}, {&a.De, M * 2 * I}, {&a.GradDe, M * 2 * I}}
		if cfg.StoreOut {
			bufs = append(bufs, buf{&a.Out, M * I})
		}
		if err := allocAll(bufs); err != nil {
			return nil, err
		}
		p, err := k.Plan(a)
		if err != nil {
			return nil, err
		}
		plan = p
	case tiling.KernelFwdGateUp:
		a := launch.FwdGateUpArgs{M: M, K: K, I: I}
		bufs := []buf{{&a.X, M * K}, {&a.W, 2 * I * K}, {&a.Out, M * I}}
		if cfg.StoreOut {
			bufs = append(bufs, buf{&a.De, M * 2 * I})
		}
		if err := allocAll(bufs); err != nil {
			return nil, err
		}
		p, err := k.Plan(a)
		if err != nil {
			return nil, err
		}
		plan = p
	default:
		return nil, fmt.Errorf("tune: probe: no probe for %s kernels", cfg.Kernel)
	}
	for i := 0; i < 2; i++ {
		if err := plan.Launch(); err != nil {
			return nil, err
		}
	}
	if err := plan.Sync(timeout); err != nil {
		return nil, err
	}
	return bench.TimeEach(ctx, reps, timeout, k.Man.Name, func(int) error { return plan.Launch() })
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

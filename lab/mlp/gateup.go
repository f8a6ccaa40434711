package mlp

import (
	"errors"
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// FwdGateUpReport is the result of BenchFwdGateUp.
type FwdGateUpReport struct {
	Shape   tiling.Shape
	Config  string
	StoreDe bool // the kernel also wrote de (training)
	Ceil    bench.Ceilings
	FloorUS float64 // the fused kernel's roofline floor (perfmodel.FwdGateUpCost)
	// Rows: swigen, the baseline (cuBLAS + elementwise), and the
	// baseline's two kernels timed alone. The swigen and baseline rows'
	// PctFloor are against FloorUS; each part's against its own floor, as
	// in the step's ledger (Ledger.Rows).
	Rows    []bench.Row
	Speedup float64 // baseline / swigen, by median
	// RelErr is the worst relative Frobenius error of swigen's outputs (out,
	// and de when stored) against the baseline's on the same inputs; +Inf
	// when an element is NaN or was left unwritten.
	RelErr float64
	Sets   int // rotated input sets (L2 cold)
	Grid   int // persistent CTAs launched
	// Unfused is the unfused path's timing when the options' Gemm was
	// set; its two rows follow the baseline's in Rows.
	Unfused  *bench.Unfused
	Warnings []string
}

// BenchFwdGateUp times a loaded fwd_gateup kernel against the unfused
// baseline at shape s: the cuBLAS GEMM de = x @ W on the kernel's operand
// layouts (W [2I,K] for major_b=k, [K,2I] for mn) followed by the SwiGLU
// elementwise kernel out = left*silu(gate). It mirrors bench.BenchBwd:
// inputs random (W scaled by 1/sqrt(K), as in Bench, so gates are O(1)),
// outputs poisoned, rotated over enough sets to keep L2 cold, the variants
// interleaved in rounds, then swigen's outputs compared with the
// baseline's on the same inputs (Warnings when they differ by more than
// the dtype's num.Tol). The costs are the step ledger's
// (perfmodel.FwdGateUpCost and BaselineParts), so the numbers agree with
// Bench's fwd gate-up segment.
// env needs Ctx, Dev, BLAS and SwiGLU.
func BenchFwdGateUp(env *Env, k *launch.Kernel, s tiling.Shape, ceil bench.Ceilings, o bench.Options) (*FwdGateUpReport, error) {
	o = o.WithDefaults()
	if env == nil || env.Ctx == nil || env.BLAS == nil || env.SwiGLU == nil {
		return nil, errors.New("mlp: bench fwd_gateup: context, cuBLAS or the SwiGLU elementwise kernel missing")
	}
	cfg := k.Man.Config
	if cfg.Kernel != tiling.KernelFwdGateUp {
		return nil, fmt.Errorf("mlp: bench fwd_gateup: %s is a %s kernel", k.Man.Name, cfg.Kernel)
	}
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	if err := launch.CheckShape(cfg, launch.FwdGateUpArgs{M: M, K: K, I: I}); err != nil {
		return nil, err
	}
	ctx := env.Ctx
	cost := perfmodel.FwdGateUpCost(s, cfg.StoreOut)
	parts := perfmodel.BaselineParts(FwdGateUp, s, false)
	// x, W; swigen's out (+ de); the baseline's de and out.
	el := dt.Size()
	setBytes := el * (M*K + 2*I*K + M*I + 2*M*I + M*I)
	if cfg.StoreOut {
		setBytes += el * 2 * M * I
	}
	if o.Gemm != nil {
		setBytes += el * 3 * M * I
	}
	sets, err := bench.RotatedSets(env.Dev, setBytes, 16)
	if err != nil {
		return nil, err
	}

	b := ctx.NewBuffers()
	defer b.Free()
	fx, err := bench.NewFiller(ctx, b, dt, o.Seed, 1)
	if err != nil {
		return nil, err
	}
	fw, err := bench.NewFiller(ctx, b, dt, o.Seed+1, 1/math.Sqrt(float64(K)))
	if err != nil {
		return nil, err
	}
	type set struct{ x, w, de, out, bde, bout, ude, uout cu.DevicePtr }
	ss := make([]set, sets)
	for i := range ss {
		x := &ss[i]
		if err := bench.AllocBufs(ctx, b, fx, dt, []bench.Buf{{P: &x.x, N: M * K * el, Input: true}}); err != nil {
			return nil, err
		}
		rest := []bench.Buf{
			{P: &x.w, N: 2 * I * K * el, Input: true},
			{P: &x.out, N: M * I * el}, {P: &x.bde, N: M * 2 * I * el}, {P: &x.bout, N: M * I * el},
		}
		if cfg.StoreOut {
			rest = append(rest, bench.Buf{P: &x.de, N: M * 2 * I * el})
		}
		if o.Gemm != nil {
			rest = append(rest, bench.Buf{P: &x.ude, N: M * 2 * I * el}, bench.Buf{P: &x.uout, N: M * I * el})
		}
		if err := bench.AllocBufs(ctx, b, fw, dt, rest); err != nil {
			return nil, err
		}
	}
	plans := make([]*launch.Plan, sets)
	for i, x := range ss {
		if plans[i], err = k.Plan(launch.FwdGateUpArgs{M: M, K: K, I: I, X: x.x, W: x.w, De: x.de, Out: x.out}); err != nil {
			return nil, err
		}
	}
	// cuBLAS's transB: W [2I,K] (major_b=k) is B stored [N,K].
	transB := cfg.MajorB == tiling.KMajor
	fused := &variant{what: k.Man.Name, f: func(rep int) error { return plans[rep%sets].Launch() }}
	gemm := &variant{what: parts[0].Name, f: func(rep int) error {
		x := ss[rep%sets]
		return env.BLAS.GemmRowMajor(dt, transB, M, 2*I, K, x.x, x.w, x.bde, nil)
	}}
	ew := &variant{what: parts[1].Name, f: func(rep int) error {
		x := ss[rep%sets]
		return env.SwiGLU.Run(dt, M, I, x.bde, x.bout, nil)
	}}
	both := &variant{what: "baseline", f: func(rep int) error {
		if err := gemm.f(rep); err != nil {
			return err
		}
		return ew.f(rep)
	}}
	vs := []*variant{fused, both, gemm, ew}
	var unfused *variant
	if o.Gemm != nil {
		ug, err := bench.UnfusedGemm(o.Gemm, ss, func(x set) launch.GemmArgs {
			return launch.GemmArgs{M: M, N: 2 * I, K: K, A: x.x, B: x.w, C: x.ude}
		})
		if err != nil {
			return nil, err
		}
		u, err := launch.NewUnfused(cfg, o.Gemm, env.SwiGLU.Module())
		if err != nil {
			return nil, err
		}
		uf, err := bench.UnfusedPlans(u, ss, func(x set) launch.Args {
			a := launch.FwdGateUpArgs{M: M, K: K, I: I, X: x.x, W: x.w, Out: x.uout, Workspace: x.ude}
			if cfg.StoreOut { // training: de is the path's output
				a.De, a.Workspace = x.ude, 0
			}
			return a
		})
		if err != nil {
			return nil, err
		}
		unfused = &variant{what: "unfused", f: uf}
		vs = append(vs, unfused, &variant{what: "swigen gemm", f: ug})
	}
	mo := Options{Reps: o.Reps, Warmup: o.Warmup, Timeout: o.Timeout}
	mo.defaults()
	if err := timeInterleaved(ctx, mo, vs); err != nil {
		return nil, err
	}

	rep := &FwdGateUpReport{Shape: s, Config: k.Man.Name, StoreDe: cfg.StoreOut, Ceil: ceil,
		FloorUS: FloorUS(cost, ceil), Sets: sets, Grid: plans[0].Grid()}
	row := func(name string, p Part, floor float64, us []float64) bench.Row {
		st := bench.Quantiles(us)
		r := bench.Row{Name: name, FLOPs: p.FLOPs, Bytes: p.Bytes, T: st}
		if st.Median > 0 {
			r.TFLOPs, r.GBs, r.PctFloor = perfmodel.TFLOPs(p.FLOPs, st.Median), perfmodel.GBs(p.Bytes, st.Median), perfmodel.PctOfFloor(floor, st.Median)
		}
		return r
	}
	baseCost := Part{Name: "baseline (cuBLAS + elementwise)", FLOPs: cost.FLOPs}
	for _, p := range parts {
		baseCost.Bytes += p.Bytes
	}
	rep.Rows = []bench.Row{
		row("swigen "+k.Man.Name, cost, rep.FloorUS, fused.us),
		row(baseCost.Name, baseCost, rep.FloorUS, both.us),
		row("  "+parts[0].Name, parts[0], FloorUS(parts[0], ceil), gemm.us),
		row("  "+parts[1].Name, parts[1], FloorUS(parts[1], ceil), ew.us),
	}
	rep.Speedup = rep.Rows[1].T.Median / rep.Rows[0].T.Median
	if unfused != nil {
		// The unfused path moves what the baseline does.
		rep.Rows = append(rep.Rows, row("swigen unfused (gemm + elementwise)", baseCost, rep.FloorUS, unfused.us),
			row("  swigen gemm "+o.Gemm.Man.Name, parts[0], FloorUS(parts[0], ceil), vs[5].us))
		rep.Unfused = &bench.Unfused{Gemm: o.Gemm.Man.Name, US: rep.Rows[4].T.Median, GemmUS: rep.Rows[5].T.Median}
	}

	// Same inputs, both paths: the baseline first, then swigen into freshly
	// poisoned outputs, so an element it leaves unwritten fails.
	x := ss[0]
	type pair struct {
		name      string
		got, want cu.DevicePtr
		elems     int
	}
	outs := []pair{{"out", x.out, x.bout, M * I}}
	if cfg.StoreOut {
		outs = append(outs, pair{"de", x.de, x.bde, M * 2 * I})
	}
	uouts := []pair{{"out", x.uout, x.bout, M * I}, {"de", x.ude, x.bde, M * 2 * I}}
	if unfused == nil {
		uouts = nil
	}
	for _, c := range append(outs, uouts...) {
		if err := ctx.MemsetD16(c.got, num.Poison(dt), uint64(c.elems)); err != nil {
			return nil, err
		}
	}
	if err := both.f(0); err != nil {
		return nil, err
	}
	if err := fused.f(0); err != nil {
		return nil, err
	}
	if unfused != nil {
		if err := unfused.f(0); err != nil {
			return nil, err
		}
	}
	if err := ctx.Synchronize(o.Timeout, k.Man.Name); err != nil {
		return nil, err
	}
	for _, c := range outs {
		st, err := bench.CompareOutputs(ctx, env.Cmp, dt, c.got, c.want, c.elems, o.Timeout)
		if err != nil {
			return nil, err
		}
		rep.RelErr = math.Max(rep.RelErr, st.RelOrInf())
		if !st.OK(num.Tol(dt)) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("fused %s differs from the baseline's: %s", c.name, st))
		}
	}
	for _, c := range uouts {
		st, err := bench.CompareOutputs(ctx, env.Cmp, dt, c.got, c.want, c.elems, o.Timeout)
		if err != nil {
			return nil, err
		}
		rep.Unfused.RelErr = math.Max(rep.Unfused.RelErr, st.RelOrInf())
		if !st.OK(num.Tol(dt)) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("unfused %s differs from the baseline's: %s", c.name, st))
		}
	}
	return rep, nil
}

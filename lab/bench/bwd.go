// Package bench times swigen kernels against their baselines in the same
// run, with the machine's two ceilings (GEMM rate, copy bandwidth) measured
// alongside, so every number comes with its roofline floor.
package bench

import (
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Options tune a benchmark run.
type Options struct {
	Reps    int           // timed repetitions per variant (>= 20)
	Warmup  time.Duration // warm-up by time before timing
	Timeout time.Duration // per synchronisation
	Seed    uint64
	// Gemm, when set, is the unfused path's gemm kernel
	// (tiling.UnfusedGemm): the unfused path, it and then the
	// elementwise kernel, is timed in the same rounds as the fused
	// kernel and the baseline, and its output compared with the
	// baseline's (the report's Unfused).
	Gemm *launch.Kernel
}

// WithDefaults returns o with its zero fields set to the defaults every
// benchmark of this package uses (for benchmarks built on it elsewhere).
func (o Options) WithDefaults() Options {
	o.defaults()
	return o
}

func (o *Options) defaults() {
	if o.Reps < 20 {
		o.Reps = 20
	}
	if o.Warmup == 0 {
		o.Warmup = 300 * time.Millisecond
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
}

// Stats are the quantiles of one timed variant, in microseconds.
type Stats struct {
	Median, P20, P80 float64
	N                int
}

// Ceilings are the machine's measured GEMM rate and copy bandwidth
// (perfmodel, their one owner).
type Ceilings = perfmodel.Ceilings

// Row is one line of the ledger.
type Row struct {
	Name     string
	FLOPs    float64
	Bytes    float64
	T        Stats
	TFLOPs   float64
	GBs      float64
	PctFloor float64 // floor / time
}

// BwdReport is the result of BenchBwd.
type BwdReport struct {
	Shape   tiling.Shape
	Config  string
	Ceil    Ceilings
	FloorUS float64
	Rows    []Row // swigen, baseline total, baseline GEMM, baseline elementwise
	Speedup float64
	RelErr  float64 // swigen grad_de vs the baseline's, same inputs
	Sets    int     // rotated input sets (L2 cold)
	Grid    int     // persistent CTAs launched
	// Unfused is the unfused path's timing when Options.Gemm was set;
	// its two rows follow the baseline's in Rows.
	Unfused  *Unfused
	Warnings []string
}

// Unfused is the timing of a kind's unfused path: swigen's gemm kernel
// writing the intermediate, then the elementwise kernel, timed in the same
// rounds as the fused kernel and the baseline.
type Unfused struct {
	Gemm   string  // the gemm config
	US     float64 // the path's median
	GemmUS float64 // the gemm kernel's alone
	RelErr float64 // its output against the baseline's (+Inf: NaN or unwritten)
}

// Path is the path the measurement says to take (tiling.PlanMeasure).
func (u *Unfused) Path(fusedUS float64) tiling.Path {
	return tiling.PlanMeasure{FusedUS: fusedUS, UnfusedUS: u.US}.Path()
}

// Env is what a benchmark needs.
type Env struct {
	Ctx  *cu.Context
	Dev  cu.Device
	Base baseline.Bwd
	// Cmp, when set, compares outputs on the GPU (CompareOutputs).
	Cmp *Comparer
}

// MeasureCeilings times a cuBLAS 8192^3 GEMM and a 1 GiB device copy.
func MeasureCeilings(env *Env, dt tiling.DType, o Options) (Ceilings, error) {
	o.defaults()
	b := env.Ctx.NewBuffers()
	defer b.Free()
	const n = 8192
	fl, err := NewFiller(env.Ctx, b, dt, o.Seed+99, 1)
	if err != nil {
		return Ceilings{}, err
	}
	var ab [3]cu.DevicePtr
	for i := range ab {
		if ab[i], err = b.Alloc(n * n * dt.Size()); err != nil {
			return Ceilings{}, err
		}
		if i < 2 {
			if err := fl.Fill(ab[i], n*n*dt.Size()); err != nil {
				return Ceilings{}, err
			}
		}
	}
	gemm := func(int) error {
		return env.Base.BLAS.GemmRowMajor(dt, true, n, n, n, ab[0], ab[1], ab[2], nil)
	}
	if err := Warm(env.Ctx, o.Warmup, o.Timeout, "cuBLAS 8192^3", gemm); err != nil {
		return Ceilings{}, err
	}
	us, err := TimeEach(env.Ctx, o.Reps, o.Timeout, "cuBLAS 8192^3", gemm)
	if err != nil {
		return Ceilings{}, err
	}
	c := Ceilings{GemmTFLOPs: perfmodel.TFLOPs(2*n*n*n, Quantiles(us).Median)}
	const cb = 1 << 30
	src, err := b.Alloc(cb)
	if err != nil {
		return c, err
	}
	dst, err := b.Alloc(cb)
	if err != nil {
		return c, err
	}
	if err := fl.Fill(src, cb); err != nil {
		return c, err
	}
	cp := func(int) error { return env.Ctx.MemcpyDtoD(dst, src, cb) }
	if err := Warm(env.Ctx, o.Warmup/2, o.Timeout, "device copy", cp); err != nil {
		return c, err
	}
	us, err = TimeEach(env.Ctx, o.Reps, o.Timeout, "device copy", cp)
	if err != nil {
		return c, err
	}
	c.CopyGBs = perfmodel.GBs(2*cb, Quantiles(us).Median)
	return c, nil
}

// NewFiller uploads a 32 MB block of random normal dt values (seeded, of
// standard deviation scale) into b and returns a Filler that copies from
// it.
func NewFiller(ctx *cu.Context, b *cu.Buffers, dt tiling.DType, seed uint64, scale float64) (*Filler, error) {
	raw := randomBlock(dt, seed, scale)
	p, err := b.Alloc(len(raw))
	if err != nil {
		return nil, err
	}
	if err := ctx.MemcpyHtoD(p, raw); err != nil {
		return nil, err
	}
	return &Filler{Ctx: ctx, Src: p, Size: len(raw)}, nil
}

// BenchBwd times a loaded bwd_dswiglu kernel against the baseline (cuBLAS
// dout GEMM + the elementwise kernel) at shape s, with inputs rotated over
// enough sets to keep L2 cold, and compares their outputs.
func BenchBwd(env *Env, k *launch.Kernel, s tiling.Shape, ceil Ceilings, o Options) (*BwdReport, error) {
	o.defaults()
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	if err := launch.CheckShape(cfg, launch.BwdArgs{M: M, K: K, I: I}); err != nil {
		return nil, err
	}
	flops, minBytes := perfmodel.BwdCost(s, cfg.StoreOut)
	setBytes := dt.Size() * (M*K + I*K + 2*M*I + 2*M*I + M*I + 2*M*I)
	sets, err := RotatedSets(env.Dev, setBytes, 16)
	if err != nil {
		return nil, err
	}

	b := env.Ctx.NewBuffers()
	defer b.Free()
	fl, err := NewFiller(env.Ctx, b, dt, o.Seed, 1)
	if err != nil {
		return nil, err
	}
	type set struct{ dy, w, de, gde, dout, out, bgde, ugde cu.DevicePtr }
	ss := make([]set, sets)
	for i := range ss {
		x := &ss[i]
		el := dt.Size()
		if err := AllocBufs(env.Ctx, b, fl, dt, []Buf{
			{&x.dy, M * K * el, true}, {&x.w, I * K * el, true}, {&x.de, M * 2 * I * el, true},
			{&x.gde, M * 2 * I * el, false}, {&x.dout, M * I * el, false}, {&x.out, M * I * el, false},
			{&x.bgde, M * 2 * I * el, false}, {&x.ugde, M * 2 * I * el, false},
		}); err != nil {
			return nil, err
		}
	}
	plans := make([]*launch.Plan, sets)
	for i, x := range ss {
		if plans[i], err = k.Plan(launch.BwdArgs{M: M, K: K, I: I, Dy: x.dy, WDown: x.w, De: x.de, GradDe: x.gde, Out: x.out}); err != nil {
			return nil, err
		}
	}
	mn := cfg.MajorB == tiling.MNMajor
	fused := func(rep int) error { return plans[rep%sets].Launch() }
	gemm := func(rep int) error {
		x := ss[rep%sets]
		return env.Base.BLAS.GemmRowMajor(dt, !mn, M, I, K, x.dy, x.w, x.dout, nil)
	}
	ew := func(rep int) error {
		x := ss[rep%sets]
		var out cu.DevicePtr
		if cfg.StoreOut {
			out = x.out
		}
		return env.Base.EW.Run(dt, M, I, x.dout, x.de, x.bgde, out, nil)
	}
	both := func(rep int) error {
		if err := gemm(rep); err != nil {
			return err
		}
		return ew(rep)
	}
	name := k.Man.Name
	type timed struct {
		f    func(int) error
		what string
		us   []float64
	}
	vs := []*timed{{f: fused, what: name}, {f: both, what: "baseline"}, {f: gemm, what: "cuBLAS GEMM"}, {f: ew, what: "elementwise"}}
	var unfused func(int) error
	if o.Gemm != nil {
		ug, err := UnfusedGemm(o.Gemm, ss, func(x set) launch.GemmArgs {
			return launch.GemmArgs{M: M, N: I, K: K, A: x.dy, B: x.w, C: x.dout}
		})
		if err != nil {
			return nil, err
		}
		u, err := launch.NewUnfused(cfg, o.Gemm, env.Base.EW.Module())
		if err != nil {
			return nil, err
		}
		if unfused, err = UnfusedPlans(u, ss, func(x set) launch.Args {
			a := launch.BwdArgs{M: M, K: K, I: I, Dy: x.dy, WDown: x.w, De: x.de, GradDe: x.ugde, Workspace: x.dout}
			if cfg.StoreOut {
				a.Out = x.out
			}
			return a
		}); err != nil {
			return nil, err
		}
		vs = append(vs, &timed{f: unfused, what: "unfused"}, &timed{f: ug, what: "swigen gemm"})
	}
	for _, v := range vs[:2] {
		if err := Warm(env.Ctx, o.Warmup, o.Timeout, v.what, v.f); err != nil {
			return nil, err
		}
	}
	if unfused != nil {
		if err := Warm(env.Ctx, o.Warmup, o.Timeout, "unfused", unfused); err != nil {
			return nil, err
		}
	}
	// Interleave the variants in rounds so clocks and temperature drift
	// alike for all of them.
	rounds := 4
	per := (o.Reps + rounds - 1) / rounds
	for r := 0; r < rounds; r++ {
		for _, v := range vs {
			us, err := TimeEach(env.Ctx, per, o.Timeout, v.what, v.f)
			if err != nil {
				return nil, err
			}
			v.us = append(v.us, us...)
		}
	}
	tf, tb, tg, te := vs[0].us, vs[1].us, vs[2].us, vs[3].us
	rep := &BwdReport{Shape: s, Config: name, Ceil: ceil, Sets: sets, Grid: plans[0].Grid()}
	rep.FloorUS = ceil.FloorUS(flops, minBytes)
	mk := func(n string, fl, by float64, us []float64) Row {
		st := Quantiles(us)
		r := Row{Name: n, FLOPs: fl, Bytes: by, T: st}
		r.TFLOPs = perfmodel.TFLOPs(fl, st.Median)
		r.GBs = perfmodel.GBs(by, st.Median)
		r.PctFloor = perfmodel.PctOfFloor(rep.FloorUS, st.Median)
		return r
	}
	// The baseline's parts (out never stored by them) and dout's round
	// trip through HBM, which the fused kernel saves.
	parts := perfmodel.BaselineParts(perfmodel.BwdDSwiGLU, s, false)
	gemmBytes, ewBytes := parts[0].Bytes, parts[1].Bytes
	doutBytes := float64(dt.Size()) * float64(M*I)
	rep.Rows = []Row{
		mk("swigen "+name, flops, minBytes, tf),
		mk("baseline (cuBLAS + elementwise)", flops, minBytes+2*doutBytes, tb),
		mk("  cuBLAS dout GEMM", flops, gemmBytes, tg),
		mk("  elementwise dSwiGLU", 0, ewBytes, te),
	}
	rep.Speedup = rep.Rows[1].T.Median / rep.Rows[0].T.Median
	if unfused != nil {
		rep.Rows = append(rep.Rows, mk("swigen unfused (gemm + elementwise)", flops, minBytes+2*doutBytes, vs[4].us),
			mk("  swigen gemm "+o.Gemm.Man.Name, flops, gemmBytes, vs[5].us))
		rep.Unfused = &Unfused{Gemm: o.Gemm.Man.Name, US: rep.Rows[4].T.Median, GemmUS: rep.Rows[5].T.Median}
	}

	// Same inputs, both paths: compare the fused output with the baseline's.
	x := ss[0]
	if err := fused(0); err != nil {
		return nil, err
	}
	if err := both(0); err != nil {
		return nil, err
	}
	if err := env.Ctx.Synchronize(o.Timeout, name); err != nil {
		return nil, err
	}
	st, err := CompareOutputs(env.Ctx, env.Cmp, dt, x.gde, x.bgde, M*2*I, o.Timeout)
	if err != nil {
		return nil, err
	}
	rep.RelErr = st.RelFrobenius
	if !st.OK(num.Tol(dt)) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("fused output differs from the baseline: %s", st))
	}
	if unfused != nil {
		// Into freshly poisoned grad_de: an element the path leaves
		// unwritten fails.
		if err := env.Ctx.MemsetD16(x.ugde, num.Poison(dt), uint64(M*2*I)); err != nil {
			return nil, err
		}
		if err := unfused(0); err != nil {
			return nil, err
		}
		if err := env.Ctx.Synchronize(o.Timeout, "unfused"); err != nil {
			return nil, err
		}
		st, err := CompareOutputs(env.Ctx, env.Cmp, dt, x.ugde, x.bgde, M*2*I, o.Timeout)
		if err != nil {
			return nil, err
		}
		rep.Unfused.RelErr = st.RelOrInf()
		if !st.OK(num.Tol(dt)) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("unfused output differs from the baseline: %s", st))
		}
	}
	return rep, nil
}

// UnfusedPlans plans the unfused path u (launch.Unfused, what a
// dispatched call runs) on every input set (args gives the set's
// arguments, its workspace included) and returns the launch of set
// rep % len(sets).
func UnfusedPlans[S any](u *launch.Unfused, sets []S, args func(S) launch.Args) (func(int) error, error) {
	plans := make([]*launch.UnfusedPlan, len(sets))
	for i, x := range sets {
		p, err := u.Plan(args(x))
		if err != nil {
			return nil, fmt.Errorf("bench: unfused path: %w", err)
		}
		plans[i] = p
	}
	return func(rep int) error { return plans[rep%len(plans)].Launch() }, nil
}

// UnfusedGemm plans the unfused path's gemm kernel g on every input
// set (args gives the set's GemmArgs) and returns the launch of set
// rep % len(sets).
func UnfusedGemm[S any](g *launch.Kernel, sets []S, args func(S) launch.GemmArgs) (func(int) error, error) {
	if g.Man.Config.Kernel != tiling.PlainGEMM() {
		return nil, fmt.Errorf("bench: unfused path: %s is not a gemm kernel", g.Man.Name)
	}
	plans := make([]*launch.Plan, len(sets))
	for i, x := range sets {
		p, err := g.Plan(args(x))
		if err != nil {
			return nil, fmt.Errorf("bench: unfused path: %w", err)
		}
		plans[i] = p
	}
	return func(rep int) error { return plans[rep%len(plans)].Launch() }, nil
}

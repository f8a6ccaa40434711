package mlp

import (
	"errors"
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// maxSets bounds the rotated input sets (each is a whole step's tensors).
const maxSets = 8

// Bench times the whole training step at sh: every segment's swigen
// kernel (sw may be nil: baseline only) and baseline, interleaved in the
// same run on rotated input sets (L2 cold), checks swigen's outputs
// against the baseline's on the same inputs, picks the faster correct
// implementation per segment and times the whole step end to end with
// those choices and all-baseline.
func Bench(env *Env, sw *Swigen, sh tiling.Shape, ceil bench.Ceilings, o Options) (*Ledger, error) {
	o.defaults()
	if err := sh.Validate(); err != nil {
		return nil, fmt.Errorf("mlp: bench: %w", err)
	}
	if env == nil || env.Ctx == nil || env.BLAS == nil || env.DSwiGLU == nil || env.SwiGLU == nil {
		return nil, errors.New("mlp: bench: context, cuBLAS or an elementwise kernel missing")
	}
	ctx, dt := env.Ctx, o.DType
	setBytes := SetBytes(sh, dt)
	sets, err := bench.RotatedSets(env.Dev, setBytes, maxSets)
	if err != nil {
		return nil, err
	}
	if total, err := env.Dev.TotalMem(); err == nil {
		// Leave a quarter of the memory to cuBLAS workspaces and others.
		sets = max(1, min(sets, int(float64(total)*0.75)/setBytes))
	}
	mem := ctx.NewBuffers()
	defer mem.Free()
	fills := map[float64]*bench.Filler{}
	fill := func(d tensor, p cu.DevicePtr, n int) error {
		sc := d.scale(sh)
		f, ok := fills[sc]
		if !ok {
			const elems = 1 << 23
			raw := num.Encode(dt, num.NewRand(o.Seed+uint64(len(fills))).Normal(dt, elems, sc))
			src, err := mem.Alloc(len(raw))
			if err != nil {
				return err
			}
			if err := ctx.MemcpyHtoD(src, raw); err != nil {
				return err
			}
			f = &bench.Filler{Ctx: ctx, Src: src, Size: len(raw)}
			fills[sc] = f
		}
		return f.Fill(p, n)
	}
	ts := make([]*Tensors, sets)
	for i := range ts {
		if ts[i], err = allocSet(ctx, mem, sh, dt, fill); err != nil {
			return nil, err
		}
	}
	// Each segment's inputs are earlier segments' outputs: run the whole
	// baseline step once per set so every buffer holds real values, not
	// poison, before anything is timed.
	for _, t := range ts {
		for _, s := range perfmodel.Segments() {
			if err := seq(env.baselineRun(s, sh, o, t))(); err != nil {
				return nil, err
			}
		}
	}
	if err := ctx.Synchronize(o.Timeout, "baseline step"); err != nil {
		return nil, err
	}

	led := &Ledger{Shape: sh, DType: dt, RecomputeOut: o.RecomputeOut, Ceil: ceil, Sets: sets}
	type segRun struct {
		res   *SegmentResult
		sw    []Launcher // per set; nil when swigen has no kernel
		base  [][]func() error
		swV   *variant
		baseV *variant
		partV []*variant
	}
	runs := make([]*segRun, 0, len(perfmodel.Segments()))
	var vs []*variant
	for _, s := range perfmodel.Segments() {
		cost := perfmodel.Cost(s, sh, o.RecomputeOut)
		r := &segRun{res: &SegmentResult{Seg: s, Cost: cost, FloorUS: FloorUS(cost, ceil), RelErr: -1}}
		parts := perfmodel.BaselineParts(s, sh, o.RecomputeOut)
		for _, t := range ts {
			r.base = append(r.base, env.baselineRun(s, sh, o, t))
		}
		// swigen: one plan per set; the first failure decides.
		for _, t := range ts {
			l, name, err := sw.Plan(s, sh, t)
			if err != nil {
				r.sw = nil
				r.res.SwigenNote = fmt.Sprintf("swigen: none, baseline used (%v)", err)
				if name != "" {
					r.res.SwigenConfig = name
				}
				break
			}
			r.sw = append(r.sw, l)
			r.res.SwigenConfig = name
		}
		if r.sw != nil {
			r.swV = &variant{what: r.res.SwigenConfig, f: func(rep int) error { return r.sw[rep%sets].Launch() }}
			vs = append(vs, r.swV)
		}
		baseName := "baseline (cuBLAS)"
		if len(parts) > 1 {
			baseName = "baseline (cuBLAS + elementwise)"
		}
		r.res.Baseline = Timing{Name: baseName, Part: Part{Name: baseName, FLOPs: cost.FLOPs}}
		for _, p := range parts {
			r.res.Baseline.Bytes += p.Bytes
		}
		r.baseV = &variant{what: s.String() + " baseline", f: func(rep int) error { return seq(r.base[rep%sets])() }}
		vs = append(vs, r.baseV)
		if len(parts) > 1 {
			for i, p := range parts {
				v := &variant{what: p.Name, f: func(rep int) error { return r.base[rep%sets][i]() }}
				r.partV = append(r.partV, v)
				vs = append(vs, v)
				r.res.Parts = append(r.res.Parts, Timing{Name: p.Name, Part: p})
			}
		}
		runs = append(runs, r)
	}
	fmt.Fprintf(o.Progress, "timing %d variants over %d rotated input sets (%.0f MB each)...\n", len(vs), sets, float64(setBytes)/1e6)
	if err := timeInterleaved(ctx, o, vs); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.swV != nil {
			r.res.Swigen = &Timing{Name: r.res.SwigenConfig, Part: r.res.Cost, T: bench.Quantiles(r.swV.us)}
			rel, note, err := compareSegment(env, r.res.Seg, sh, o, ts[0], seq(r.base[0]), r.sw[0].Launch)
			if err != nil {
				return nil, err
			}
			r.res.RelErr = rel
			if note != "" {
				r.res.SwigenNote = note
				led.Warnings = append(led.Warnings, fmt.Sprintf("%s: %s", r.res.Seg, note))
			}
		}
		r.res.Baseline.T = bench.Quantiles(r.baseV.us)
		for i, v := range r.partV {
			r.res.Parts[i].T = bench.Quantiles(v.us)
		}
		r.res.Choose(o.Tol)
	}
	// The whole step end to end, with the choices made above.
	chosen := &variant{what: "step (chosen)", f: func(rep int) error {
		for _, r := range runs {
			var err error
			if r.res.Chosen == ImplSwigen {
				err = r.sw[rep%sets].Launch()
			} else {
				err = seq(r.base[rep%sets])()
			}
			if err != nil {
				return err
			}
		}
		return nil
	}}
	base := &variant{what: "step (baseline)", f: func(rep int) error {
		for _, r := range runs {
			if err := seq(r.base[rep%sets])(); err != nil {
				return err
			}
		}
		return nil
	}}
	if err := timeInterleaved(ctx, o, []*variant{chosen, base}); err != nil {
		return nil, err
	}
	led.StepChosen, led.StepBaseline = bench.Quantiles(chosen.us), bench.Quantiles(base.us)
	for _, r := range runs {
		led.Segs = append(led.Segs, *r.res)
	}
	return led, nil
}

// compareSegment runs the baseline and then swigen on the same inputs and
// returns the worst relative Frobenius error of swigen's outputs against
// the baseline's; the outputs are poisoned before swigen runs, so an
// element it leaves unwritten fails. note is non-empty when they disagree.
func compareSegment(env *Env, s Segment, sh tiling.Shape, o Options, t *Tensors, base, sw func() error) (rel float64, note string, err error) {
	ctx, dt := env.Ctx, o.DType
	if err := base(); err != nil {
		return 0, "", err
	}
	if err := ctx.Synchronize(o.Timeout, s.String()+" baseline"); err != nil {
		return 0, "", err
	}
	outs := Outputs(s, o.RecomputeOut)
	want := make([][]byte, len(outs))
	for i, name := range outs {
		d, err := tensorByName(name)
		if err != nil {
			return 0, "", err
		}
		want[i] = make([]byte, dt.Size()*d.elems(sh))
		if err := ctx.MemcpyDtoH(want[i], *d.ptr(t)); err != nil {
			return 0, "", err
		}
		if err := ctx.MemsetD16(*d.ptr(t), num.Poison(dt), uint64(d.elems(sh))); err != nil {
			return 0, "", err
		}
	}
	if err := sw(); err != nil {
		return 0, "", err
	}
	if err := ctx.Synchronize(o.Timeout, s.String()+" swigen"); err != nil {
		return 0, "", err
	}
	var bad []string
	for i, name := range outs {
		d, _ := tensorByName(name)
		got := make([]byte, len(want[i]))
		if err := ctx.MemcpyDtoH(got, *d.ptr(t)); err != nil {
			return 0, "", err
		}
		st := num.CompareRawBoth(dt, got, want[i])
		rel = math.Max(rel, st.RelOrInf())
		if !st.OK(o.Tol) {
			bad = append(bad, fmt.Sprintf("%s %s", name, st))
		}
	}
	if len(bad) > 0 {
		note = fmt.Sprintf("swigen output differs from the baseline (not chosen): %v", bad)
	}
	return rel, note, nil
}

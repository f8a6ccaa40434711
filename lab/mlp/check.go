package mlp

import (
	"errors"
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// CheckShape is the default shape of Check: ragged against every tile
// (M=200 is no multiple of 64; K=136 and I=264 are multiples of 8 only).
var CheckShape = tiling.Shape{M: 200, K: 136, I: 264}

// OutputCheck is one output of a checked step against the reference.
type OutputCheck struct {
	Name  string
	Stats num.ErrStats
	Pass  bool
}

// CheckResult is one whole step checked against the float64 reference.
type CheckResult struct {
	Shape tiling.Shape
	// Mode is "baseline" (every segment the baseline) or "swigen" (swigen's
	// kernel wherever there is one).
	Mode string
	// Used names the implementation of each segment ("swigen <config>" or
	// "baseline").
	Used    []string
	Outputs []OutputCheck
	Pass    bool
}

// Check runs one full training step at sh on fresh random inputs, twice
// (all-baseline, and with swigen's kernels wherever sw has one), and
// compares y, de, out, grad_de, dW_down, dx and dW with RefStep's float64
// answer (relative Frobenius <= Tol, no NaN, nothing left poisoned). Every
// output is poisoned before the step; with RecomputeOut, out is poisoned
// again between the forward and the backward, so the compared out is the
// one the backward recomputed. The swigen run is skipped when sw has no
// kernel for any segment.
func Check(env *Env, sw *Swigen, sh tiling.Shape, o Options) ([]CheckResult, error) {
	o.defaults()
	if err := sh.Validate(); err != nil {
		return nil, fmt.Errorf("mlp: check: %w", err)
	}
	if env == nil || env.Ctx == nil || env.BLAS == nil || env.DSwiGLU == nil || env.SwiGLU == nil {
		return nil, errors.New("mlp: check: context, cuBLAS or an elementwise kernel missing")
	}
	ctx, dt := env.Ctx, o.DType
	rng := num.NewRand(o.Seed)
	host := map[string][]float32{}
	mem := ctx.NewBuffers()
	defer mem.Free()
	t, err := allocSet(ctx, mem, sh, dt, func(d tensor, p cu.DevicePtr, n int) error {
		v := rng.Normal(dt, d.elems(sh), d.scale(sh))
		host[d.name] = v
		return ctx.MemcpyHtoD(p, num.Encode(dt, v))
	})
	if err != nil {
		return nil, err
	}
	want, err := RefStep(StepProblem{M: sh.M, K: sh.K, I: sh.I,
		X: num.Float64s(host["x"]), W: num.Float64s(host["W"]), WDown: num.Float64s(host["W_down"]), Dy: num.Float64s(host["dy"])})
	if err != nil {
		return nil, err
	}
	wantOf := map[string][]float64{"de": want.De, "out": want.Out, "y": want.Y, "grad_de": want.GradDe,
		"dW_down": want.DWDown, "dx": want.DX, "dW": want.DW}

	type impl struct {
		name string
		run  func() error
	}
	plan := func(useSwigen bool) ([]impl, bool) {
		var out []impl
		any := false
		for _, s := range perfmodel.Segments() {
			if useSwigen {
				if l, name, err := sw.Plan(s, sh, t); err == nil {
					out = append(out, impl{"swigen " + name, l.Launch})
					any = true
					continue
				}
			}
			out = append(out, impl{string(ImplBaseline), seq(env.baselineRun(s, sh, o, t))})
		}
		return out, any
	}
	var res []CheckResult
	for _, mode := range []string{string(ImplBaseline), string(ImplSwigen)} {
		impls, any := plan(mode == string(ImplSwigen))
		if mode == string(ImplSwigen) && !any {
			break
		}
		r := CheckResult{Shape: sh, Mode: mode, Pass: true}
		for _, d := range tensors() {
			if d.scale == nil {
				if err := ctx.MemsetD16(*d.ptr(t), num.Poison(dt), uint64(d.elems(sh))); err != nil {
					return nil, err
				}
			}
		}
		got := map[string][]byte{}
		download := func(names ...string) error {
			if err := ctx.Synchronize(o.Timeout, "mlp step ("+mode+")"); err != nil {
				return err
			}
			for _, n := range names {
				d, err := tensorByName(n)
				if err != nil {
					return err
				}
				b := make([]byte, dt.Size()*d.elems(sh))
				if err := ctx.MemcpyDtoH(b, *d.ptr(t)); err != nil {
					return err
				}
				got[n] = b
			}
			return nil
		}
		for i, s := range perfmodel.Segments() {
			if s == BwdDSwiGLU {
				// The forward is done: keep its outputs, and with
				// RecomputeOut poison out so the backward must rewrite it.
				if err := download("de", "out", "y"); err != nil {
					return nil, err
				}
				if o.RecomputeOut {
					if err := ctx.MemsetD16(t.Out, num.Poison(dt), uint64(sh.M*sh.I)); err != nil {
						return nil, err
					}
				}
			}
			r.Used = append(r.Used, impls[i].name)
			if err := impls[i].run(); err != nil {
				return nil, fmt.Errorf("mlp: check %s, %s: %w", mode, s, err)
			}
		}
		names := []string{"grad_de", "dW_down", "dx", "dW"}
		if o.RecomputeOut {
			names = append(names, "out")
		}
		if err := download(names...); err != nil {
			return nil, err
		}
		outNames := []string{"de", "out", "y", "grad_de", "dW_down", "dx", "dW"}
		for _, n := range outNames {
			st := num.CompareRaw(dt, got[n], wantOf[n])
			oc := OutputCheck{Name: n, Stats: st, Pass: st.OK(o.Tol)}
			if o.RecomputeOut && n == "out" {
				oc.Name = "out (recomputed by the backward)"
			}
			r.Pass = r.Pass && oc.Pass
			r.Outputs = append(r.Outputs, oc)
		}
		res = append(res, r)
	}
	return res, nil
}

// WorstRelErr is the largest relative Frobenius error over the outputs
// (+Inf when any output has NaNs or poisoned elements).
func (r CheckResult) WorstRelErr() float64 {
	w := 0.0
	for _, o := range r.Outputs {
		if o.Stats.NaNs > 0 || o.Stats.Poisoned > 0 {
			return math.Inf(1)
		}
		w = math.Max(w, o.Stats.RelFrobenius)
	}
	return w
}

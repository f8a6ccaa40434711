package check

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// VerifyGroupedBwdRoutings verifies a loaded moe_bwd_dswiglu kernel on
// MoERoutings for its TileM (shapes are not read, as for
// VerifyGroupedRoutings).
func VerifyGroupedBwdRoutings(env *Env, k *launch.Kernel, _ []tiling.Shape, o Options) []ShapeResult {
	return VerifyMoEBwd(env, k, MoERoutings(k.Man.Config.TileM), o)
}

// VerifyMoEBwd runs a loaded moe_bwd_dswiglu kernel on each routing and
// compares grad_de's halves (and, with StoreOut, out) with the float64
// per-expert reference (ref.MoEBwdDSwiGLU); the outputs are poisoned before
// each launch, so a row the kernel leaves or a row of another expert it
// overwrites shows up, and with Options.Repeat the launch repeats and must
// give the same bits in every output.
func VerifyMoEBwd(env *Env, k *launch.Kernel, routings []Routing, o Options) []ShapeResult {
	return eachRouting(env, k, routings, o, verifyMoEBwd)
}

func verifyMoEBwd(env *Env, k *launch.Kernel, rt Routing, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	T, K, I, E := rt.T(), rt.K, rt.I, len(rt.Counts)
	r := ShapeResult{Shape: tiling.Shape{M: T, K: K, I: I}, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = fmt.Errorf("%s (E=%d): %w", rt.Name, E, err); return r }
	args := launch.MoEBwdArgs{T: T, K: K, I: I, E: E}
	err := launch.CheckShape(cfg, args)
	if err != nil {
		return fail(err)
	}
	// As bwd_dswiglu's check: de of standard deviation 2 puts saturated
	// gates into the sigmoid too.
	dy := rng.Normal(dt, T*K, 1)
	w := rng.Normal(dt, E*K*I, 1/math.Sqrt(float64(K))) // [E,K,I]
	de := rng.Normal(dt, T*2*I, 2)
	offs := rt.Offs()
	dev := newRun(env, dt)
	defer dev.free()
	args.Dy, args.WDown, args.De = dev.upload(dy), dev.upload(w), dev.upload(de)
	args.Offs = dev.uploadI32(offs)
	args.GradDe = dev.poisoned(T * 2 * I)
	if cfg.StoreOut {
		args.Out = dev.poisoned(T * I)
	}
	var sc scoreCheck
	if cfg.Score {
		if sc, err = dev.scoreBuffers(k, rng, args); err != nil {
			return fail(err)
		}
		args.Score, args.DScorePart = sc.score, sc.part
	}
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(args)
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	gotG := dev.download(args.GradDe, T*2*I)
	var gotO []byte
	if cfg.StoreOut {
		gotO = dev.download(args.Out, T*I)
	}
	if dev.err != nil {
		return fail(dev.err)
	}
	outs := []repeated{{"grad_de", args.GradDe, gotG}}
	if cfg.StoreOut {
		outs = append(outs, repeated{"out", args.Out, gotO})
	}
	if cfg.Score {
		// The partials are fp32: two 16-bit elements each to download,
		// poison and compare.
		sc.got = dev.download(sc.part, 2*T*sc.cols)
		outs = append(outs, repeated{launch.ScorePartBuffer, sc.part, sc.got})
	}
	if err := dev.sameOnRepeatAll(plan, o, outs); err != nil {
		return fail(err)
	}
	want := ref.MoEBwdDSwiGLU(ref.MoEBwdProblem{T: T, K: K, I: I, E: E,
		Dy: num.Float64s(dy), WDown: num.Float64s(w), De: num.Float64s(de), Offs: offs, Score: sc.want})
	if want.GradDe == nil {
		return fail(fmt.Errorf("the reference refused the problem"))
	}
	left, gate := splitHalves(gotG, T)
	wl, wg := expect{f64: want.GradDe}.halves(T, I)
	r.Outputs = []OutputResult{{Name: "dleft", Stats: wl.compare(dt, left)}, {Name: "dgate", Stats: wg.compare(dt, gate)}}
	if cfg.StoreOut {
		r.Outputs = append(r.Outputs, OutputResult{Name: "out", Stats: expect{f64: want.Out}.compare(dt, gotO)})
	}
	if cfg.Score {
		st, err := sc.compare(dt, T, want.DScore)
		if err != nil {
			return fail(err)
		}
		r.Outputs = append(r.Outputs, OutputResult{Name: "dscore", Stats: st})
	}
	return finish(r, o.tol(dt))
}

// scoreCheck is a score config's extra buffers in one check: the router
// score (want: its values) and the poisoned dscore partials [T, cols]
// fp32 (got: the first launch's bytes).
type scoreCheck struct {
	score, part cu.DevicePtr
	cols        int
	want        []float64
	got         []byte
}

// scoreBuffers uploads a router score and allocates the poisoned partials
// at args' sizes, as wide as k's manifest says.
func (r *run) scoreBuffers(k *launch.Kernel, rng *num.Rand, args launch.MoEBwdArgs) (scoreCheck, error) {
	var sc scoreCheck
	cols, err := launch.ScorePartCols(&k.Man, manifest.Sizes{"T": args.T, "K": args.K, "I": args.I, "E": args.E})
	if err != nil {
		return sc, err
	}
	sc.cols = cols
	sc.score, sc.want = r.routerScore(rng, args.T)
	sc.part = r.poisoned(2 * args.T * cols)
	return sc, r.err
}

// compare sums the first launch's partials (launch.SumScorePartials, as a
// caller does) and compares dscore with the reference's; Poisoned counts
// the partials the kernel never wrote (two poison words of dt each).
func (sc scoreCheck) compare(dt tiling.DType, t int, want []float64) (num.ErrStats, error) {
	part := make([]float32, len(sc.got)/4)
	poison, poisoned := uint32(num.Poison(dt))*0x10001, 0
	for i := range part {
		w := binary.LittleEndian.Uint32(sc.got[4*i:])
		if w == poison {
			poisoned++
		}
		part[i] = math.Float32frombits(w)
	}
	got, err := launch.SumScorePartials(part, t, sc.cols)
	if err != nil {
		return num.ErrStats{}, err
	}
	st := num.Compare(got, want)
	st.Poisoned = poisoned
	return st, nil
}

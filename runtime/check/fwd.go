package check

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/runtime/num"
	"github.com/swigen/swigen/runtime/ref"
	"github.com/swigen/swigen/tiling"
)

// VerifyFwdGateUp runs a loaded fwd_gateup kernel on each shape (M, K, I)
// and compares out and, with StoreOut, both halves of de with the CPU
// float64 reference.
func VerifyFwdGateUp(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyFwdGateUpShape)
}

func verifyFwdGateUpShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	r := ShapeResult{Shape: s, Ref: "cpu-float64"}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.FwdGateUpArgs{M: M, K: K, I: I}); err != nil {
		return fail(err)
	}
	if int64(M)*int64(K)*int64(2*I) > cpuRefMaxMACsFwd {
		return fail(fmt.Errorf("check: fwd_gateup M=%d K=%d I=%d exceeds the CPU reference's %d multiply-adds (no GPU reference for fwd_gateup)", M, K, I, int64(cpuRefMaxMACsFwd)))
	}
	// W at 2/sqrt(K) gives gates of standard deviation ~2, so the
	// epilogue's sigmoid sees saturated values (|gate| > 6) too.
	x := rng.Normal(dt, M*K, 1)
	w := rng.Normal(dt, 2*I*K, 2/math.Sqrt(float64(K))) // [2I,K]: left rows, then gate rows
	wDev := w
	if cfg.MajorB == tiling.MNMajor {
		wDev = transpose32(w, 2*I, K) // [K,2I]
	}
	dev := newRun(env, dt)
	defer dev.free()
	xp, wp := dev.upload(x), dev.upload(wDev)
	op, dp := dev.poisoned(M*I), dev.poisoned(M*2*I)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(launch.FwdGateUpArgs{M: M, K: K, I: I, X: xp, W: wp, De: dp, Out: op})
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	gotO := dev.download(op, M*I)
	if dev.err != nil {
		return fail(dev.err)
	}
	want := ref.FwdGateUp(ref.FwdGateUpProblem{M: M, K: K, I: I, X: num.Float64s(x), W: num.Float64s(w)})
	r.Outputs = []OutputResult{{Name: "out", Stats: num.CompareRaw(dt, gotO, want.Out)}}
	if cfg.StoreOut {
		gotD := dev.download(dp, M*2*I)
		if dev.err != nil {
			return fail(dev.err)
		}
		left, gate := splitHalves(gotD, M, I)
		wl, wg := splitHalves64(want.De, M, I)
		r.Outputs = append(r.Outputs,
			OutputResult{Name: "left", Stats: num.CompareRaw(dt, left, wl)},
			OutputResult{Name: "gate", Stats: num.CompareRaw(dt, gate, wg)})
	}
	return finish(r, o.Tol)
}

// VerifyFwdDown runs a loaded fwd_down kernel on each shape (M, K, I) and
// compares y with the CPU float64 reference.
func VerifyFwdDown(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyFwdDownShape)
}

func verifyFwdDownShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	r := ShapeResult{Shape: s, Ref: "cpu-float64"}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.FwdDownArgs{M: M, K: K, I: I}); err != nil {
		return fail(err)
	}
	if int64(M)*int64(K)*int64(I) > cpuRefMaxMACsFwd {
		return fail(fmt.Errorf("check: fwd_down M=%d K=%d I=%d exceeds the CPU reference's %d multiply-adds (no GPU reference for fwd_down)", M, K, I, int64(cpuRefMaxMACsFwd)))
	}
	out := rng.Normal(dt, M*I, 1)
	wd := rng.Normal(dt, I*K, 1/math.Sqrt(float64(I))) // [I,K]
	wDev := wd
	if cfg.MajorB == tiling.KMajor {
		wDev = transpose32(wd, I, K) // [K,I]
	}
	var res []float32
	if cfg.Residual {
		res = rng.Normal(dt, M*K, 1)
	}
	dev := newRun(env, dt)
	defer dev.free()
	args := launch.FwdDownArgs{M: M, K: K, I: I, Out: dev.upload(out), WDown: dev.upload(wDev)}
	if cfg.Residual {
		args.Residual = dev.upload(res)
	}
	args.Y = dev.poisoned(M * K)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(args)
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	got := dev.download(args.Y, M*K)
	if dev.err != nil {
		return fail(dev.err)
	}
	p := ref.FwdDownProblem{M: M, K: K, I: I, Out: num.Float64s(out), WDown: num.Float64s(wd)}
	if cfg.Residual {
		p.Residual = num.Float64s(res)
	}
	r.Outputs = []OutputResult{{Name: "y", Stats: num.CompareRaw(dt, got, ref.FwdDown(p))}}
	return finish(r, o.Tol)
}

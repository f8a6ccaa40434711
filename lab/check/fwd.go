package check

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// VerifyFwdGateUp runs a loaded fwd_gateup kernel on each shape (M, K, I)
// and compares out and, with StoreOut, both halves of de with the CPU
// float64 reference, or above its limit (or with Options.ForceGPURef) with
// the naive GPU reference.
func VerifyFwdGateUp(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyFwdGateUpShape)
}

func verifyFwdGateUpShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	wMN := cfg.MajorB == tiling.MNMajor
	r := ShapeResult{Shape: s, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.FwdGateUpArgs{M: M, K: K, I: I}); err != nil {
		return fail(err)
	}
	macs := int64(M) * int64(K) * int64(2*I)
	gpu := useGPURef(o, macs, cpuRefMaxMACsFwd)
	if gpu {
		r.Ref = refGPU
		if err := needGPURef(env, o, fmt.Sprintf("fwd_gateup M=%d K=%d I=%d", M, K, I), macs, cpuRefMaxMACsFwd); err != nil {
			return fail(err)
		}
	}
	// W at 2/sqrt(K) gives gates of standard deviation ~2, so the
	// epilogue's sigmoid sees saturated values (|gate| > 6) too.
	x := rng.Normal(dt, M*K, 1)
	w := rng.Normal(dt, 2*I*K, 2/math.Sqrt(float64(K))) // [2I,K]: left rows, then gate rows
	wDev := w
	if wMN {
		wDev = transpose32(w, 2*I, K) // [K,2I]
	}
	dev := newRun(env, dt)
	defer dev.free()
	xp, wp := dev.upload(x), dev.upload(wDev)
	var wantO, wantD expect
	if gpu {
		// The reference runs and is read back before the kernel under
		// test, so nothing that kernel writes out of bounds can reach it.
		refO := dev.refBuffer(M * I)
		var refD cu.DevicePtr
		if cfg.StoreOut {
			refD = dev.refBuffer(M * 2 * I)
		}
		dev.reference(refTimeout(o, macs), func() error {
			return env.GPURef.FwdGateUp(dt, M, K, I, xp, wp, refD, refO, wMN)
		})
		wantO = dev.refOutput("out", refO, M*I)
		if cfg.StoreOut {
			wantD = dev.refOutput("de", refD, M*2*I)
		}
	}
	op, dp := dev.poisoned(M*I), dev.poisoned(M*2*I)
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := planCall(k, o, dev.b, launch.FwdGateUpArgs{M: M, K: K, I: I, X: xp, W: wp, De: dp, Out: op})
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	gotO := dev.download(op, M*I)
	var gotD []byte
	if cfg.StoreOut {
		gotD = dev.download(dp, M*2*I)
	}
	if dev.err != nil {
		return fail(dev.err)
	}
	if err := dev.sameOnRepeat(plan, o, op, gotO); err != nil {
		return fail(err)
	}
	if !gpu {
		want := ref.FwdGateUp(ref.FwdGateUpProblem{M: M, K: K, I: I, X: num.Float64s(x), W: num.Float64s(w)})
		wantO, wantD = expect{f64: want.Out}, expect{f64: want.De}
	}
	r.Outputs = []OutputResult{{Name: "out", Stats: wantO.compare(dt, gotO)}}
	if cfg.StoreOut {
		left, gate := splitHalves(gotD, M)
		wl, wg := wantD.halves(M, I)
		r.Outputs = append(r.Outputs,
			OutputResult{Name: "left", Stats: wl.compare(dt, left)},
			OutputResult{Name: "gate", Stats: wg.compare(dt, gate)})
	}
	return finish(r, o.tol(dt))
}

// VerifyFwdDown runs a loaded fwd_down kernel on each shape (M, K, I) and
// compares y with the CPU float64 reference, or above its limit (or with
// Options.ForceGPURef) with the naive GPU reference.
func VerifyFwdDown(env *Env, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	return eachShape(env, k, shapes, o, verifyFwdDownShape)
}

func verifyFwdDownShape(env *Env, k *launch.Kernel, s tiling.Shape, rng *num.Rand, o Options) ShapeResult {
	cfg := k.Man.Config
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	// major_b=k is W_down stored [K,I] (nn.Linear's down_proj); major_b=mn
	// is [I,K], this GEMM's B with N=K contiguous.
	wKI := cfg.MajorB == tiling.KMajor
	r := ShapeResult{Shape: s, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = err; return r }
	if err := launch.CheckShape(cfg, launch.FwdDownArgs{M: M, K: K, I: I}); err != nil {
		return fail(err)
	}
	macs := int64(M) * int64(K) * int64(I)
	gpu := useGPURef(o, macs, cpuRefMaxMACsFwd)
	if gpu {
		r.Ref = refGPU
		if err := needGPURef(env, o, fmt.Sprintf("fwd_down M=%d K=%d I=%d", M, K, I), macs, cpuRefMaxMACsFwd); err != nil {
			return fail(err)
		}
	}
	out := rng.Normal(dt, M*I, 1)
	wd := rng.Normal(dt, I*K, 1/math.Sqrt(float64(I))) // [I,K]
	wDev := wd
	if wKI {
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
	var want expect
	if gpu {
		// The reference runs and is read back before the kernel under
		// test, so nothing that kernel writes out of bounds can reach it.
		refY := dev.refBuffer(M * K)
		dev.reference(refTimeout(o, macs), func() error {
			return env.GPURef.FwdDown(dt, M, K, I, args.Out, args.WDown, args.Residual, refY, wKI)
		})
		want = dev.refOutput("y", refY, M*K)
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
	if err := dev.sameOnRepeat(plan, o, args.Y, got); err != nil {
		return fail(err)
	}
	if !gpu {
		p := ref.FwdDownProblem{M: M, K: K, I: I, Out: num.Float64s(out), WDown: num.Float64s(wd)}
		if cfg.Residual {
			p.Residual = num.Float64s(res)
		}
		want.f64 = ref.FwdDown(p)
	}
	r.Outputs = []OutputResult{{Name: "y", Stats: want.compare(dt, got)}}
	return finish(r, o.tol(dt))
}

//go:build gpu

package check

import (
	"context"
	"testing"

	"github.com/swigen/swigen/internal/gputest"
	"github.com/swigen/swigen/runtime/ref"
	"github.com/swigen/swigen/tiling"
)

// TestGPUVerifyPicksReference verifies a gemm, fwd_gateup and fwd_down
// kernel of each major (and each second output) on small ragged shapes
// twice: against the CPU float64 reference, then with ForceGPURef against
// the naive GPU one. Both must pass and say which reference they used, so
// the GPU path that large shapes take is exercised where the CPU one
// vouches for the same kernel.
func TestGPUVerifyPicksReference(t *testing.T) {
	ctx, tc := gputest.Open(t)
	g, err := ref.NewGPURef(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc, GPURef: g}
	shapes := []tiling.Shape{{M: 200, K: 72, I: 136}, {M: 1, K: 8, I: 8}, {M: 333, K: 392, I: 328}}
	type variant struct {
		kind            tiling.Kernel
		dt              tiling.DType
		majorA, majorB  tiling.Major
		storeOut, resid bool
	}
	var vs []variant
	for _, a := range tiling.Majors() {
		for _, b := range tiling.Majors() {
			vs = append(vs, variant{kind: tiling.KernelGEMM, dt: tiling.BF16, majorA: a, majorB: b})
		}
	}
	for _, b := range tiling.Majors() {
		for _, second := range []bool{false, true} {
			vs = append(vs,
				variant{kind: tiling.KernelFwdGateUp, dt: tiling.BF16, majorA: tiling.KMajor, majorB: b, storeOut: second},
				variant{kind: tiling.KernelFwdDown, dt: tiling.BF16, majorA: tiling.KMajor, majorB: b, resid: second})
		}
	}
	for _, k := range []tiling.Kernel{tiling.KernelGEMM, tiling.KernelFwdGateUp, tiling.KernelFwdDown} {
		vs = append(vs, variant{kind: k, dt: tiling.FP16, majorA: tiling.KMajor, majorB: tiling.KMajor})
	}
	for _, v := range vs {
		heuristic := tiling.Heuristic
		if v.storeOut {
			heuristic = tiling.HeuristicStoreOut
		}
		cfg, err := heuristic(v.kind, tiling.ArchSM90a, v.dt, shapes[0])
		if err != nil {
			t.Fatal(err)
		}
		cfg.MajorA, cfg.MajorB, cfg.Residual = v.majorA, v.majorB, v.resid
		cfg.Stages = cfg.MaxStages()
		t.Run(cfg.Name(), func(t *testing.T) {
			if err := cfg.Validate(); err != nil {
				t.Fatalf("not a valid config: %v", err)
			}
			if ok, why := tiling.Implemented(cfg); !ok {
				t.Fatalf("not implemented: %s", why)
			}
			k, _, err := BuildAndLoad(context.Background(), env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			for _, force := range []bool{false, true} {
				want := refCPU
				if force {
					want = refGPU
				}
				for _, r := range Verify(env, k, shapes, Options{Seed: 11, ForceGPURef: force}) {
					for _, o := range r.Outputs {
						t.Logf("%s ref=%s %s: %v", r.Shape, r.Ref, o.Name, o.Stats)
					}
					if !r.Pass || r.Err != nil || r.Ref != want {
						t.Errorf("%s force=%v: pass=%v ref=%s (want %s) err=%v", r.Shape, force, r.Pass, r.Ref, want, r.Err)
					}
					if len(r.Outputs) == 0 {
						t.Errorf("%s force=%v: no outputs compared", r.Shape, force)
					}
				}
			}
		})
	}
}

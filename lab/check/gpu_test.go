//go:build gpu

package check

import (
	"context"
	"math"
	"testing"

	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// TestGPUVerifyPicksReference verifies a kernel of every kind and each
// major (and each second output) on small ragged shapes twice, on the same
// seed: against the CPU float64 reference, then with ForceGPURef against
// the naive GPU one. Both must pass, say which reference they used and
// report the same errors (sameErrors), so the GPU path that large shapes
// take is exercised where the CPU one vouches for the same kernel output.
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
				variant{kind: tiling.KernelFwdDown, dt: tiling.BF16, majorA: tiling.KMajor, majorB: b, resid: second},
				variant{kind: tiling.KernelBwdDSwiGLU, dt: tiling.BF16, majorA: tiling.KMajor, majorB: b, storeOut: second})
		}
	}
	for _, k := range []tiling.Kernel{tiling.KernelGEMM, tiling.KernelFwdGateUp, tiling.KernelFwdDown, tiling.KernelBwdDSwiGLU} {
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
			var byRef [2][]ShapeResult // by force: CPU, then GPU reference
			for i, force := range []bool{false, true} {
				want := refCPU
				if force {
					want = refGPU
				}
				byRef[i] = Verify(env, k, shapes, Options{Seed: 11, ForceGPURef: force})
				for _, r := range byRef[i] {
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
			sameErrors(t, byRef[0], byRef[1])
		})
	}
}

// sameErrors checks that the naive GPU reference (gpu) reports, for every
// output of every shape, the relative error the CPU reference (cpu)
// reported on the same seed, so for the same inputs and kernel output:
// both references are unrounded float64 and differ in their last bits
// only, so the two errors agree far within 1% of each other. A reference
// rounded to 16 bits like the kernel reports a much smaller error.
func sameErrors(t *testing.T, cpu, gpu []ShapeResult) {
	t.Helper()
	if len(cpu) != len(gpu) {
		t.Errorf("%d shapes against the CPU reference, %d against the GPU one", len(cpu), len(gpu))
		return
	}
	for i, c := range cpu {
		g := gpu[i]
		if len(c.Outputs) != len(g.Outputs) {
			t.Errorf("%s: %d outputs against the CPU reference, %d against the GPU one", c.Shape, len(c.Outputs), len(g.Outputs))
			continue
		}
		for j, co := range c.Outputs {
			a, b := co.Stats.RelFrobenius, g.Outputs[j].Stats.RelFrobenius
			if co.Name != g.Outputs[j].Name || !(math.Abs(a-b) <= 0.01*math.Max(a, b)) {
				t.Errorf("%s %s: rel_frob %.6g against the CPU reference, %s %.6g against the GPU one: want within 1%%",
					c.Shape, co.Name, a, g.Outputs[j].Name, b)
			}
		}
	}
}

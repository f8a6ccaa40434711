//go:build gpu

package mlp

import (
	"context"
	"testing"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/tiling"
)

// TestGPUBenchFwdGateUp times the heuristic fwd_gateup, inference and
// training, against the baseline on a ragged shape and on S1, and checks
// that the two agree.
func TestGPUBenchFwdGateUp(t *testing.T) {
	env, tc := gpuEnv(t)
	cenv := &check.Env{Ctx: env.Ctx, Dev: env.Dev, Builder: tc}
	ceil := bench.Ceilings{GemmTFLOPs: 700, CopyGBs: 4000}
	for _, sh := range []tiling.Shape{{M: 1000, K: 392, I: 328}, {M: 16384, K: 768, I: 4608}} {
		for _, storeDe := range []bool{false, true} {
			cfg, err := tiling.Heuristic(tiling.KernelFwdGateUp, tiling.ArchSM90a, tiling.BF16, sh)
			if err != nil {
				t.Fatal(err)
			}
			cfg.StoreOut = storeDe
			cfg.Stages = cfg.MaxStages()
			k, _, err := check.BuildAndLoad(context.Background(), cenv, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := BenchFwdGateUp(env, k, sh, ceil, bench.Options{Reps: 20, Seed: 7})
			_ = k.Close()
			if err != nil {
				t.Fatalf("%s at %s: %v", cfg.Name(), sh, err)
			}
			for _, r := range rep.Rows {
				t.Logf("%s %s: %-45s %8.1f us  %6.1f TFLOP/s  %6.0f GB/s  %5.1f%% of floor", cfg.Name(), sh, r.Name, r.T.Median, r.TFLOPs, r.GBs, r.PctFloor)
			}
			t.Logf("speedup %.2fx, rel err %.3g, floor %.1f us, %d sets, grid %d", rep.Speedup, rep.RelErr, rep.FloorUS, rep.Sets, rep.Grid)
			if len(rep.Warnings) > 0 || !(rep.RelErr <= check.DefaultTol) || rep.StoreDe != storeDe || len(rep.Rows) != 4 {
				t.Errorf("%s at %s: rel err %.3g, warnings %v", cfg.Name(), sh, rep.RelErr, rep.Warnings)
			}
		}
	}
}

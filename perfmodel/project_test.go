package perfmodel

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swigen/swigen/tiling"
)

func TestProject(t *testing.T) {
	b200, _ := Lookup("b200")
	hbm := 8e6 / 148.0                            // bytes per us per SM
	mma := 2 * 128 * 256 * 768 / (2250e6 / 148.0) // the 2cta seed tile's MMAs
	epi := 8 * 32768 / hbm                        // its de loads and grad_de stores
	floor := 636223488 / 8e6                      // BwdCost's bytes at 8 TB/s
	// A 1cta 128x128 tile's operands at 64 B/clk of the 2250e3/(148*8192)
	// GHz clock.
	tma := (128 + 128) * 768 * 2 / (64 * 2250e3 / (148 * 8192) * 1e3)
	clc1x2 := "bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x2_1cta_clc"
	type summary struct {
		Tiles, Units, TilesPerUnit int
		CLCDepth                   int
		Steady, Pipeline, Stall    float64
		Floor, Kernel              float64
	}
	tests := []struct {
		name string
		cfg  string
		want summary
	}{
		// 64 x 18 tiles over 148/2 pairs: 16 on the busiest. Epilogue-bound:
		// 1 + 1 + mainloop + 15 epilogues + the last one.
		{"2cta static", seedName, summary{Tiles: 1152, Units: 74, TilesPerUnit: 16,
			Steady: epi, Pipeline: 2 + mma + 16*epi, Floor: floor, Kernel: 2 + mma + 16*epi}},
		// 128 x 36 tiles over 148 CTAs: 32 on the busiest. Mainloop-bound on
		// the operand loads (128+128 rows x 768 x 2 bytes at 64 B/clk); the
		// CLC ring of 3 hides every round trip.
		{"1cta clc", clc1x2, summary{Tiles: 4608, Units: 148, TilesPerUnit: 32, CLCDepth: 3,
			Steady: tma, Pipeline: 2 + 32*tma + epi/2, Floor: floor, Kernel: 2 + 32*tma + epi/2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Project(b200, config(t, tt.cfg), seed)
			if err != nil {
				t.Fatal(err)
			}
			got := summary{p.Tiles, p.Units, p.TilesPerUnit, p.Schedule.CLCDepth, p.SteadyUS, p.PipelineUS, p.CLCStallUS, p.FloorUS, p.KernelUS}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-9, 1e-9)); d != "" {
				t.Errorf("Project(%s) (-want +got):\n%s", tt.cfg, d)
			}
		})
	}
}

// A projection is never below the roofline floor nor the busiest unit's
// steady-state work, at any shape of the sm_100a heuristic.
func TestProjectBounds(t *testing.T) {
	b200, _ := Lookup("b200")
	for _, s := range []tiling.Shape{seed, {M: 8192, K: 4096, I: 14336}, {M: 8192, K: 8192, I: 3584},
		{M: 4096, K: 7168, I: 2048}, {M: 16384, K: 2048, I: 768}, {M: 128, K: 4096, I: 14336}, {M: 1000, K: 200, I: 520}} {
		c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM100a, tiling.BF16, s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Project(b200, c, s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if p.KernelUS < p.FloorUS || p.PipelineUS < float64(p.TilesPerUnit)*p.SteadyUS || p.CLCStallUS != 0 {
			t.Errorf("%s %s: kernel %.1f us, pipeline %.1f us, floor %.1f us, %d x steady %.2f us, CLC stall %.2f us",
				s, c.Name(), p.KernelUS, p.PipelineUS, p.FloorUS, p.TilesPerUnit, p.SteadyUS, p.CLCStallUS)
		}
	}
}

func TestProjectRejects(t *testing.T) {
	b200, _ := Lookup("b200")
	h200, _ := Lookup("h200")
	tests := []struct {
		name    string
		g       GPU
		cfg     string
		wantErr string
	}{
		{"no pipeline model", h200, seedName, "no per-tile pipeline model"},
		{"other arch", b200, "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong", "targets sm_90a; the GPU runs sm_100a"},
		{"other kind", b200, "fwd_gateup_sm100a_bf16_m256n256k64_s4_c2x1_2cta", "bwd_dswiglu configs only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Project(tt.g, config(t, tt.cfg), seed); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Project(%s) = %v; want an error containing %q", tt.cfg, err, tt.wantErr)
			}
		})
	}
}

package tiling

import (
	"strings"
	"testing"
)

func TestHeuristic(t *testing.T) {
	t.Parallel()
	var shapes []Shape
	for _, m := range []int{1, 7, 128, 1000, 4096, 16384, 65536} {
		for _, k := range []int{8, 64, 768, 4096} {
			for _, i := range []int{8, 256, 4608, 14336} {
				shapes = append(shapes, Shape{M: m, K: k, I: i})
			}
		}
	}
	for _, kind := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				for _, s := range shapes {
					c, err := Heuristic(kind, a, d, s)
					if err != nil {
						t.Fatalf("Heuristic(%s, %s, %s, %v): %v", kind, a, d, s, err)
					}
					if err := c.Validate(); err != nil {
						t.Fatalf("Heuristic(%s, %s, %s, %v) = %s, invalid: %v", kind, a, d, s, c.Name(), err)
					}
					if ok, why := Implemented(c); !ok {
						t.Fatalf("Heuristic(%s, %s, %s, %v) = %s, not implemented: %s", kind, a, d, s, c.Name(), why)
					}
					if kind != KernelBwdDSwiGLU && kind != KernelFwdGateUp {
						continue
					}
					c, err = HeuristicStoreOut(kind, a, d, s)
					if err != nil {
						t.Fatalf("HeuristicStoreOut(%s, %s, %s, %v): %v", kind, a, d, s, err)
					}
					if ok, why := Implemented(c); !ok || !c.StoreOut || c.Validate() != nil {
						t.Fatalf("HeuristicStoreOut(%s, %s, %s, %v) = %s: StoreOut %v, implemented %v (%s), validate %v", kind, a, d, s, c.Name(), c.StoreOut, ok, why, c.Validate())
					}
				}
			}
		}
	}
}

// TestHeuristicPicks pins the rules, which decide where the measured table
// has no rows.
func TestHeuristicPicks(t *testing.T) {
	t.Parallel()
	s1 := Shape{M: 16384, K: 768, I: 4608}
	large := Shape{M: 8192, K: 4096, I: 14336}
	tests := []struct {
		a        Arch
		s        Shape
		storeOut bool
		want     string
		k        Kernel // bwd_dswiglu when empty
	}{
		{ArchSM90a, s1, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k", ""},
		// W_down over 16 MB: the default order (l2KeepMaxWeightBytes).
		{ArchSM90a, Shape{M: 16384, K: 768, I: 14336}, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong", ""},
		{ArchSM90a, Shape{M: 16384, K: 1536, I: 4608}, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k", ""},
		{ArchSM90a, Shape{M: 16384, K: 2040, I: 4608}, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong", ""},
		{ArchSM90a, large, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong", ""},
		// Ragged N: 22 tiles of 192 for 4096 columns, still fewer waves.
		{ArchSM90a, Shape{M: 32768, K: 1024, I: 4096}, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k", ""},
		// One wave either way: 128x128 keeps the SM time per tile short
		// (wideTileGainPct).
		{ArchSM90a, Shape{M: 512, K: 768, I: 1024}, false, "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_rn_g2_l2k", ""},
		// Equal waves x width: the wide tile.
		{ArchSM90a, Shape{M: 1024, K: 768, I: 4608}, false, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k", ""},
		// With out stored (training) 128x128 stays, in the l2k order when
		// W_down fits.
		{ArchSM90a, large, true, "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", ""},
		{ArchSM90a, s1, true, "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_out_l2k", ""},
		{ArchSM100a, s1, false, "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta", ""},
		{ArchSM100a, Shape{M: 1024, K: 768, I: 4608}, false, "bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta", ""},
		{ArchSM100a, Shape{M: 4096, K: 768, I: 1024}, false, "bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta", ""},
		// fwd_gateup: inference walks along N in groups of 4; training keeps
		// the default order (gateUpInferenceGroup).
		{ArchSM90a, s1, false, "fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_rn_g4", KernelFwdGateUp},
		{ArchSM90a, large, false, "fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_rn_g4", KernelFwdGateUp},
		{ArchSM90a, s1, true, "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", KernelFwdGateUp},
		{ArchSM100a, s1, false, "fwd_gateup_sm100a_bf16_m256n256k64_s6_c2x1_2cta", KernelFwdGateUp},
	}
	for _, tt := range tests {
		k := tt.k
		if k == "" {
			k = KernelBwdDSwiGLU
		}
		c, err := RuleHeuristic(k, tt.a, BF16, tt.s, tt.storeOut)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Name(); got != tt.want {
			t.Errorf("RuleHeuristic(%s, %s, %v, storeOut %v) = %s, want %s", k, tt.a, tt.s, tt.storeOut, got, tt.want)
		}
	}
}

func TestHeuristicErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k       Kernel
		a       Arch
		d       DType
		s       Shape
		wantErr string
	}{
		{KernelBwdDSwiGLU, ArchSM90a, BF16, Shape{M: 0, K: 8, I: 8}, "M=0: must be a positive integer"},
		{KernelBwdDSwiGLU, ArchSM90a, BF16, Shape{M: 1, K: 12, I: 8}, "K=12: must be a multiple of 8"},
		{KernelBwdDSwiGLU, "sm_80", BF16, Shape{M: 1, K: 8, I: 8}, "arch=sm_80"},
		{"conv", ArchSM90a, BF16, Shape{M: 1, K: 8, I: 8}, "kernel=conv"},
		{KernelBwdDSwiGLU, ArchSM90a, "fp8", Shape{M: 1, K: 8, I: 8}, "dtype=fp8"},
	}
	for _, tt := range tests {
		_, err := Heuristic(tt.k, tt.a, tt.d, tt.s)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Heuristic(%s, %s, %s, %v) error = %v, want it to contain %q", tt.k, tt.a, tt.d, tt.s, err, tt.wantErr)
		}
	}
}

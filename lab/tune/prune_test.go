package tune

import (
	"fmt"
	"testing"

	"github.com/swigen/swigen/tiling"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	space := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)
	tile := func(c tiling.Config) string { return fmt.Sprintf("%dx%d", c.TileM, c.TileN) }
	for _, tt := range []struct {
		name       string
		shape      tiling.Shape
		kept, gone []string // tiles that must be kept / left out
	}{
		// At the seed shape every tile fills the GPU: the 64-wide tiles'
		// traffic per output, 1.8-2.4x the best's, leaves them out.
		{"seed", tiling.Shape{M: 16384, K: 768, I: 4608}, []string{"128x128", "128x192", "128x256", "256x128"}, []string{"64x64", "128x64"}},
		// A decode-sized batch has too few wide tiles to busy the GPU: the
		// small ones stay.
		{"decode", tiling.Shape{M: 128, K: 4096, I: 2048}, []string{"64x64"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kept, pruned, err := Prune(space, tt.shape, 132, DefaultPruneRatio)
			if err != nil {
				t.Fatal(err)
			}
			if len(kept)+len(pruned) != len(space) || len(kept) == 0 {
				t.Fatalf("kept %d + pruned %d != %d", len(kept), len(pruned), len(space))
			}
			has := func(cs []tiling.Config, tl string) bool {
				for _, c := range cs {
					if tile(c) == tl {
						return true
					}
				}
				return false
			}
			var gone []tiling.Config
			for _, p := range pruned {
				gone = append(gone, p.Config)
				if p.Score <= DefaultPruneRatio*p.Best {
					t.Errorf("%s pruned with score %g <= %g x best %g", p.Config.Name(), p.Score, DefaultPruneRatio, p.Best)
				}
			}
			for _, tl := range tt.kept {
				if !has(kept, tl) {
					t.Errorf("no %s tile kept", tl)
				}
			}
			for _, tl := range tt.gone {
				if has(kept, tl) || !has(gone, tl) {
					t.Errorf("%s tiles not left out", tl)
				}
			}
		})
	}
	// Decode-sized gemms: stream-K keeps every SM busy, and a 128-row tile
	// at M = 64 reads no more than a 64-row one, so the 64-row stream-K
	// tiles are kept and the static tiles that busy a quarter of the GPU
	// are left out; at a full-wave shape the 64-row tiles go.
	gemm := tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, tiling.BF16)
	for _, tt := range []struct {
		shape      tiling.Shape // M, K, I = N
		kept, gone []string
	}{
		{tiling.Shape{M: 64, K: 7168, I: 4096}, []string{
			"gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk", "gemm_sm90a_bf16_m64n256k64_s4_c1x1_pingpong_sk",
			"gemm_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk", "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
		}, []string{"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative", "gemm_sm90a_bf16_m64n128k64_s6_c1x1_pingpong"}},
		{tiling.Shape{M: 8192, K: 8192, I: 8192}, nil, []string{
			"gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk", "gemm_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk",
		}},
	} {
		kept, _, err := Prune(gemm, tt.shape, 132, DefaultPruneRatio)
		if err != nil {
			t.Fatal(err)
		}
		has := map[string]bool{}
		for _, c := range kept {
			has[c.Name()] = true
		}
		for _, n := range tt.kept {
			if !has[n] {
				t.Errorf("gemm %+v: %s left out", tt.shape, n)
			}
		}
		for _, n := range tt.gone {
			if has[n] {
				t.Errorf("gemm %+v: %s kept", tt.shape, n)
			}
		}
	}
	if _, _, err := Prune(space, tiling.Shape{M: 1, K: 8, I: 8}, 0, 1.5); err == nil {
		t.Error("Prune with 0 SMs: no error")
	}
}

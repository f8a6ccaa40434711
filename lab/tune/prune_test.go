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
	if _, _, err := Prune(space, tiling.Shape{M: 1, K: 8, I: 8}, 0, 1.5); err == nil {
		t.Error("Prune with 0 SMs: no error")
	}
}

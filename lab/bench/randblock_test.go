package bench

import (
	"bytes"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestRandomBlockCache: a block is drawn once per key and kept while few
// others are; other seeds, scales and types draw other data.
func TestRandomBlockCache(t *testing.T) {
	a := randomBlock(tiling.BF16, 7, 1)
	if b := randomBlock(tiling.BF16, 7, 1); &a[0] != &b[0] {
		t.Error("the same key drew its block again")
	}
	if len(a) != 2*randomBlockElems {
		t.Errorf("block of %d bytes", len(a))
	}
	for _, k := range []blockKey{{tiling.BF16, 8, 1}, {tiling.BF16, 7, 0.5}, {tiling.FP16, 7, 1}} {
		if bytes.Equal(a[:4096], randomBlock(k.dt, k.seed, k.scale)[:4096]) {
			t.Errorf("%+v drew the same data as seed 7", k)
		}
	}
	for s := uint64(100); s < 100+keptBlocks+1; s++ {
		randomBlock(tiling.BF16, s, 1)
	}
	randomBlocks.Lock()
	kept := len(randomBlocks.keys)
	randomBlocks.Unlock()
	if kept != keptBlocks {
		t.Errorf("%d blocks kept, want %d", kept, keptBlocks)
	}
}

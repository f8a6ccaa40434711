package tiling

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkStreamK checks the properties the kernel's correctness and freedom
// from deadlock rest on, for one (tiles, kblocks, grid).
func checkStreamK(t *testing.T, tiles, kblocks, grid int) {
	t.Helper()
	p := NewStreamKPlan(tiles, kblocks, grid)
	covered := make([][]int, tiles) // covered[tile][kb]: the CTA that ran it, +1
	for i := range covered {
		covered[i] = make([]int, kblocks)
	}
	partials := map[int]StreamKWork{} // CTA -> its one partial item
	for b := 0; b < grid; b++ {
		n := p.Items(b)
		before := 0
		for j := 0; ; j++ {
			w, ok := p.Work(b, j)
			if !ok {
				if j != n {
					t.Fatalf("%+v: CTA %d has %d items, Items says %d", p, b, j, n)
				}
				break
			}
			if w.KB0 >= w.KB1 || w.KB0 < 0 || w.KB1 > kblocks || w.Tile < 0 || w.Tile >= tiles {
				t.Fatalf("%+v: CTA %d item %d = %+v: empty or out of range", p, b, j, w)
			}
			if w.Before != before {
				t.Fatalf("%+v: CTA %d item %d: Before %d, want %d", p, b, j, w.Before, before)
			}
			before += w.KB1 - w.KB0
			for kb := w.KB0; kb < w.KB1; kb++ {
				if c := covered[w.Tile][kb]; c != 0 {
					t.Fatalf("%+v: tile %d k-block %d run by CTA %d and CTA %d", p, w.Tile, kb, c-1, b)
				}
				covered[w.Tile][kb] = b + 1
			}
			switch w.Role {
			case SKPartial:
				if _, dup := partials[b]; dup {
					t.Fatalf("%+v: CTA %d has two partial items (one workspace slot)", p, b)
				}
				if j != p.Full {
					t.Fatalf("%+v: CTA %d's partial is item %d, not its first stream-K item %d: it would wait before releasing", p, b, j, p.Full)
				}
				partials[b] = w
			case SKOwner:
				if j != n-1 {
					t.Fatalf("%+v: CTA %d owns tile %d at item %d of %d: not its last", p, b, w.Tile, j, n)
				}
			}
		}
	}
	for tile := range covered {
		for kb, c := range covered[tile] {
			if c == 0 {
				t.Fatalf("%+v: tile %d k-block %d run by no CTA", p, tile, kb)
			}
		}
	}
	// Every owner's contributors are lower CTAs whose partials cover the
	// tile's k-blocks before the owner's, each once, in order.
	for st := 0; st < p.SKTiles; st++ {
		tile := p.Full*p.Grid + st
		owner := covered[tile][kblocks-1] - 1
		first, last := p.Contributors(st)
		if last != owner-1 {
			t.Fatalf("%+v: split tile %d: contributors end at %d, owner is %d", p, st, last, owner)
		}
		next := 0
		for b := first; b <= last; b++ {
			w, ok := partials[b]
			if !ok || w.Tile != tile || w.KB0 != next {
				t.Fatalf("%+v: split tile %d: contributor %d has partial %+v (ok %v), want one from k-block %d", p, st, b, w, ok, next)
			}
			next = w.KB1
		}
		if first <= last && covered[tile][next]-1 != owner {
			t.Fatalf("%+v: split tile %d: partials end at k-block %d, not where the owner starts", p, st, next)
		}
	}
}

func TestStreamKWorkCoversEveryKBlockOnce(t *testing.T) {
	for _, c := range []struct{ tiles, kblocks, grid int }{
		{448, 64, 132}, // 2048x7168x4096 at 128x256
		{28, 32, 132},  // M = 64, 7168/256 tiles, K = 2048
		{1, 1, 132}, {1, 100, 132}, {132, 64, 132}, {133, 64, 132}, {264, 7, 132},
		{5, 3, 1}, {7, 9, 4}, {1024, 128, 132},
	} {
		checkStreamK(t, c.tiles, c.kblocks, c.grid)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		checkStreamK(t, 1+r.Intn(600), 1+r.Intn(200), 1+r.Intn(160))
	}
}

func TestStreamKPlanSplitsTheLastWave(t *testing.T) {
	got := NewStreamKPlan(448, 64, 132)
	want := StreamKPlan{Tiles: 448, KBlocks: 64, Grid: 132, Full: 3, SKTiles: 52, SKUnits: 52 * 64, SKCTAs: 132}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewStreamKPlan(448, 64, 132) (-want +got):\n%s", diff)
	}
	// Few k-blocks: no CTA gets fewer than StreamKMinKBlocks.
	if got := NewStreamKPlan(133, 64, 132); got.SKCTAs != 64/StreamKMinKBlocks {
		t.Errorf("one split tile of 64 k-blocks: %d CTAs, want %d", got.SKCTAs, 64/StreamKMinKBlocks)
	}
	if got := NewStreamKPlan(264, 64, 132); got.SKTiles != 0 || got.Items(0) != 2 {
		t.Errorf("two whole waves: %+v, %d items for CTA 0", got, got.Items(0))
	}
}

func TestStreamKWorkspace(t *testing.T) {
	for _, c := range []struct{ grid, m, n, flags, slot, total int }{
		{132, 128, 256, 1152, 131072, 1152 + 132*131072},
		{1, 128, 128, 128, 65536, 128 + 65536},
		{16, 64, 64, 256, 16384, 256 + 16*16384}, // 128 bytes of flags, then the header
		{15, 64, 64, 128, 16384, 128 + 15*16384},
	} {
		f, s, tot := StreamKWorkspace(c.grid, c.m, c.n)
		if f != c.flags || s != c.slot || tot != c.total {
			t.Errorf("StreamKWorkspace(%d, %d, %d) = %d, %d, %d; want %d, %d, %d", c.grid, c.m, c.n, f, s, tot, c.flags, c.slot, c.total)
		}
	}
}

package protocol_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/tiling"
)

// skLaunch is the model's launch for the work list tiling gives (the one
// the kernel's sw_sk_item computes).
func skLaunch(tiles, kblocks, grid int, pingPong bool, resident int) protocol.SKLaunch {
	p := tiling.NewStreamKPlan(tiles, kblocks, grid)
	l := protocol.SKLaunch{KBlocks: kblocks, PingPong: pingPong, Resident: resident, Launches: 2}
	for b := 0; b < grid; b++ {
		var items []protocol.SKItem
		for j := 0; ; j++ {
			w, ok := p.Work(b, j)
			if !ok {
				break
			}
			items = append(items, protocol.SKItem{Tile: w.Tile, KB0: w.KB0, KB1: w.KB1, Role: protocol.SKRole(w.Role)})
		}
		l.Items = append(l.Items, items)
	}
	return l
}

// The handshake as the template runs it holds on random launches, every
// CTA resident or a few at a time (launched in CTA order), two launches
// on one workspace.
func TestStreamKHandshake(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 300; i++ {
		tiles, kb, grid := 1+rng.Intn(40), 1+rng.Intn(60), 1+rng.Intn(24)
		for _, pp := range []bool{false, true} {
			for _, res := range []int{0, 1, 3} {
				l := skLaunch(tiles, kb, grid, pp, res)
				if v := protocol.RunStreamK(l, int64(i)); len(v) > 0 {
					t.Fatalf("tiles %d, k-blocks %d, grid %d, ping-pong %v, resident %d: %v", tiles, kb, grid, pp, res, v)
				}
			}
		}
	}
	// The H200's 2048x7168x4096 gemm at 128x256: 3 whole waves, 52 tiles split.
	if v := protocol.RunStreamK(skLaunch(448, 64, 132, false, 0), 1); len(v) > 0 {
		t.Fatal(v)
	}
}

// Each seeded bug in sw_sk_fixup is caught, with the check that names it.
func TestStreamKSeededBugs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		bugs  protocol.SKBugs
		check string
	}{
		{"missing release", protocol.SKBugs{NoRelease: true}, "deadlock"},
		{"release before the partial's store", protocol.SKBugs{ReleaseBeforeWrite: true}, "visibility"},
		{"owner does not wait", protocol.SKBugs{OwnerNoWait: true}, "visibility"},
		{"owner leaves the flags set", protocol.SKBugs{NoReset: true}, "flags"},
		{"partials added as they arrive", protocol.SKBugs{ArrivalOrder: true}, "order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// 5 tiles of 40 k-blocks on 4 CTAs: 1 whole wave, one tile cut
			// over 4 CTAs (three partials for its owner).
			for seed := int64(0); seed < 200; seed++ {
				for _, pp := range []bool{false, true} {
					l := skLaunch(5, 40, 4, pp, 0)
					l.Bugs = tt.bugs
					for _, v := range protocol.RunStreamK(l, seed) {
						if v.Check == tt.check {
							if !strings.Contains(strings.ToLower(v.String()), "cta") {
								t.Errorf("violation %v does not name the CTA", v)
							}
							return
						}
					}
				}
			}
			t.Fatalf("no %s violation in 200 seeds", tt.check)
		})
	}
}

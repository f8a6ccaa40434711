package protocol_test

import (
	"math/rand"
	"slices"
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
// CTA resident or a few at a time (launched in CTA order), two launches on
// one workspace, and three where the epochs wrap after two.
func TestStreamKHandshake(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 300; i++ {
		tiles, kb, grid := 1+rng.Intn(40), 1+rng.Intn(60), 1+rng.Intn(24)
		for _, pp := range []bool{false, true} {
			for _, res := range []int{0, 1, 3} {
				l := skLaunch(tiles, kb, grid, pp, res)
				if i%3 == 0 {
					l.MaxEpoch, l.Launches = 2, 3
				}
				if v := protocol.RunStreamK(l, int64(i)); len(v) > 0 {
					t.Fatalf("tiles %d, k-blocks %d, grid %d, ping-pong %v, resident %d, epochs wrapping at %d: %v", tiles, kb, grid, pp, res, l.MaxEpoch, v)
				}
			}
		}
	}
	// The H200's 2048x7168x4096 gemm at 128x256: 3 whole waves, 52 tiles split.
	if v := protocol.RunStreamK(skLaunch(448, 64, 132, false, 0), 1); len(v) > 0 {
		t.Fatal(v)
	}
	// The decode plans of docs/PERFORMANCE.md#decode on 132 CTAs, ping-pong
	// 64x128: fwd_gateup 64,7168,2048 (32 tiles of 112 k-blocks, ~4 parts
	// each), gemm 16,28672,4096 (a whole wave, then 92 tiles split) and
	// 1,1032,4104 (9 tiles over 73 CTAs, ~8 parts each: odd and even
	// numbers of lower parts for the pair adds).
	for _, d := range [][3]int{{32, 112, 132}, {224, 64, 132}, {9, 65, 132}} {
		for _, res := range []int{0, 5} {
			if v := protocol.RunStreamK(skLaunch(d[0], d[1], d[2], true, res), 2); len(v) > 0 {
				t.Fatalf("decode plan %v, resident %d: %v", d, res, v)
			}
		}
	}
}

// A partial late past its owner's hang timeout (a CTA stalled for
// seconds): that launch's output is wrong, but the next launch on the
// workspace is right with epoch flags. The reset scheme they replaced
// fails it: the late flag, set after the owner's reset, stays set, and the
// next launch's owner reads that slot before it is stored.
func TestStreamKLatePartial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reset    bool
		maxEpoch int
		want     string // the check that fails; "" for none
	}{
		{"epoch flags", false, 0, ""},
		{"epoch flags wrapping", false, 2, ""},
		{"reset flags", true, 0, "visibility"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			failed := false
			// 5 tiles of 40 k-blocks on 4 CTAs: one tile cut over 4 CTAs;
			// CTA 0 holds its head, CTA 3 owns it.
			for seed := int64(0); seed < 200 && !failed; seed++ {
				for _, pp := range []bool{false, true} {
					l := skLaunch(5, 40, 4, pp, 0)
					l.Launches, l.MaxEpoch, l.ResetFlags = 3, tt.maxEpoch, tt.reset
					l.Late = &protocol.SKLate{Launch: 1, CTA: 0}
					v := protocol.RunStreamK(l, seed)
					if tt.want == "" && len(v) > 0 {
						t.Fatalf("seed %d, ping-pong %v: %v", seed, pp, v)
					}
					for _, x := range v {
						if x.Check != tt.want {
							t.Fatalf("seed %d, ping-pong %v: %v, want a %s violation", seed, pp, x, tt.want)
						}
						if !strings.Contains(x.Where, "launch 2") {
							t.Errorf("violation %v: want it in launch 2, after the late one", x)
						}
						failed = true
					}
				}
			}
			if tt.want != "" && !failed {
				t.Fatalf("no %s violation in 200 seeds", tt.want)
			}
		})
	}
}

// Each seeded bug in sw_sk_fixup and sw_sk_finish is caught, with a check
// that names it.
func TestStreamKSeededBugs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bugs     protocol.SKBugs
		maxEpoch int
		checks   []string
	}{
		{"missing release", protocol.SKBugs{NoRelease: true}, 0, []string{"deadlock"}},
		{"release before the partial's store", protocol.SKBugs{ReleaseBeforeWrite: true}, 0, []string{"visibility"}},
		{"owner does not wait", protocol.SKBugs{OwnerNoWait: true}, 0, []string{"visibility"}},
		{"partials added as they arrive", protocol.SKBugs{ArrivalOrder: true}, 0, []string{"order"}},
		{"owner waits for a nonzero flag", protocol.SKBugs{WaitNonzero: true}, 0, []string{"visibility"}},
		{"epoch never advanced", protocol.SKBugs{NoAdvance: true}, 0, []string{"flags"}},
		{"first consumer done advances the epoch", protocol.SKBugs{AdvanceFirst: true}, 0, []string{"deadlock", "flags"}},
		{"flags kept when the epochs wrap", protocol.SKBugs{NoWrapZero: true}, 2, []string{"flags"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// 5 tiles of 40 k-blocks on 4 CTAs: 1 whole wave, one tile cut
			// over 4 CTAs (three partials for its owner).
			for seed := int64(0); seed < 200; seed++ {
				for _, pp := range []bool{false, true} {
					l := skLaunch(5, 40, 4, pp, 0)
					l.Bugs, l.MaxEpoch, l.Launches = tt.bugs, tt.maxEpoch, 3
					for _, v := range protocol.RunStreamK(l, seed) {
						if slices.Contains(tt.checks, v.Check) {
							if !strings.Contains(strings.ToLower(v.String()), "cta") {
								t.Errorf("violation %v does not name the CTA", v)
							}
							return
						}
					}
				}
			}
			t.Fatalf("no %v violation in 200 seeds", tt.checks)
		})
	}
}

package protocol

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pingPongSpec is bwd_dswiglu's sm_90a ping-pong 128x128 protocol, four
// operand stages, written out by hand (fromview.ProtocolSpec derives the same
// from the view; this package cannot import gen).
func pingPongSpec() Spec {
	return Spec{
		Name: "pingpong-128x128-s4", Arch: SM90a,
		TileM: 128, TileN: 128, TileK: 64, SubM: 64, SubN: 64, Raster: "m", SwizzleGroup: 1, ClusterM: 1, ClusterN: 1,
		Ring: Ring{Stages: 4, FullInit: 1, EmptyInit: 4, TxBytes: 32768, StageBytes: 32768,
			Loads:      []Load{{16384, -1}, {16384, -1}},
			FullParity: Parity{Div: 4}, EmptyParity: Parity{Div: 4, Xor: 1}},
		Epi: Epi{Stages: 2, Loads: []int{8192, 8192}, FillBytes: 16384, TxBytes: 16384,
			FullInit: 1, EmptyInit: 4, ReleaseArrivals: 4, ProducerStores: true, StoreLag: 1,
			FullParity: Parity{Div: 2}, EmptyParity: Parity{Div: 2, Xor: 1}, DrainParity: Parity{Div: 2}},
		SM90: &SM90{Schedule: PingPong, TileStart: 1, TileStep: 2, OrderWait: true, OrderInit: 1, OrderParity: Parity{Div: 1},
			MB: 2, NB: 2, ReleaseWarps: 4, Threads: 384, ProducerRegs: 40, ConsumerRegs: 232},
	}
}

// pairSpec is bwd_dswiglu's sm_100a 2-CTA 256x256 protocol with a CLC
// ring of three, by hand.
func pairSpec() Spec {
	return Spec{
		Name: "pair-256x256-s5-clc3", Arch: SM100a,
		TileM: 256, TileN: 256, TileK: 64, SubM: 128, SubN: 64, Raster: "m", SwizzleGroup: 1, ClusterM: 2, ClusterN: 1,
		Ring: Ring{Stages: 5, FullInit: 1, EmptyInit: 1, TxBytes: 65536, StageBytes: 32768,
			Loads:      []Load{{16384, -1}, {16384, -1}},
			FullParity: Parity{Div: 5}, EmptyParity: Parity{Div: 5, Xor: 1}},
		Epi: Epi{Stages: 2, Loads: []int{16384, 16384}, FillBytes: 32768, TxBytes: 32768,
			FullInit: 1, EmptyInit: 1, ReleaseArrivals: 1, StoreLag: 1,
			FullParity: Parity{Div: 2}, EmptyParity: Parity{Div: 2, Xor: 1}},
		SM100: &SM100{CTAsPerTile: 2, AccStages: 2, TFullInit: 1, TEmptyInit: 256,
			TFullParity: Parity{Div: 2}, TEmptyParity: Parity{Div: 2, Xor: 1},
			EpiThreads: 128, CommitMask: 3, ProducerDrain: true,
			CLC: true, CLCStages: 3, CLCFullInit: 1, CLCEmptyInit: 2*(3+128) + 1, CLCTxBytes: 16,
			CLCFullParity: Parity{Div: 3}, CLCEmptyParity: Parity{Div: 3, Xor: 1}},
	}
}

// groupedSpec is moe_fwd_gateup's sm_100a 1cta 128x128 (output columns)
// store-only protocol on the grouped walk, by hand.
func groupedSpec() Spec {
	return Spec{
		Name: "grouped-1cta-128x128-s4", Arch: SM100a,
		TileM: 128, TileN: 128, TileK: 64, SubM: 128, SubN: 64, Raster: "m", SwizzleGroup: 1, ClusterM: 1, ClusterN: 1,
		Ring: Ring{Stages: 4, FullInit: 1, EmptyInit: 1, TxBytes: 49152, StageBytes: 49152,
			Loads:      []Load{{16384, -1}, {16384, -1}, {16384, -1}},
			FullParity: Parity{Div: 4}, EmptyParity: Parity{Div: 4, Xor: 1}},
		Epi: Epi{Stages: 2, FullInit: 1, EmptyInit: 1, ReleaseArrivals: 1, StoreLag: 1,
			FullParity: Parity{Div: 2}, EmptyParity: Parity{Div: 2, Xor: 1}},
		SM100: &SM100{CTAsPerTile: 1, AccStages: 2, TFullInit: 1, TEmptyInit: 128,
			TFullParity: Parity{Div: 2}, TEmptyParity: Parity{Div: 2, Xor: 1},
			EpiThreads: 128, ProducerDrain: true, Grouped: true},
	}
}

// groupedBwdSpec is moe_bwd_dswiglu's sm_100a 1cta 128x128 protocol on
// the grouped walk (de loaded by warp 2, MN-major W_down), by hand.
func groupedBwdSpec() Spec {
	return Spec{
		Name: "grouped-bwd-1cta-128x128-s5", Arch: SM100a,
		TileM: 128, TileN: 128, TileK: 64, SubM: 128, SubN: 64, Raster: "m", SwizzleGroup: 1, ClusterM: 1, ClusterN: 1,
		Ring: Ring{Stages: 5, FullInit: 1, EmptyInit: 1, TxBytes: 32768, StageBytes: 32768,
			Loads:      []Load{{16384, -1}, {8192, -1}, {8192, -1}},
			FullParity: Parity{Div: 5}, EmptyParity: Parity{Div: 5, Xor: 1}},
		Epi: Epi{Stages: 2, Loads: []int{16384, 16384}, FillBytes: 32768, TxBytes: 32768,
			FullInit: 1, EmptyInit: 1, ReleaseArrivals: 1, StoreLag: 1,
			FullParity: Parity{Div: 2}, EmptyParity: Parity{Div: 2, Xor: 1}},
		SM100: &SM100{CTAsPerTile: 1, AccStages: 2, TFullInit: 1, TEmptyInit: 128,
			TFullParity: Parity{Div: 2}, TEmptyParity: Parity{Div: 2, Xor: 1},
			EpiThreads: 128, ProducerDrain: true, Grouped: true, RaggedArrivals: 1},
	}
}

// scenarioNamed is the standard scenario name of sp.
func scenarioNamed(t *testing.T, sp Spec, name string) Scenario {
	t.Helper()
	for _, sc := range Scenarios(sp) {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("%s has no scenario %s", sp.Name, name)
	return Scenario{}
}

// ran runs cluster cl of sc round robin and returns the finished run.
func ran(t *testing.T, sp Spec, sc Scenario, cl int) *sim {
	t.Helper()
	var s *sim
	if sp.Arch == SM90a {
		s = buildSM90(&sp, sc, cl, Policy{})
	} else {
		s = buildSM100(&sp, sc, cl, Policy{})
	}
	s.run(stepLimit)
	if len(s.viol) > 0 {
		t.Fatalf("%s, %s: %v", sp.Name, sc.Name, s.viol)
	}
	return s
}

// TestProtocolHandSpecs checks the hand-written specs pass, so that the
// coverage below is of correct runs.
func TestProtocolHandSpecs(t *testing.T) {
	for _, sp := range []Spec{pingPongSpec(), pairSpec(), groupedSpec(), groupedBwdSpec()} {
		res, err := Verify(sp, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Result(nil), res); diff != "" {
			t.Errorf("%s (-want +got):\n%s", sp.Name, diff)
		}
	}
}

// TestProtocolScenarioCoverage checks that the standard scenarios reach
// the situations they are named for: rings that wrap, one k-block and
// many, sub-tiles skipped at the edges, a 2-CTA peer with no rows, a
// cluster with no work, CLC rings that wrap and responses that fail, and
// (sm_100a grouped walk) empty experts and a CTA past the last tile.
func TestProtocolScenarioCoverage(t *testing.T) {
	pp, pair, gr, grBwd := pingPongSpec(), pairSpec(), groupedSpec(), groupedBwdSpec()
	static := pair.Clone()
	static.SM100.CLC = false
	completed := func(s *sim, bar string) int { return s.bars[s.bar(bar)].completed }
	tests := []struct {
		name     string
		sp       Spec
		scenario string
		cluster  int
		holds    func(*sim) bool
	}{
		{"one k-block per tile", pp, "single", 0, func(s *sim) bool { return completed(s, "cta0/full[0]") == 1 && completed(s, "cta0/full[1]") == 0 }},
		{"operand ring wraps", pp, "wrap", 0, func(s *sim) bool { return completed(s, "cta0/full[0]") >= 3 }},
		{"epilogue ring wraps", pp, "wrap", 0, func(s *sim) bool { return completed(s, "cta0/c0.efull[0]") >= 3 }},
		{"many k-blocks in one tile", pp, "deep-k", 0, func(s *sim) bool { return completed(s, "cta0/full[0]") >= 4 }},
		{"ragged edge sub-tiles skipped", pp, "ragged", 0, func(s *sim) bool {
			// 4 tiles of 2x2 sub-tiles; the last row and column lose one
			// sub-tile row and column: 4 + 2 + 2 + 1 run.
			return completed(s, "cta0/c0.efull[0]")+completed(s, "cta0/c0.efull[1]")+
				completed(s, "cta0/c1.efull[0]")+completed(s, "cta0/c1.efull[1]") == 9
		}},
		{"one valid sub-tile", pp, "tiny", 0, func(s *sim) bool {
			return completed(s, "cta0/c0.efull[0]") == 1 && completed(s, "cta0/c0.efull[1]") == 0
		}},
		{"a cluster without tiles", pp, "idle", 2, func(s *sim) bool { return completed(s, "cta0/full[0]") == 0 }},
		{"2-CTA peer with no rows", static, "tiny", 0, func(s *sim) bool {
			return completed(s, "cta0/efull[0]") == 1 && completed(s, "cta1/efull[0]") == 0 && completed(s, "cta0/tempty[0]") == 1
		}},
		{"peer with no rows in the last tile row", static, "ragged", 0, func(s *sim) bool {
			return completed(s, "cta1/efull[0]")+completed(s, "cta1/efull[1]") < completed(s, "cta0/efull[0]")+completed(s, "cta0/efull[1]")
		}},
		{"accumulators wrap", static, "wrap", 0, func(s *sim) bool { return completed(s, "cta0/tfull[0]") >= 2 }},
		{"clc ring wraps", pair, "clc-steal-all", 0, func(s *sim) bool { return completed(s, "cta0/clcfull[0]") >= 2 && completed(s, "cta1/clcfull[0]") >= 2 }},
		{"first clc request fails", pair, "clc-first-fails", 0, func(s *sim) bool { return completed(s, "cta0/clcfull[0]") == 1 && completed(s, "cta0/clcfull[1]") == 0 }},
		{"stolen tiles with a peer holding no rows", pair, "clc-edge-reverse", 0, func(s *sim) bool {
			return completed(s, "cta0/tfull[0]")+completed(s, "cta0/tfull[1]") == 3 && completed(s, "cta1/efull[0]") == 0
		}},
		// Experts of 0, TileM+37, 0, 0 and 5 rows: 2 + 1 m-blocks by two
		// n-blocks, 6 tiles; CTA 0 of two runs tiles 0, 2 and 4.
		{"grouped: empty experts add no tiles", gr, "gr-empty", 0, func(s *sim) bool {
			return completed(s, "cta0/tfull[0]")+completed(s, "cta0/tfull[1]") == 3
		}},
		// One expert of 2*TileM-3 rows, two n-blocks: 4 tiles on 5 CTAs.
		{"grouped: a CTA past the last tile", gr, "gr-all-one", 4, func(s *sim) bool {
			return completed(s, "cta0/full[0]") == 0 && completed(s, "cta0/tfull[0]") == 0
		}},
		// Four experts under TileM rows by two n-blocks (2 and 1 sub-tiles):
		// 12 sub-tiles, all ragged, so de slot 0 is refilled five times
		// after a ragged sub-tile freed it.
		{"grouped backward: de slots refilled after ragged sub-tiles only", grBwd, "gr-ragged-run", 0, func(s *sim) bool {
			return completed(s, "cta0/efull[0]") == 6 && completed(s, "cta0/eempty[0]") == 6
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ran(t, tt.sp, scenarioNamed(t, tt.sp, tt.scenario), tt.cluster)
			if !tt.holds(s) {
				var got []string
				for _, b := range s.bars {
					got = append(got, fmt.Sprintf("%s=%d", b.name, b.completed))
				}
				t.Errorf("%s, %s, cluster %d: not reached; phases completed: %v", tt.sp.Name, tt.scenario, tt.cluster, got)
			}
		})
	}
}

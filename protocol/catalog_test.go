package protocol_test

// The model run on what the generator emits: every catalog config and the
// tuning spaces through fromview.ProtocolSpec, the seeded bugs the model must
// catch on both architectures, and the H200 observations it reproduces.

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/protocol/fromview"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// specsOf returns the protocol specs of cfgs, one per distinct protocol:
// the dtype, the sigmoid and the L2 policy change no barrier.
func specsOf(t *testing.T, cfgs []tiling.Config) []protocol.Spec {
	t.Helper()
	seen := map[string]bool{}
	var out []protocol.Spec
	for _, c := range cfgs {
		sp, err := fromview.ProtocolSpec(tilingtest.Check(t, c))
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		key := sp.Clone()
		key.Name = ""
		b, err := json.Marshal(key)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, sp)
		}
	}
	return out
}

func verifyAll(t *testing.T, specs []protocol.Spec) {
	t.Helper()
	for _, sp := range specs {
		t.Run(sp.Name, func(t *testing.T) {
			t.Parallel()
			res, err := protocol.Verify(sp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]protocol.Result(nil), res); diff != "" {
				t.Errorf("protocol violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProtocolCatalog runs every catalog config of both architectures
// over the standard scenarios under every policy: the protocol the
// templates render must hold.
func TestProtocolCatalog(t *testing.T) {
	verifyAll(t, specsOf(t, tiling.Catalog()))
}

// TestProtocolTuningSpace runs the sm_90a bwd_dswiglu tuning space (with
// and without StoreOut: clusters, ping-pong, cooperative and overlap at
// every ring depth the tuner tries) and the sm_100a space of every kind.
func TestProtocolTuningSpace(t *testing.T) {
	var cfgs []tiling.Config
	for _, d := range tiling.DTypes() {
		cfgs = append(cfgs, tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, d)...)
		cfgs = append(cfgs, tiling.SpaceStoreOut(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, d)...)
	}
	for _, k := range tiling.Kernels() {
		cfgs = append(cfgs, tiling.Space(k, tiling.ArchSM100a, tiling.BF16)...)
		cfgs = append(cfgs, tiling.SpaceStoreOut(k, tiling.ArchSM100a, tiling.BF16)...)
	}
	if len(cfgs) == 0 {
		t.Fatal("empty tuning spaces")
	}
	verifyAll(t, specsOf(t, cfgs))
}

// TestProtocolNarrowEpilogue runs the sm_90a bwd_dswiglu configs with
// 64x32 epilogue sub-tiles (twice the sub-tiles, 4 slots per consumer),
// which neither the catalog nor the tuning space holds.
func TestProtocolNarrowEpilogue(t *testing.T) {
	var cfgs []tiling.Config
	for _, name := range []string{
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_e64x32s4_out_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_cooperative_e64x32s4",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_pipe_l2k",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	verifyAll(t, specsOf(t, cfgs))
}

// bugConfigs are the configs the seeded bugs are planted in: each
// schedule and epilogue style of both architectures.
var bugConfigs = []string{
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
	"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c2x1_cooperative",
	"fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn_res",
	"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_amn_bmn",
	"bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta",
	"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc",
	"bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x2_1cta_clc",
	"gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc",
	"moe_fwd_gateup_sm100a_bf16_m128n128k64_s6_c1x1_1cta",
	"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn",
}

func specNamed(t *testing.T, name string) protocol.Spec {
	t.Helper()
	c, err := tiling.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := fromview.ProtocolSpec(tilingtest.Check(t, c))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// failedChecks are the checks the failed runs of res name.
func failedChecks(res []protocol.Result) []string {
	var out []string
	for _, r := range res {
		for _, v := range r.Violations {
			if !slices.Contains(out, v.Check) {
				out = append(out, v.Check)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestProtocolSeededBugs plants one bug at a time in the spec of each bug
// config it applies to (mutate reports whether it does) and requires the
// model to fail with the check that names it. The rows marked for both
// architectures must apply to, and fail on, both.
func TestProtocolSeededBugs(t *testing.T) {
	both := []protocol.Arch{protocol.SM90a, protocol.SM100a}
	sm90 := []protocol.Arch{protocol.SM90a}
	sm100 := []protocol.Arch{protocol.SM100a}
	loads := func(sp *protocol.Spec) bool { return len(sp.Epi.Loads) > 0 }
	tests := []struct {
		name   string
		arches []protocol.Arch
		mutate func(*protocol.Spec) bool
		want   string
	}{
		{"stage empty init one too many", both, func(s *protocol.Spec) bool { s.Ring.EmptyInit++; return true }, protocol.CheckDeadlock},
		{"stage empty init one too few", both, func(s *protocol.Spec) bool { s.Ring.EmptyInit--; return true }, protocol.CheckArrivals},
		{"stage full init one too many", both, func(s *protocol.Spec) bool { s.Ring.FullInit++; return true }, protocol.CheckDeadlock},
		{"consumer parity flipped", both, func(s *protocol.Spec) bool { s.Ring.FullParity.Xor ^= 1; return true }, protocol.CheckParity},
		{"producer parity flipped", both, func(s *protocol.Spec) bool { s.Ring.EmptyParity.Xor ^= 1; return true }, protocol.CheckDeadlock},
		{"parity from the wrong ring depth", both, func(s *protocol.Spec) bool { s.Ring.FullParity.Div++; return true }, protocol.CheckParity},
		{"stage expect-tx one box short", both, func(s *protocol.Spec) bool {
			s.Ring.TxBytes -= s.Ring.Loads[len(s.Ring.Loads)-1].Bytes
			return true
		}, protocol.CheckTx},
		{"epilogue slot release missing", both, func(s *protocol.Spec) bool { s.Epi.ReleaseArrivals = 0; return loads(s) }, protocol.CheckDeadlock},
		{"epilogue slot empty init one too many", both, func(s *protocol.Spec) bool { s.Epi.EmptyInit++; return loads(s) }, protocol.CheckDeadlock},
		{"epilogue expect-tx one load short", both, func(s *protocol.Spec) bool {
			if len(s.Epi.Loads) < 2 {
				return false
			}
			s.Epi.TxBytes -= s.Epi.Loads[0]
			return true
		}, protocol.CheckTx},
		{"epilogue parity flipped", both, func(s *protocol.Spec) bool { s.Epi.FullParity.Xor ^= 1; return loads(s) }, protocol.CheckParity},
		{"store-only slot reused one store early", both, func(s *protocol.Spec) bool { s.Epi.StoreLag++; return !loads(s) }, protocol.CheckOverwrite},

		{"stage release missing", sm90, func(s *protocol.Spec) bool { s.SM90.ReleaseWarps = 0; return true }, protocol.CheckDeadlock},
		{"one warp short of the stage release", sm90, func(s *protocol.Spec) bool { s.SM90.ReleaseWarps--; return true }, protocol.CheckDeadlock},
		{"ping-pong without order barriers", sm90, func(s *protocol.Spec) bool {
			s.SM90.OrderWait = false
			return s.SM90.Schedule == protocol.PingPong
		}, protocol.CheckParity},
		{"ping-pong order arrive before the mainloop", sm90, func(s *protocol.Spec) bool {
			// The partner may run a whole tile ahead: the arrive must wait
			// until this consumer has issued its last k-block.
			s.SM90.OrderLead = 1 << 20
			return s.SM90.OrderWait
		}, protocol.CheckParity},
		{"order parity flipped", sm90, func(s *protocol.Spec) bool {
			s.SM90.OrderParity.Xor ^= 1
			return s.SM90.OrderWait
		}, protocol.CheckParity},
		{"cluster stage released in the own CTA only", sm90, func(s *protocol.Spec) bool {
			s.SM90.ReleaseAllCTAs = false
			return s.ClusterM*s.ClusterN > 1
		}, protocol.CheckDeadlock},
		{"multicast share loaded by no CTA", sm90, func(s *protocol.Spec) bool {
			for i, l := range s.Ring.Loads {
				if l.Rank > 0 {
					s.Ring.Loads[i].Rank = s.ClusterM * s.ClusterN
					return true
				}
			}
			return false
		}, protocol.CheckDeadlock},
		{"producer-stored slot drained with the wrong parity", sm90, func(s *protocol.Spec) bool {
			s.Epi.DrainParity.Xor ^= 1
			return s.Epi.ProducerStores
		}, protocol.CheckParity},

		{"commit mask misses the peer CTA", sm100, func(s *protocol.Spec) bool {
			s.SM100.CommitMask = 1
			return s.SM100.CTAsPerTile == 2
		}, protocol.CheckDeadlock},
		{"accumulator empty init counts one CTA of the pair", sm100, func(s *protocol.Spec) bool {
			s.SM100.TEmptyInit = s.SM100.EpiThreads
			return s.SM100.CTAsPerTile == 2
		}, protocol.CheckArrivals},
		{"accumulator release missing", sm100, func(s *protocol.Spec) bool { s.SM100.EpiThreads = 0; return true }, protocol.CheckDeadlock},
		{"accumulator parity flipped", sm100, func(s *protocol.Spec) bool { s.SM100.TFullParity.Xor ^= 1; return true }, protocol.CheckParity},
		{"three accumulators, parity of two", sm100, func(s *protocol.Spec) bool { s.SM100.AccStages = 3; return true }, protocol.CheckParity},
		{"no producer drain before exit", sm100, func(s *protocol.Spec) bool { s.SM100.ProducerDrain = false; return true }, protocol.CheckExit},
		{"clc empty init one too few", sm100, func(s *protocol.Spec) bool { s.SM100.CLCEmptyInit--; return s.SM100.CLC }, protocol.CheckArrivals},
		{"clc empty init forgets the MMA thread", sm100, func(s *protocol.Spec) bool {
			s.SM100.CLCEmptyInit -= s.ClusterM * s.ClusterN / s.SM100.CTAsPerTile
			return s.SM100.CLC
		}, protocol.CheckArrivals},
		{"clc parity from the wrong ring depth", sm100, func(s *protocol.Spec) bool {
			s.SM100.CLCFullParity.Div++
			return s.SM100.CLC
		}, protocol.CheckParity},
		{"grouped ragged sub-tile waits for all but StoreLag stores only", sm100, func(s *protocol.Spec) bool {
			s.SM100.RaggedWaitRead = s.Epi.StoreLag
			return s.SM100.Grouped && !loads(s)
		}, protocol.CheckOverwrite},
		{"grouped ragged sub-tile keeps its de slot (the release inside the store branch)", sm100, func(s *protocol.Spec) bool {
			s.SM100.RaggedArrivals = 0
			return s.SM100.Grouped && loads(s)
		}, protocol.CheckDeadlock},
		{"clc response expect-tx short", sm100, func(s *protocol.Spec) bool { s.SM100.CLCTxBytes -= 8; return s.SM100.CLC }, protocol.CheckDeadlock},
	}
	specs := map[string]protocol.Spec{}
	for _, n := range bugConfigs {
		specs[n] = specNamed(t, n)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			applied := map[protocol.Arch]bool{}
			for _, n := range bugConfigs {
				sp := specs[n].Clone()
				if !slices.Contains(tt.arches, sp.Arch) || !tt.mutate(&sp) {
					continue
				}
				applied[sp.Arch] = true
				res, err := protocol.Explore(sp, nil)
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				if got := failedChecks(res); !slices.Contains(got, tt.want) {
					t.Errorf("%s: checks failed %v, want %s among them", n, got, tt.want)
				}
			}
			for _, a := range tt.arches {
				if !applied[a] {
					t.Errorf("the bug applies to no %s config", a)
				}
			}
		})
	}
}

// TestProtocolH200Observations reproduces what the H200 showed: each
// deadlock or race that was a real bug, and the outcome the kernel had.
func TestProtocolH200Observations(t *testing.T) {
	t.Run("shared epilogue ring races on CTAs with two tiles", func(t *testing.T) {
		// docs/PERFORMANCE.md#epilogue-shared-ring: one ring of 2 slots
		// shared by both ping-pong consumers trapped at 1536x264x2056
		// (bwd_dswiglu M=1536, K=264, I=2056: 204 tiles on 132 CTAs),
		// the first ragged shape with 2+ tiles per CTA; private rings do
		// not race.
		base := specNamed(t, "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_e64x64s1")
		h200 := []protocol.Scenario{
			{Name: "two tiles per CTA", M: 1536, N: 2056, K: 264, Grid: 132, Clusters: []int{0, 71}},
			{Name: "one tile per CTA", M: 1536, N: 2056, K: 264, Grid: 132, Clusters: []int{72, 131}},
		}
		tests := []struct {
			shared bool
			want   []string // per scenario: the checks failed
		}{
			{false, nil},
			{true, []string{protocol.CheckParity}},
		}
		for _, tt := range tests {
			sp := base.Clone()
			if tt.shared {
				ring := 2 * sp.Epi.Stages
				sp.SM90.SharedEpiRing = true
				sp.Epi.FullParity.Div, sp.Epi.EmptyParity.Div, sp.Epi.DrainParity.Div = ring, ring, ring
			}
			for i, sc := range h200 {
				res, err := protocol.Verify(sp, []protocol.Scenario{sc})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				if i == 0 {
					want = tt.want
				}
				if diff := cmp.Diff(want, failedChecks(res)); diff != "" {
					t.Errorf("shared ring %t, %s (-want +got):\n%s\n%v", tt.shared, sc.Name, diff, res)
				}
			}
		}
	})
	t.Run("setmaxnreg split", func(t *testing.T) {
		// docs/PERFORMANCE.md#trap-caps-registers: 32/240 never launched,
		// 24/240 and 40/232 fit (3 x 168 registers per thread row).
		tests := []struct {
			producer, consumer int
			outcome            string
		}{{40, 232, ""}, {24, 240, ""}, {32, 240, protocol.OutcomeHang}}
		for _, tt := range tests {
			sp := specNamed(t, "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn")
			sp.SM90.ProducerRegs, sp.SM90.ConsumerRegs = tt.producer, tt.consumer
			v, err := protocol.Run(sp, protocol.Scenarios(sp)[0], 0, protocol.Policy{Name: "round-robin"})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(v) > 0 {
				got = v[0].Outcome
			}
			if got != tt.outcome {
				t.Errorf("%d/%d: outcome %q, want %q (%v)", tt.producer, tt.consumer, got, tt.outcome, v)
			}
		}
	})
	t.Run("hang probe traps", func(t *testing.T) {
		// docs/PERFORMANCE.md#probes: the hang probe's producer waits on a
		// phase that never completes; on the H200 every sm_90a config
		// traps at the deadline and the launch fails.
		for _, c := range tiling.Catalog() {
			if c.Arch != tiling.ArchSM90a {
				continue
			}
			sp, err := fromview.ProtocolSpec(tilingtest.Check(t, c))
			if err != nil {
				t.Fatal(err)
			}
			sp.SM90.HangProbe = true
			v, err := protocol.Run(sp, protocol.Scenarios(sp)[0], 0, protocol.Policy{Name: "round-robin"})
			if err != nil {
				t.Fatal(err)
			}
			want := []protocol.Violation{{Check: protocol.CheckDeadlock, Outcome: protocol.OutcomeTrap}}
			if diff := cmp.Diff(want, v, cmp.FilterPath(func(p cmp.Path) bool {
				f := p.Last().String()
				return f == ".Where" || f == ".Detail"
			}, cmp.Ignore())); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.Name(), diff)
			}
		}
	})
}

// TestProtocolSpecAdapter pins what fromview.ProtocolSpec reads off the views
// for one config of each protocol shape, against values worked out by
// hand from the templates.
func TestProtocolSpecAdapter(t *testing.T) {
	type summary struct {
		EmptyInit, TxBytes, StageBytes int
		Loads                          []protocol.Load
		EpiLoads                       []int
		EpiEmptyInit, EpiRelease       int
		Release, TEmptyInit, CLCEmpty  int
		CommitMask                     int
		AllCTAs                        bool
	}
	sum := func(sp protocol.Spec) summary {
		s := summary{EmptyInit: sp.Ring.EmptyInit, TxBytes: sp.Ring.TxBytes, StageBytes: sp.Ring.StageBytes, Loads: sp.Ring.Loads,
			EpiLoads: sp.Epi.Loads, EpiEmptyInit: sp.Epi.EmptyInit, EpiRelease: sp.Epi.ReleaseArrivals}
		if m := sp.SM90; m != nil {
			s.Release, s.AllCTAs = m.ReleaseWarps, m.ReleaseAllCTAs
		}
		if m := sp.SM100; m != nil {
			s.TEmptyInit, s.CLCEmpty, s.CommitMask = m.TEmptyInit, m.CLCEmptyInit, m.CommitMask
		}
		return s
	}
	tests := []struct {
		name string
		want summary
	}{
		{
			// Ping-pong: one consumer's 4 warps release a stage; A is a
			// 64x128 box, B (MN-major) two 64x64 slabs; de's left and
			// gate sub-tiles are 64x64 each, released by 4 warps.
			"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
			summary{EmptyInit: 4, TxBytes: 32768, StageBytes: 32768,
				Loads:    []protocol.Load{{Bytes: 16384, Rank: -1}, {Bytes: 8192, Rank: -1}, {Bytes: 8192, Rank: -1}},
				EpiLoads: []int{8192, 8192}, EpiEmptyInit: 4, EpiRelease: 4, Release: 4},
		},
		{
			// A 2x1 cluster: both consumers of both CTAs release every
			// stage of both; B's two halves come from rank 0 and rank 1.
			"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c2x1_cooperative",
			summary{EmptyInit: 16, TxBytes: 32768, StageBytes: 32768,
				Loads:    []protocol.Load{{Bytes: 16384, Rank: -1}, {Bytes: 8192, Rank: 0}, {Bytes: 8192, Rank: 1}},
				EpiLoads: []int{8192, 8192}, EpiEmptyInit: 4, EpiRelease: 4, Release: 4, AllCTAs: true},
		},
		{
			// The pair: the leader expects both CTAs' stages; the 256
			// epilogue threads of both free an accumulator; every role of
			// both CTAs (3 + 128 each) and the one MMA thread read a CLC
			// response.
			"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc",
			summary{EmptyInit: 1, TxBytes: 65536, StageBytes: 32768,
				Loads:    []protocol.Load{{Bytes: 16384, Rank: -1}, {Bytes: 8192, Rank: -1}, {Bytes: 8192, Rank: -1}},
				EpiLoads: []int{16384, 16384}, EpiEmptyInit: 1, EpiRelease: 1, TEmptyInit: 256, CLCEmpty: 263, CommitMask: 3},
		},
		{
			// Store-only 1-CTA gemm: no epilogue loads, no CLC.
			"gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
			summary{EmptyInit: 1, TxBytes: 49152, StageBytes: 49152,
				Loads:        []protocol.Load{{Bytes: 16384, Rank: -1}, {Bytes: 32768, Rank: -1}},
				EpiEmptyInit: 1, EpiRelease: 1, TEmptyInit: 128},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, sum(specNamed(t, tt.name))); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProtocolSeedRound2 runs the model on the configs bench/seed_epi_ab2.sh
// times beside the product ones (none in the catalog): a third de slot per
// consumer at 128x192 (paid for by a third operand stage fewer) and at
// 128x128, and the fused forward's training kernel with five operand stages
// and one epilogue slot per consumer.
func TestProtocolSeedRound2(t *testing.T) {
	var cfgs []tiling.Config
	for _, name := range []string{
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_pingpong_rn_g4_e64x64s3_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_pingpong_e64x64s3",
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x64s3",
		"fwd_gateup_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_e64x64s1_out",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	verifyAll(t, specsOf(t, cfgs))
}

package protocol_test

import (
	"testing"

	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/tiling"
)

// groupedSpecs is the protocol specs of the named grouped configs, each
// checked to model the grouped tile walk (grouped reports it for the
// spec's arch) and to run only scenarios with expert counts.
func groupedSpecs(t *testing.T, names []string, grouped func(protocol.Spec) bool) []protocol.Spec {
	t.Helper()
	var cfgs []tiling.Config
	for _, n := range names {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	specs := specsOf(t, cfgs)
	for _, sp := range specs {
		if !grouped(sp) {
			t.Fatalf("%s: the spec does not model the grouped scheduler", sp.Name)
		}
		scs := protocol.Scenarios(sp)
		if len(scs) == 0 {
			t.Fatalf("%s: no scenarios", sp.Name)
		}
		for _, sc := range scs {
			if len(sc.Counts) == 0 {
				t.Errorf("%s: scenario %s has no expert counts", sp.Name, sc.Name)
			}
		}
	}
	return specs
}

func groupedSM90(sp protocol.Spec) bool  { return sp.SM90 != nil && sp.SM90.Grouped }
func groupedSM100(sp protocol.Spec) bool { return sp.SM100 != nil && sp.SM100.Grouped }

// TestGroupedConfigs runs the grouped (MoE) configs' protocol, inference
// and training (StoreOut: three buffers per epilogue slot), over the
// grouped scenarios (empty experts, one-token experts, sizes TileM-1,
// TileM, TileM+1, one expert holding every row with idle CTAs, deep K)
// under every policy.
func TestGroupedConfigs(t *testing.T) {
	verifyAll(t, groupedSpecs(t, []string{
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
		"moe_fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out",
		"moe_fwd_gateup_sm90a_bf16_m64n128k64_s5_c1x1_pingpong_out",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_score",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out_score",
	}, groupedSM90))
}

// TestGroupedSM100Configs runs the sm_100a moe_fwd_gateup configs'
// protocol (the grouped walk on the tcgen05 skeleton: one CTA per tile,
// inference and training, with and without the router score, which adds
// no barrier) over the grouped scenarios under every policy.
func TestGroupedSM100Configs(t *testing.T) {
	verifyAll(t, groupedSpecs(t, []string{
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
		"moe_fwd_gateup_sm100a_bf16_m128n128k64_s6_c1x1_1cta",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta_score",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
	}, groupedSM100))
}

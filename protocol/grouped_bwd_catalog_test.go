package protocol_test

import (
	"testing"
)

// TestGroupedBwdConfigs runs the moe_bwd_dswiglu configs' protocol (the
// dense backward's epilogue handshake: de loads, one release per consumer
// warp, the producer's stores) over the grouped scenarios under every
// policy; the spec must model the grouped scheduler and the epilogue
// loads.
func TestGroupedBwdConfigs(t *testing.T) {
	specs := groupedSpecs(t, []string{
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_bmn_out",
		"moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_cooperative_bmn_score",
	}, groupedSM90)
	for _, sp := range specs {
		if len(sp.Epi.Loads) == 0 {
			t.Fatalf("%s: the spec does not model the epilogue's de loads", sp.Name)
		}
	}
	verifyAll(t, specs)
}

// TestGroupedBwdSM100Configs runs the sm_100a moe_bwd_dswiglu configs'
// protocol (the grouped walk on the tcgen05 skeleton, one CTA per tile,
// with the dense backward's de loads by warp 2 and an expert's ragged last
// sub-tile stored from registers; with the router score, whose partials
// are plain stores after the tile's last sub-tile and add no barrier) over
// the grouped scenarios under every policy.
func TestGroupedBwdSM100Configs(t *testing.T) {
	specs := groupedSpecs(t, []string{
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n64k64_s5_c1x1_1cta_bmn_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn_score",
	}, groupedSM100)
	for _, sp := range specs {
		if len(sp.Epi.Loads) == 0 {
			t.Fatalf("%s: the spec does not model the epilogue's de loads", sp.Name)
		}
	}
	verifyAll(t, specs)
}

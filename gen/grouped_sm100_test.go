package gen

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestRenderGroupedScoreSM100: the sm_100a grouped kinds with the router
// score load it once per tile for the thread's row and scale by it (the
// forward's out; the backward's dout into the dSwiGLU and its stored out),
// the backward sums h*dout over the tile's columns into one partial per
// row, stored after the tile's last sub-tile; without the score none of
// it is rendered. The kernel declares the manifest's parameters
// (score_ptr, dscore_ptr among them).
func TestRenderGroupedScoreSM100(t *testing.T) {
	t.Parallel()
	load := "const float sc = sw_gr_score(score_ptr, r0 + row, row_end);"
	part := "asm volatile(\"st.global.f32 [%0], %1;\" :: \"l\"(p), \"f\"(dsc) : \"memory\");"
	for _, tc := range []struct {
		name         string
		want, absent []string
	}{
		{"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta_score",
			[]string{load, "(sc * (l0 * (g0 * sw_sigmoid(g0))), sc * (l1 * (g1 * sw_sigmoid(g1))))"}, []string{"dscore_ptr", "dsc"}},
		{"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
			[]string{load, "lw[h] = sw_pack_bf16x2(l0, l1);"}, []string{"dscore_ptr"}},
		{"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
			[]string{load, "float dsc = 0.0f;", "sw_dswiglu(sc * d0, l0, g0, dl0, dg0, o0);", "dsc += o0 * d0;",
				"ow[h] = sw_pack_bf16x2(sc * o0, sc * o1);", part, "static_assert(kTileN == 256"}, nil},
		{"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s5_c1x1_1cta_bmn_score_tanh",
			[]string{load, "sw_dswiglu_tanh(sc * d1, l1, g1, dl1, dg1, o1);", part}, []string{"ow[h]"}},
		{"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta", nil, []string{"score", "sw_gr_score", "sc *"}},
		{"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out", nil, []string{"score", "dsc", "sc *"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := tiling.ParseName(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := renderCfg(c)
			if err != nil {
				t.Fatal(err)
			}
			checkSource(t, string(a.Source), tc.want, append([]string{"<no value>"}, tc.absent...))
			checkGroupedSignature(t, a)
		})
	}
}

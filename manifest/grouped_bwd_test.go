package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestMoEBwdManifest: moe_bwd_dswiglu's sizes, its pointers after the
// scalars (out_ptr with store_out only), W_down's 3-D map [E][K][I] with a
// one-expert box, and the rules that refuse T = 0 and a ragged I by name.
func TestMoEBwdManifest(t *testing.T) {
	cases := []struct {
		name, params string
	}{
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn",
			"tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_de:tensormap:128/64, tmap_gde:tensormap:128/64, M:i32:4/4, I:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, gde_ptr:ptr:8/8"},
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
			"tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_de:tensormap:128/64, tmap_gde:tensormap:128/64, tmap_out:tensormap:128/64, M:i32:4/4, I:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, gde_ptr:ptr:8/8, out_ptr:ptr:8/8"},
	}
	for _, tc := range cases {
		c, err := tiling.ParseName(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		k, err := tiling.Check(c)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(k)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(m.Sizes, ","); got != "T,K,I,E" {
			t.Errorf("%s: sizes %s, want T,K,I,E", tc.name, got)
		}
		if got := ParamLayout(m.Params); got != tc.params {
			t.Errorf("%s: params %s\nwant %s", tc.name, got, tc.params)
		}
		w := m.Params[1].Map
		if diff := cmp.Diff([]Expr{"I", "K", "E"}, w.Dims); diff != "" {
			t.Errorf("%s: W_down map dims (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff([]int{64, 64, 1}, w.Box); diff != "" {
			t.Errorf("%s: W_down box (-want +got):\n%s", tc.name, diff)
		}
		if err := m.CheckSizes(Sizes{"T": 0, "K": 64, "I": 64, "E": 4}); err == nil || !strings.Contains(err.Error(), "T=0") {
			t.Errorf("%s: T=0: CheckSizes = %v, want the rule naming T=0", tc.name, err)
		}
		if err := m.CheckSizes(Sizes{"T": 5, "K": 64, "I": 60, "E": 4}); err == nil || !strings.Contains(err.Error(), "I=60") {
			t.Errorf("%s: I=60: CheckSizes = %v, want the rule naming I=60", tc.name, err)
		}
		if err := m.CheckSizes(Sizes{"T": 5, "K": 72, "I": 64, "E": 4}); err != nil {
			t.Errorf("%s: T=5 K=72: %v", tc.name, err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.name, err)
		}
	}
}

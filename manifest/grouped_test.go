package manifest

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestMoEGateUpManifest: the grouped kind's sizes, its offs and out
// pointers after the scalars, W's map over [E*2I, K], and the rule that
// refuses T = 0 by name.
func TestMoEGateUpManifest(t *testing.T) {
	c, err := tiling.ParseName("moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong")
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
		t.Errorf("sizes %s, want T,K,I,E", got)
	}
	want := "tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_out:tensormap:128/64, M:i32:4/4, I:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, out_ptr:ptr:8/8"
	if got := ParamLayout(m.Params); got != want {
		t.Errorf("params %s\nwant %s", got, want)
	}
	if d := m.Params[1].Map.Dims; len(d) != 2 || d[0] != "K" || d[1] != "2*I*E" {
		t.Errorf("W map dims %v, want [K 2*I*E]", d)
	}
	if err := m.CheckSizes(Sizes{"T": 0, "K": 64, "I": 64, "E": 4}); err == nil || !strings.Contains(err.Error(), "T=0") {
		t.Errorf("T=0: CheckSizes = %v, want the rule naming T=0", err)
	}
	if err := m.CheckSizes(Sizes{"T": 5, "K": 64, "I": 64, "E": 4}); err != nil {
		t.Errorf("T=5: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestMoEGateUpManifest: the grouped kind's sizes, its offs and out (and,
// training, de) pointers after the scalars, W's map over [E*2I, K], de's
// [T][2][I] map, and the rule that refuses T = 0 by name.
func TestMoEGateUpManifest(t *testing.T) {
	const inference = "tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_out:tensormap:128/64, M:i32:4/4, I:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, out_ptr:ptr:8/8"
	for _, tc := range []struct {
		name, params string
		buffers      []string
		deDims       []Expr // nil: no de map
	}{
		{"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", inference, []string{"x", "W", "out", "offs"}, nil},
		{"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
			"tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_out:tensormap:128/64, tmap_de:tensormap:128/64, M:i32:4/4, I:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, out_ptr:ptr:8/8, de_ptr:ptr:8/8",
			[]string{"x", "W", "out", "de", "offs"}, []Expr{"I", "2", "T"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := moeManifest(t, tc.name)
			if got := strings.Join(m.Sizes, ","); got != "T,K,I,E" {
				t.Errorf("sizes %s, want T,K,I,E", got)
			}
			if got := ParamLayout(m.Params); got != tc.params {
				t.Errorf("params %s\nwant %s", got, tc.params)
			}
			var bufs []string
			for _, b := range m.Buffers {
				bufs = append(bufs, b.Name)
			}
			if d := cmp.Diff(tc.buffers, bufs); d != "" {
				t.Errorf("buffers (-want +got):\n%s", d)
			}
			if d := m.Params[1].Map.Dims; len(d) != 2 || d[0] != "K" || d[1] != "2*I*E" {
				t.Errorf("W map dims %v, want [K 2*I*E]", d)
			}
			if tc.deDims != nil {
				if d := cmp.Diff(tc.deDims, m.Params[3].Map.Dims); m.Params[3].Name != "tmap_de" || d != "" {
					t.Errorf("param 3 %s: de map dims (-want +got):\n%s", m.Params[3].Name, d)
				}
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
		})
	}
}

func moeManifest(t *testing.T, name string) Manifest {
	t.Helper()
	c, err := tiling.ParseName(name)
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
	return m
}

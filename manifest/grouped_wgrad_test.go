package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestMoEWgradManifest: moe_wgrad's sizes, the kernel's GEMM M, N, K as
// the sizes N, K and T, A and B's token-major maps, dW's 3-D map
// [E][N][K] with a one-expert box, a tile count that holds every expert
// (an empty one too), and the rules that refuse T = 0 and a ragged N or K
// by name.
func TestMoEWgradManifest(t *testing.T) {
	const params = "tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_c:tensormap:128/64, M:i32:4/4, N:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8"
	c, err := tiling.ParseName("moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn")
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
	if got := strings.Join(m.Sizes, ","); got != "T,N,K,E" {
		t.Errorf("sizes %s, want T,N,K,E", got)
	}
	if got := ParamLayout(m.Params); got != params {
		t.Errorf("params %s\nwant %s", got, params)
	}
	var scalars []Expr
	for _, p := range m.Params {
		if p.Kind == "i32" {
			scalars = append(scalars, p.Value)
		}
	}
	if diff := cmp.Diff([]Expr{"N", "K", "T", "E"}, scalars); diff != "" {
		t.Errorf("the kernel's M, N, K, E (-want +got):\n%s", diff)
	}
	maps := map[string][]Expr{"tmap_a": {"N", "T"}, "tmap_b": {"K", "T"}, "tmap_c": {"K", "N", "E"}}
	for _, p := range m.Params[:3] {
		if diff := cmp.Diff(maps[p.Name], p.Map.Dims); diff != "" {
			t.Errorf("%s dims (-want +got):\n%s", p.Name, diff)
		}
	}
	if diff := cmp.Diff([]int{64, 64, 1}, m.Params[2].Map.Box); diff != "" {
		t.Errorf("dW box (-want +got):\n%s", diff)
	}
	l, err := m.Resolve(Sizes{"T": 300, "N": 200, "K": 136, "E": 8}, Device{SMs: 132})
	if err != nil {
		t.Fatal(err)
	}
	if l.Grid[0] != 8*2*2 {
		t.Errorf("grid %v at E=8 N=200 K=136: want 32 CTAs (every expert's 2x2 tiles)", l.Grid)
	}
	for _, tc := range []struct {
		sizes Sizes
		want  string
	}{
		{Sizes{"T": 0, "N": 64, "K": 64, "E": 4}, "T=0"},
		{Sizes{"T": 5, "N": 60, "K": 64, "E": 4}, "N=60"},
		{Sizes{"T": 5, "N": 64, "K": 68, "E": 4}, "K=68"},
		{Sizes{"T": 5, "N": 64, "K": 64, "E": 0}, "E=0"},
	} {
		if err := m.CheckSizes(tc.sizes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: CheckSizes = %v, want the rule naming %s", tc.sizes, err, tc.want)
		}
	}
	if err := m.CheckSizes(Sizes{"T": 5, "N": 72, "K": 136, "E": 4}); err != nil {
		t.Errorf("T=5 N=72 K=136: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

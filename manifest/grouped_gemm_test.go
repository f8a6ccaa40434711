package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestMoEGemmManifest: moe_gemm's sizes, its pointers after the scalars,
// B's 3-D map ([E][N][K] K-major, [E][K][N] MN-major) with a one-expert
// box, and the rules that refuse T = 0 and a ragged N by name.
func TestMoEGemmManifest(t *testing.T) {
	const params = "tmap_a:tensormap:128/64, tmap_b:tensormap:128/64, tmap_c:tensormap:128/64, M:i32:4/4, N:i32:4/4, K:i32:4/4, E:i32:4/4, offs:ptr:8/8, c_ptr:ptr:8/8"
	cases := []struct {
		name string
		dims []Expr
		box  []int
	}{
		{"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", []Expr{"K", "N", "E"}, []int{64, 128, 1}},
		{"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn", []Expr{"N", "K", "E"}, []int{64, 64, 1}},
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
		if got := strings.Join(m.Sizes, ","); got != "T,N,K,E" {
			t.Errorf("%s: sizes %s, want T,N,K,E", tc.name, got)
		}
		if got := ParamLayout(m.Params); got != params {
			t.Errorf("%s: params %s\nwant %s", tc.name, got, params)
		}
		b := m.Params[1].Map
		if diff := cmp.Diff(tc.dims, b.Dims); diff != "" {
			t.Errorf("%s: B map dims (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.box, b.Box); diff != "" {
			t.Errorf("%s: B box (-want +got):\n%s", tc.name, diff)
		}
		if err := m.CheckSizes(Sizes{"T": 0, "N": 64, "K": 64, "E": 4}); err == nil || !strings.Contains(err.Error(), "T=0") {
			t.Errorf("%s: T=0: CheckSizes = %v, want the rule naming T=0", tc.name, err)
		}
		if err := m.CheckSizes(Sizes{"T": 5, "N": 60, "K": 64, "E": 4}); err == nil || !strings.Contains(err.Error(), "N=60") {
			t.Errorf("%s: N=60: CheckSizes = %v, want the rule naming N=60", tc.name, err)
		}
		if err := m.CheckSizes(Sizes{"T": 5, "N": 72, "K": 136, "E": 4}); err != nil {
			t.Errorf("%s: T=5 N=72 K=136: %v", tc.name, err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.name, err)
		}
	}
}

package check

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClampOffs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  []int32
		t    int
		want []int32
	}{
		{"valid", []int32{3, 3, 10}, 10, []int32{3, 3, 10}},
		{"decreasing", []int32{7, 2, 10}, 10, []int32{7, 7, 10}},
		{"negative", []int32{-4, 5}, 10, []int32{0, 5}},
		{"past T", []int32{4, 12, 11}, 10, []int32{4, 10, 10}},
		{"short", []int32{4, 6}, 10, []int32{4, 6}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, ClampOffs(tc.raw, tc.t)); diff != "" {
			t.Errorf("%s: ClampOffs(%v, %d) (-want +got):\n%s", tc.name, tc.raw, tc.t, diff)
		}
	}
}

// TestMoEBadOffsCases: each case's offs are outside the contract (not
// its own clamp) and clamp to offs ending at T (every row owned, so the
// two launches' outputs are comparable in full); K and I are legal.
func TestMoEBadOffsCases(t *testing.T) {
	t.Parallel()
	for _, tileM := range []int{64, 128} {
		for _, c := range MoEBadOffs(tileM) {
			cl := ClampOffs(c.Raw, c.T)
			if slices.Equal(cl, c.Raw) {
				t.Errorf("tileM %d %s: offs %v are valid: nothing to clamp", tileM, c.Name, c.Raw)
			}
			if got := cl[len(cl)-1]; int(got) != c.T {
				t.Errorf("tileM %d %s: clamped offs %v end at %d, want T=%d", tileM, c.Name, cl, got, c.T)
			}
			if c.K%8 != 0 || c.I%8 != 0 {
				t.Errorf("tileM %d %s: K=%d I=%d: want multiples of 8", tileM, c.Name, c.K, c.I)
			}
		}
	}
}

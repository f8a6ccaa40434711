package tiling

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroupedSpaceRings checks that each grouped kind's sm_90a space holds
// the ping-pong 128x128 tile at every ring depth the H100 A/B measured
// (s3..s6 at k64 where they fit, the k128 rings), in both modes, and only
// configs that are implemented.
func TestGroupedSpaceRings(t *testing.T) {
	t.Parallel()
	rings := func(cs []Config, tileK int) []int {
		var out []int
		for _, c := range cs {
			if c.Schedule == PingPong && c.TileM == 128 && c.TileN == 128 && c.TileK == tileK {
				out = append(out, c.Stages)
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		k             Kernel
		storeOut      bool
		wantK64, want []int
	}{
		{KernelMoEFwdGateUp, false, []int{3, 4, 5, 6}, []int{2, 3}},
		{KernelMoEFwdGateUp, true, []int{3, 4}, []int{2}},
		{KernelMoEBwdDSwiGLU, false, []int{3, 4, 5}, []int{2}},
		{KernelMoEBwdDSwiGLU, true, []int{3, 4}, []int{2}},
		{KernelMoEGEMM, false, []int{3, 4, 5, 6}, []int{2, 3}},
	}
	for _, tt := range tests {
		space := Space(tt.k, ArchSM90a, BF16)
		if tt.storeOut {
			space = SpaceStoreOut(tt.k, ArchSM90a, BF16)
		}
		for _, c := range space {
			if err := legality(c); err != nil || c.StoreOut != tt.storeOut {
				t.Errorf("%s store_out=%v: %s in the space: %v", tt.k, tt.storeOut, c.Name(), err)
			}
		}
		if d := cmp.Diff(tt.wantK64, rings(space, 64)); d != "" {
			t.Errorf("%s store_out=%v k64 rings (-want +got):\n%s", tt.k, tt.storeOut, d)
		}
		if d := cmp.Diff(tt.want, rings(space, 128)); d != "" {
			t.Errorf("%s store_out=%v k128 rings (-want +got):\n%s", tt.k, tt.storeOut, d)
		}
	}
}

package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// TestMulticastRanks checks that under a 2-CTA cluster every load of the
// shared operand is issued by a CTA that exists (rank 0 or 1) and that both
// CTAs load a share. An MN-major B of 3 slabs (tile_n 192 under 2x1) once
// gave its third slab rank 2: no CTA loaded it, the stage's barrier never
// completed, and the launch failed on the H200.
func TestMulticastRanks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    tiling.Config
		a, b []int // load ranks of A and B
	}{
		{"b kmajor 128x192 2x1", tilingtest.SM90Kind(tiling.KernelBwdDSwiGLU, tiling.Cooperative, 128, 192, func(c *tiling.Config) { c.ClusterM = 2 }),
			[]int{-1}, []int{0, 1}},
		{"b mnmajor 128x192 2x1 (3 slabs)", tilingtest.SM90Kind(tiling.KernelBwdDSwiGLU, tiling.Cooperative, 128, 192, func(c *tiling.Config) { c.ClusterM, c.MajorB = 2, tiling.MNMajor }),
			[]int{-1}, []int{0, 0, 1}},
		{"b mnmajor 128x256 2x1", tilingtest.SM90Kind(tiling.KernelBwdDSwiGLU, tiling.Cooperative, 128, 256, func(c *tiling.Config) { c.ClusterM, c.MajorB = 2, tiling.MNMajor }),
			[]int{-1}, []int{0, 0, 1, 1}},
		{"b mnmajor 128x192 overlap 2x1", tilingtest.SM90Kind(tiling.KernelBwdDSwiGLU, tiling.Overlap, 128, 192, func(c *tiling.Config) { c.ClusterM, c.MajorB = 2, tiling.MNMajor }),
			[]int{-1}, []int{0, 0, 1}},
		{"a kmajor 128x192 1x2", tilingtest.SM90Kind(tiling.KernelBwdDSwiGLU, tiling.Cooperative, 128, 192, func(c *tiling.Config) { c.ClusterN = 2 }),
			[]int{0, 1}, []int{-1}},
		{"a mnmajor gemm 256x128 1x2", tilingtest.SM90Kind(tiling.KernelGEMM, tiling.Cooperative, 256, 128, func(c *tiling.Config) { c.ClusterN, c.MajorA = 2, tiling.MNMajor }),
			[]int{0, 0, 1, 1}, []int{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("%s: %v", tt.c.Name(), err)
			}
			v, err := newSM90(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			got := [2][]int{ints(t, v.A.Rank), ints(t, v.B.Rank)}
			if d := cmp.Diff([2][]int{tt.a, tt.b}, got); d != "" {
				t.Errorf("%s load ranks [A, B] (-want +got):\n%s", tt.c.Name(), d)
			}
			for i, rs := range got {
				for _, r := range rs {
					if r >= v.Cluster.Size {
						t.Errorf("%s: operand %c load rank %d in a cluster of %d", tt.c.Name(), "AB"[i], r, v.Cluster.Size)
					}
				}
			}
		})
	}
}

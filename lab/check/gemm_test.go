package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestGemmShape(t *testing.T) {
	t.Parallel()
	kk := tiling.Config{Kernel: tiling.KernelGEMM, MajorA: tiling.KMajor, MajorB: tiling.KMajor}
	mn := tiling.Config{Kernel: tiling.KernelGEMM, MajorA: tiling.MNMajor, MajorB: tiling.KMajor}
	var got []tiling.Shape
	for _, s := range RaggedShapes() {
		if d := cmp.Diff(s, gemmShape(kk, s)); d != "" {
			t.Errorf("K-major A changed the shape (-want +got):\n%s", d)
		}
		g := gemmShape(mn, s)
		if g.M%8 != 0 || g.M < s.M || g.M >= s.M+8 || g.K != s.K || g.I != s.I {
			t.Errorf("MN-major A: %v -> %v, want M rounded up to a multiple of 8", s, g)
		}
		got = append(got, g)
	}
	if got[2].M != 8 { // {M: 1, K: 8, I: 8}
		t.Errorf("M=1 -> %d, want 8", got[2].M)
	}
}

package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// TestSuite: at least 16 shapes, each from a named configuration, token
// counts from 128 to 32768, no duplicates, and sizes every kernel kind
// accepts (16-bit rows 16-byte aligned: K and I multiples of 8).
func TestSuite(t *testing.T) {
	t.Parallel()
	if len(Suite) < 16 {
		t.Errorf("%d suite shapes, want at least 16", len(Suite))
	}
	seen := map[tiling.Shape]bool{}
	minM, maxM := 1<<30, 0
	for _, s := range Suite {
		if s.Model == "" || s.Source == "" {
			t.Errorf("%v: no model or source", s.Shape)
		}
		if seen[s.Shape] {
			t.Errorf("%v twice", s.Shape)
		}
		seen[s.Shape] = true
		if s.Shape.K%8 != 0 || s.Shape.I%8 != 0 || s.Shape.M < 1 {
			t.Errorf("%v: K and I must be multiples of 8", s.Shape)
		}
		minM, maxM = min(minM, s.Shape.M), max(maxM, s.Shape.M)
		for _, k := range []tiling.Kernel{tiling.KernelBwdDSwiGLU, tiling.KernelFwdGateUp} {
			if _, err := tiling.Heuristic(k, tiling.ArchSM90a, tiling.BF16, s.Shape); err != nil {
				t.Errorf("%v: no %s heuristic: %v", s, k, err)
			}
		}
	}
	if minM > 128 || maxM < 32768 {
		t.Errorf("token counts span %d..%d, want 128..32768 at least", minM, maxM)
	}
	if got := SuiteModel(tiling.Shape{M: 8192, K: 8192, I: 3584}); got != "LLaMA-3 70B, TP 8" {
		t.Errorf("SuiteModel = %q", got)
	}
	if len(SuiteShapes()) != len(Suite) {
		t.Error("SuiteShapes length")
	}
}

// TestSuiteGemms: the gemm suite is five GEMMs a suite shape less the
// repeats, the seed's first in segment order with their majors.
func TestSuiteGemms(t *testing.T) {
	t.Parallel()
	got := SuiteGemms()
	if len(got) != 82 {
		t.Errorf("%d gemm problems, want 82 (90 less 8 repeats)", len(got))
	}
	k, mn := tiling.KMajor, tiling.MNMajor
	want := []perfmodel.GemmDims{
		{M: 16384, N: 9216, K: 768, MajorA: k, MajorB: k},
		{M: 16384, N: 4608, K: 768, MajorA: k, MajorB: k},
		{M: 16384, N: 768, K: 9216, MajorA: k, MajorB: mn},
		{M: 9216, N: 768, K: 16384, MajorA: mn, MajorB: mn},
		{M: 4608, N: 768, K: 16384, MajorA: mn, MajorB: mn},
	}
	if diff := cmp.Diff(want, got[:5]); diff != "" {
		t.Errorf("the seed's GEMMs (-want +got):\n%s", diff)
	}
}

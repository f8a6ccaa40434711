package bench

import (
	"testing"

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

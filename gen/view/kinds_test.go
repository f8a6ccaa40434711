package view

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindViewed checks that every registered kind's template family
// (tiling.KindSpec.Family) has a flag, and sm_100a docs where it has sm_100a code (every kind but
// moe_gemm, whose sm_100a config tiling refuses).
func TestEveryKindViewed(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := kindFlags(s.Family); !ok {
			t.Errorf("kind %s has template family %q, which view does not know", s.Kernel, s.Family)
		}
		if _, ok := sm100FamilyDocs[s.Family]; !ok && hasSM100(s.Kernel) {
			t.Errorf("kind %s's template family %q has no entry in view's sm100FamilyDocs", s.Kernel, s.Family)
		}
	}
}

// hasSM100 reports whether k's sm_100a rule config is implemented.
func hasSM100(k tiling.Kernel) bool {
	c, err := tiling.RuleHeuristic(k, tiling.ArchSM100a, tiling.BF16, tiling.Shape{M: 4096, K: 4096, I: 4096}, false)
	if err != nil {
		return false
	}
	_, err = tiling.Check(c)
	return err == nil
}

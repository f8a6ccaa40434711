package check

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindVerified checks that every registered kind has a verifier
// (its float64 reference).
func TestEveryKindVerified(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := verifiers[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in check's verifiers", s.Kernel)
		}
	}
}

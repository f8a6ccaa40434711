package check

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindVerified checks that every catalog kind has a verifier
// (its float64 reference). The grouped kinds take routings, not shapes:
// VerifyMoEFwdGateUp, over MoERoutings.
func TestEveryKindVerified(t *testing.T) {
	t.Parallel()
	for _, k := range tiling.Kernels() {
		if _, ok := verifiers[k]; !ok {
			t.Errorf("kind %s has no entry in check's verifiers", k)
		}
	}
}

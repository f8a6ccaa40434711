package ref

import (
	"slices"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindHasNaiveRef checks that naive.cu has a reference for every
// catalog kind (the grouped kinds are checked against MoEFwdGateUp's
// float64 reference on the host).
func TestEveryKindHasNaiveRef(t *testing.T) {
	t.Parallel()
	for _, k := range tiling.Kernels() {
		if !slices.Contains(naiveKinds, k) {
			t.Errorf("kind %s is not in ref's naiveKinds", k)
		}
	}
}

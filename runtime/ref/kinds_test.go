package ref

import (
	"slices"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindHasNaiveRef checks that naive.cu has a reference for every
// registered kind.
func TestEveryKindHasNaiveRef(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if !slices.Contains(naiveKinds, s.Kernel) {
			t.Errorf("kind %s is not in ref's naiveKinds", s.Kernel)
		}
	}
}

package view

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindViewed checks that every registered kind has a template
// flag and, unless it is grouped (sm_90a only: tiling.Implemented refuses
// sm_100a for it), sm_100a docs.
func TestEveryKindViewed(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := kindFlags[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in view's kindFlags", s.Kernel)
		}
		if _, ok := sm100KindDocs[s.Kernel]; !ok && !s.Grouped {
			t.Errorf("kind %s has no entry in view's sm100KindDocs", s.Kernel)
		}
	}
}

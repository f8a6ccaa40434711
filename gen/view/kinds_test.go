package view

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindViewed checks that every registered kind has a template
// flag and sm_100a docs (every kind, the grouped ones included, has sm_100a
// code).
func TestEveryKindViewed(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := kindFlags[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in view's kindFlags", s.Kernel)
		}
		if _, ok := sm100KindDocs[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in view's sm100KindDocs", s.Kernel)
		}
	}
}

package manifest

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindHasTable checks that every registered kind has a
// parameter table.
func TestEveryKindHasTable(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := kindTables[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in manifest's kindTables", s.Kernel)
		}
	}
}

package gobind

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindBound checks that every registered kind has Go names and a
// calling-convention entry.
func TestEveryKindBound(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := goKindOf(s.Kernel); !ok {
			t.Errorf("kind %s has no Go launcher names (tiling.KindSpec.GoName, GoArgs)", s.Kernel)
		}
		if _, ok := conventions[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in gobind's conventions", s.Kernel)
		}
	}
}

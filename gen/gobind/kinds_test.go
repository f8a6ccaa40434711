package gobind

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryKindBound checks that every registered kind has Go names and a
// calling convention (tiling.KindSpec.GoOperands).
func TestEveryKindBound(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := goKindOf(s.Kernel); !ok {
			t.Errorf("kind %s has no Go launcher names (tiling.KindSpec.GoName, GoArgs)", s.Kernel)
		}
		if len(s.GoOperands) == 0 {
			t.Errorf("kind %s has no calling convention (tiling.KindSpec.GoOperands)", s.Kernel)
		}
	}
}

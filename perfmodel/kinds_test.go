package perfmodel

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestEveryTunableKindHasCost checks that every kind tune measures has a
// cost model (its summary's ceilings need one).
func TestEveryTunableKindHasCost(t *testing.T) {
	t.Parallel()
	for _, k := range tiling.TunableKinds() {
		if _, ok := kernelCosts[k]; !ok {
			t.Errorf("kind %s is tunable but has no entry in perfmodel's kernelCosts", k)
		}
	}
}

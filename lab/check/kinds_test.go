package check

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// TestEveryKindVerified checks that every registered kind, the grouped
// ones included (VerifyGroupedRoutings), has a verifier (its float64
// reference).
func TestEveryKindVerified(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.Kinds() {
		if _, ok := verifiers[s.Kernel]; !ok {
			t.Errorf("kind %s has no entry in check's verifiers", s.Kernel)
		}
	}
}

// TestVerifyUnknownKindFails checks that a kernel of a kind with no
// verifier fails every shape, naming its kind, instead of being checked
// against another kind's reference.
func TestVerifyUnknownKindFails(t *testing.T) {
	t.Parallel()
	k := &launch.Kernel{}
	k.Man.Name, k.Man.Config.Kernel = "conv_x", "conv"
	shapes := []tiling.Shape{{M: 8, K: 64, I: 64}, {M: 16, K: 64, I: 64}}
	res := Verify(nil, k, shapes, Options{})
	if len(res) != len(shapes) {
		t.Fatalf("%d results for %d shapes", len(res), len(shapes))
	}
	for i, r := range res {
		if r.Pass || r.Err == nil || !strings.Contains(r.Err.Error(), `kind "conv" has no verifier`) || r.Shape != shapes[i] {
			t.Errorf("result %d = %+v, want a failure at %v naming kind conv", i, r, shapes[i])
		}
	}
}

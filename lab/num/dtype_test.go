package num

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestCodecsCoverHelperDTypes fails when an operand type the helpers take
// (tiling.DTypeSpec.Helpers) has no host conversion, or the map keeps one
// the registry no longer has.
func TestCodecsCoverHelperDTypes(t *testing.T) {
	t.Parallel()
	var got []tiling.DType
	for d := range codecs {
		got = append(got, d)
	}
	slices.Sort(got)
	want := tiling.HelperDTypes()
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codecs (-tiling.HelperDTypes +codecs):\n%s", diff)
	}
}

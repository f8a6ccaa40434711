package launch

import (
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// TestTmapDTypesCoverDescriptors fails when an operand type's tensor-map
// type (tiling.DTypeSpec.TMA) is no driver enumerator, or its size there
// is not the descriptor's: a map of that type could not be encoded.
func TestTmapDTypesCoverDescriptors(t *testing.T) {
	t.Parallel()
	for _, s := range tiling.DTypeSpecs() {
		d, ok := tmapDTypes[manifest.DType(s.TMA)]
		if !ok {
			t.Errorf("%s: tensor-map type %q is not a CUtensorMapDataType", s.DType, s.TMA)
			continue
		}
		if d.Size() != s.Bytes {
			t.Errorf("%s: %s is %d bytes, the descriptor says %d", s.DType, d, d.Size(), s.Bytes)
		}
	}
	if want := map[manifest.DType]cu.TensorDType{"bfloat16": cu.TensorBfloat16, "float16": cu.TensorFloat16}; len(tmapDTypes) != len(want) {
		t.Errorf("tmapDTypes = %v, want %v", tmapDTypes, want)
	} else {
		for k, v := range want {
			if tmapDTypes[k] != v {
				t.Errorf("tmapDTypes[%q] = %v, want %v", k, tmapDTypes[k], v)
			}
		}
	}
}

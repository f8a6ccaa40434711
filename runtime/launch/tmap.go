package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// The manifest's tensor-map enumerators as the driver's values.
var (
	// tmapDTypes are the element types of the operand types' maps
	// (tiling.DTypeSpec.TMA), by the driver's name.
	tmapDTypes = func() map[manifest.DType]cu.TensorDType {
		m := map[manifest.DType]cu.TensorDType{}
		for _, s := range tiling.DTypeSpecs() {
			if d, ok := cu.TensorDTypeNamed(s.TMA); ok {
				m[manifest.DType(s.TMA)] = d
			}
		}
		return m
	}()
	tmapSwizzles = map[manifest.Swizzle]cu.Swizzle{
		manifest.SwizzleNone: cu.SwizzleNone,
		manifest.Swizzle64B:  cu.Swizzle64B,
		manifest.Swizzle128B: cu.Swizzle128B,
	}
	tmapInterleaves = map[manifest.Interleave]cu.Interleave{
		manifest.InterleaveNone: cu.InterleaveNone,
	}
	tmapL2Promotions = map[manifest.L2Promotion]cu.L2Promotion{
		manifest.L2PromotionNone: cu.L2PromotionNone,
		manifest.L2Promotion256B: cu.L2Promotion256B,
	}
	tmapOOBFills = map[manifest.OOBFill]cu.OOBFill{
		manifest.OOBFillNone: cu.OOBFillNone,
	}
)

// lookup returns m[k], or an error naming what and the value.
func lookup[K ~string, V any](m map[K]V, what string, k K) (V, error) {
	v, ok := m[k]
	if !ok {
		return v, fmt.Errorf("%s %q is not supported", what, k)
	}
	return v, nil
}

// tensorMapParams is the cuTensorMapEncodeTiled call of e on the buffer
// at global.
func tensorMapParams(e *manifest.Encode, global cu.DevicePtr) (cu.TensorMapParams, error) {
	p := cu.TensorMapParams{Rank: len(e.Dims), Global: global}
	if p.Rank < 1 || p.Rank > len(p.Dims) || len(e.Strides) != p.Rank-1 || len(e.Box) != p.Rank || len(e.ElemStrides) != p.Rank {
		return p, fmt.Errorf("map of %s: rank %d with %d strides, %d box and %d element-stride entries", e.Buffer, p.Rank, len(e.Strides), len(e.Box), len(e.ElemStrides))
	}
	copy(p.Dims[:], e.Dims)
	copy(p.Strides[:], e.Strides)
	copy(p.Box[:], e.Box)
	copy(p.ElemStrides[:], e.ElemStrides)
	var err error
	if p.DType, err = lookup(tmapDTypes, "dtype", e.DType); err != nil {
		return p, err
	}
	if p.Swizzle, err = lookup(tmapSwizzles, "swizzle", e.Swizzle); err != nil {
		return p, err
	}
	if p.Interleave, err = lookup(tmapInterleaves, "interleave", e.Interleave); err != nil {
		return p, err
	}
	if p.L2Promotion, err = lookup(tmapL2Promotions, "L2 promotion", e.L2Promotion); err != nil {
		return p, err
	}
	if p.OOBFill, err = lookup(tmapOOBFills, "OOB fill", e.OOBFill); err != nil {
		return p, err
	}
	return p, nil
}

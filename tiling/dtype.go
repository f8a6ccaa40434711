package tiling

import (
	"fmt"

	"github.com/swigen/swigen/internal/join"
)

// DType is the element type of a kernel's operands and outputs.
// Accumulation, epilogue math, the stream-K workspace and the router
// score's partials are fp32 whatever it is. Every fact another package
// asks about a type is a field of its DTypeSpec in dtypes, the one owner
// (docs/DESIGN.md#adding-a-dtype); tests/dtype_test.go fails when a
// package outside it names a type or hard-codes its element size.
type DType string

// The operand types.
const (
	BF16 DType = "bf16"
	FP16 DType = "fp16"
)

// DefaultDType is the operand type the commands take without --dtype and
// the one the MLP ledger's and bench's defaults are written in.
const DefaultDType = BF16

// DTypeSpec is the descriptor of one operand type: what the packages that
// size, render, launch, convert and check its tensors ask about it.
type DTypeSpec struct {
	DType DType
	// Bytes is the size of one element in global and shared memory.
	Bytes int
	// PTX is the type word of the MMA and conversion instructions:
	// wgmma.mma_async...f32.<PTX>.<PTX>, cvt.rn.<PTX>.f32.
	PTX string
	// Unpack and Pack are the CUDA library's helpers that widen a 32-bit
	// pair of elements to two fp32 and round two fp32 back to a pair
	// (templates/include); Trait is its operand-type struct, which a thin
	// unit's traits name (swigen_v1_sm90a.cuh).
	Unpack, Pack, Trait string
	// MMAK is the K of one wgmma and of one tcgen05.mma on this type (16
	// for the 16-bit types: 32 bytes of each operand row per instruction).
	MMAK int
	// MMAKind is the .kind of tcgen05.mma that takes this type ("f16":
	// kind::f16 takes bf16 and fp16), MMAType the code of the A and B type
	// fields of that kind's instruction descriptor (PTX ISA 9.7.16.4.2,
	// Table 42: kind::f16 F16 = 0, BF16 = 1).
	MMAKind string
	MMAType uint32
	// TMA is the CUtensorMapDataType of its tensor maps as the manifest
	// writes it: the enumerator is CU_TENSOR_MAP_DATA_TYPE_ followed by the
	// upper-cased name.
	TMA string
	// CUDADataType is its cudaDataType_t (library_types.h), the type of
	// the cuBLAS GEMMs of the baselines.
	CUDADataType int32
	// Torch is torch's name of the type (torch.bfloat16 is "bfloat16"):
	// what the Python runtime's ops take and the packages record.
	Torch string
	// Tol is the relative Frobenius error an output of this type may have
	// against the float64 reference (verify, bench's and the MLP's
	// checks): a few of its rounding steps.
	Tol float64
	// MeasuredAs is the type whose measured-table rows stand in where this
	// one has none (a type of the same tensor-core rate and element size);
	// empty for none but its own.
	MeasuredAs DType
	// Helpers is set when the hand-written CUDA helper modules have entry
	// points for the type (<module>_<dtype>): the elementwise kernels
	// (templates/kernelsrc), the naive references (lab/ref/naive.cu) and
	// the device comparer (lab/bench/compare.cu), all written for 16-bit
	// storage, and lab/num has its host conversion.
	Helpers bool
}

// dtypes is the descriptor table, in the order of DTypes (the flags' and
// the selection table's order).
var dtypes = []DTypeSpec{
	{DType: BF16, Bytes: 2, PTX: "bf16", Unpack: "sw_unpack_bf16x2", Pack: "sw_pack_bf16x2", Trait: "sw_bf16",
		MMAK: 16, MMAKind: "f16", MMAType: 1, TMA: "bfloat16", CUDADataType: 14, Torch: "bfloat16",
		Tol: 1e-2, Helpers: true},
	{DType: FP16, Bytes: 2, PTX: "f16", Unpack: "sw_unpack_f16x2", Pack: "sw_pack_f16x2", Trait: "sw_f16",
		MMAK: 16, MMAKind: "f16", MMAType: 0, TMA: "float16", CUDADataType: 2, Torch: "float16",
		Tol: 1e-2, MeasuredAs: BF16, Helpers: true},
}

// DTypes returns the operand types.
func DTypes() []DType {
	out := make([]DType, len(dtypes))
	for i, s := range dtypes {
		out[i] = s.DType
	}
	return out
}

// DTypeSpecs returns the descriptor of every operand type, in DTypes'
// order.
func DTypeSpecs() []DTypeSpec { return append([]DTypeSpec(nil), dtypes...) }

// HelperDTypes returns the operand types the CUDA helper modules have
// entry points for (DTypeSpec.Helpers), in DTypes' order.
func HelperDTypes() []DType {
	var out []DType
	for _, s := range dtypes {
		if s.Helpers {
			out = append(out, s.DType)
		}
	}
	return out
}

// Spec returns d's descriptor, or an error naming d and the types there
// are.
func (d DType) Spec() (DTypeSpec, error) {
	for _, s := range dtypes {
		if s.DType == d {
			return s, nil
		}
	}
	return DTypeSpec{}, fmt.Errorf("tiling: dtype %q: not an operand type (want one of %s)", d, join.Strings(DTypes()))
}

// HelperSpec is Spec for a type the CUDA helper modules have entry points
// for; what names the caller in the error.
func (d DType) HelperSpec(what string) (DTypeSpec, error) {
	s, err := d.Spec()
	if err == nil && !s.Helpers {
		err = fmt.Errorf("dtype %q: no entry point (want one of %s)", d, join.Strings(HelperDTypes()))
	}
	if err != nil {
		return DTypeSpec{}, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// Size returns the size in bytes of one element of d (0 for an unknown
// type).
func (d DType) Size() int {
	s, err := d.Spec()
	if err != nil {
		return 0
	}
	return s.Bytes
}

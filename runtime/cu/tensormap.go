package cu

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// ErrInvalidTensorMap is wrapped by every TensorMapParams validation error.
var ErrInvalidTensorMap = errors.New("cu: invalid tensor map")

// TensorMapSize is the size of a CUtensorMap in bytes.
const TensorMapSize = 128

// tensorMapAlign is the alignment cuTensorMapEncodeTiled requires.
const tensorMapAlign = 64

// TensorMap is an encoded CUtensorMap. Go cannot declare 64-byte alignment,
// so it holds an over-sized buffer and the descriptor lives at a 64-byte
// aligned offset inside it. Pass Ptr() as the kernel parameter for a
// `const __grid_constant__ CUtensorMap` argument.
type TensorMap struct {
	buf [TensorMapSize + tensorMapAlign]byte
	off int // offset of the descriptor in buf
}

func newTensorMap() *TensorMap {
	t := &TensorMap{}
	t.off = t.alignedOff()
	return t
}

func (t *TensorMap) alignedOff() int {
	a := uintptr(unsafe.Pointer(&t.buf[0]))
	return int((tensorMapAlign - a%tensorMapAlign) % tensorMapAlign)
}

// Ptr returns a pointer to the 64-byte aligned, 128-byte descriptor. Heap
// objects do not move, but a TensorMap copied by value may land at another
// alignment; Ptr then moves the descriptor to the copy's aligned offset.
func (t *TensorMap) Ptr() unsafe.Pointer {
	if off := t.alignedOff(); off != t.off {
		copy(t.buf[off:off+TensorMapSize], t.buf[t.off:t.off+TensorMapSize])
		t.off = off
	}
	return unsafe.Pointer(&t.buf[t.off])
}

// Bytes returns the 128 descriptor bytes (aliasing t).
func (t *TensorMap) Bytes() []byte {
	p := t.Ptr()
	return unsafe.Slice((*byte)(p), TensorMapSize)
}

// TensorDType is a CUtensorMapDataType.
type TensorDType int32

// Tensor map element types (cuda.h CUtensorMapDataType).
const (
	TensorUint8 TensorDType = iota
	TensorUint16
	TensorUint32
	TensorInt32
	TensorUint64
	TensorInt64
	TensorFloat16
	TensorFloat32
	TensorFloat64
	TensorBfloat16
	TensorFloat32FTZ
	TensorTFloat32
	TensorTFloat32FTZ
	Tensor16U4Align8B
	Tensor16U4Align16B
	Tensor16U6Align16B
)

var dtypeInfo = [...]struct {
	name    string
	bits    int
	isFloat bool
}{
	{"uint8", 8, false}, {"uint16", 16, false}, {"uint32", 32, false}, {"int32", 32, false},
	{"uint64", 64, false}, {"int64", 64, false}, {"float16", 16, true}, {"float32", 32, true},
	{"float64", 64, true}, {"bfloat16", 16, true}, {"float32_ftz", 32, true}, {"tfloat32", 32, true},
	{"tfloat32_ftz", 32, true}, {"16u4_align8b", 4, false}, {"16u4_align16b", 4, false}, {"16u6_align16b", 6, false},
}

// TensorDTypeNamed returns the CUtensorMapDataType whose enumerator is
// CU_TENSOR_MAP_DATA_TYPE_ followed by the upper-cased name ("bfloat16":
// TensorBfloat16), and whether there is one.
func TensorDTypeNamed(name string) (TensorDType, bool) {
	for i, d := range dtypeInfo {
		if d.name == name {
			return TensorDType(i), true
		}
	}
	return 0, false
}

func (d TensorDType) valid() bool { return d >= 0 && int(d) < len(dtypeInfo) }

func (d TensorDType) String() string {
	if d.valid() {
		return dtypeInfo[d].name
	}
	return fmt.Sprintf("TensorDType(%d)", int32(d))
}

// Size returns the element size in bytes (0 for the packed sub-byte types).
func (d TensorDType) Size() int {
	if !d.valid() || dtypeInfo[d].bits < 8 {
		return 0
	}
	return dtypeInfo[d].bits / 8
}

func (d TensorDType) packed() bool { return d >= Tensor16U4Align8B && d <= Tensor16U6Align16B }

// Interleave is a CUtensorMapInterleave.
type Interleave int32

// Interleave layouts.
const (
	InterleaveNone Interleave = iota
	Interleave16B
	Interleave32B
)

// Swizzle is a CUtensorMapSwizzle: the shared-memory bank swizzle pattern.
type Swizzle int32

// Swizzle modes.
const (
	SwizzleNone Swizzle = iota
	Swizzle32B
	Swizzle64B
	Swizzle128B
	Swizzle128BAtom32B
	Swizzle128BAtom32BFlip8B
	Swizzle128BAtom64B
)

var swizzleNames = [...]string{"SwizzleNone", "Swizzle32B", "Swizzle64B", "Swizzle128B",
	"Swizzle128BAtom32B", "Swizzle128BAtom32BFlip8B", "Swizzle128BAtom64B"}

func (s Swizzle) String() string {
	if s >= 0 && int(s) < len(swizzleNames) {
		return swizzleNames[s]
	}
	return fmt.Sprintf("Swizzle(%d)", int32(s))
}

// Span returns the swizzle span in bytes: the most bytes the box's inner
// dimension may cover (0 for SwizzleNone).
func (s Swizzle) Span() int {
	switch s {
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	case Swizzle128B, Swizzle128BAtom32B, Swizzle128BAtom32BFlip8B, Swizzle128BAtom64B:
		return 128
	}
	return 0
}

// L2Promotion is a CUtensorMapL2promotion.
type L2Promotion int32

// L2 promotion sizes.
const (
	L2PromotionNone L2Promotion = iota
	L2Promotion64B
	L2Promotion128B
	L2Promotion256B
)

// OOBFill is a CUtensorMapFloatOOBfill.
type OOBFill int32

// Out-of-bounds fill modes.
const (
	OOBFillNone OOBFill = iota
	OOBFillNaNRequestZeroFMA
)

// TensorMapParams are the arguments of cuTensorMapEncodeTiled. Arrays are
// innermost dimension first; only the first Rank (Rank-1 for Strides)
// entries are used.
type TensorMapParams struct {
	DType       TensorDType
	Rank        int
	Global      DevicePtr
	Dims        [5]uint64 // elements per dimension
	Strides     [4]uint64 // bytes, for dimensions 1..Rank-1
	Box         [5]uint32 // box (tile) size in elements
	ElemStrides [5]uint32 // traversal strides; 0 means 1
	Interleave  Interleave
	Swizzle     Swizzle
	L2Promotion L2Promotion
	OOBFill     OOBFill
}

// Validate checks p against the documented rules of cuTensorMapEncodeTiled
// and returns an error naming tensor name, the bad value and the rule. It
// wraps ErrInvalidTensorMap.
func (p TensorMapParams) Validate(name string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidTensorMap, name, fmt.Sprintf(format, args...))
	}
	if !p.DType.valid() {
		return bad("data type %d is not a CUtensorMapDataType (0..%d)", int32(p.DType), len(dtypeInfo)-1)
	}
	if p.Rank < 1 || p.Rank > 5 {
		return bad("rank %d out of range [1, 5]", p.Rank)
	}
	if p.Interleave < InterleaveNone || p.Interleave > Interleave32B {
		return bad("interleave %d is not a CUtensorMapInterleave (0..2)", int32(p.Interleave))
	}
	if p.Swizzle < SwizzleNone || int(p.Swizzle) >= len(swizzleNames) {
		return bad("swizzle %d is not a CUtensorMapSwizzle (0..%d)", int32(p.Swizzle), len(swizzleNames)-1)
	}
	if p.L2Promotion < L2PromotionNone || p.L2Promotion > L2Promotion256B {
		return bad("L2 promotion %d is not a CUtensorMapL2promotion (0..3)", int32(p.L2Promotion))
	}
	if p.OOBFill < OOBFillNone || p.OOBFill > OOBFillNaNRequestZeroFMA {
		return bad("OOB fill %d is not a CUtensorMapFloatOOBfill (0..1)", int32(p.OOBFill))
	}
	if p.Interleave != InterleaveNone && p.Rank < 3 {
		return bad("rank %d with interleave %d: interleaved layouts need rank >= 3", p.Rank, int32(p.Interleave))
	}
	align16B := p.Interleave == Interleave32B || p.DType == Tensor16U4Align16B || p.DType == Tensor16U6Align16B
	addrAlign := uint64(16)
	if align16B {
		addrAlign = 32
	}
	if p.Global == 0 {
		return bad("global address is 0")
	}
	if uint64(p.Global)%addrAlign != 0 {
		return bad("global address %#x is not %d-byte aligned", uint64(p.Global), addrAlign)
	}
	for i := 0; i < p.Rank; i++ {
		if p.Dims[i] < 1 || p.Dims[i] > 1<<32 {
			return bad("dims[%d] = %d out of range [1, 2^32]", i, p.Dims[i])
		}
	}
	for i := 0; i < p.Rank-1; i++ {
		s := p.Strides[i]
		if s%addrAlign != 0 {
			return bad("strides[%d] = %d bytes is not a multiple of %d", i, s, addrAlign)
		}
		if s >= 1<<40 {
			return bad("strides[%d] = %d bytes is not < 2^40", i, s)
		}
		if s == 0 {
			return bad("strides[%d] is 0", i)
		}
	}
	esize := p.DType.Size()
	if p.Rank > 1 && esize > 0 && p.Strides[0] < p.Dims[0]*uint64(esize) {
		return bad("strides[0] = %d bytes is less than one row, dims[0] * %d B = %d bytes (strides are in bytes)",
			p.Strides[0], esize, p.Dims[0]*uint64(esize))
	}
	for i := 0; i < p.Rank; i++ {
		if p.Box[i] < 1 || p.Box[i] > 256 {
			return bad("box[%d] = %d out of range [1, 256]", i, p.Box[i])
		}
		if e := p.ElemStrides[i]; e > 8 {
			return bad("elemStrides[%d] = %d out of range [1, 8]", i, e)
		}
	}
	if p.Interleave == Interleave32B && p.Swizzle != Swizzle32B {
		return bad("interleave 32B requires Swizzle32B, got %v", p.Swizzle)
	}
	if p.OOBFill == OOBFillNaNRequestZeroFMA && (!dtypeInfo[p.DType].isFloat || p.DType.packed()) {
		return bad("NaN OOB fill needs a floating-point data type, got %v", p.DType)
	}
	if p.DType.packed() {
		if (p.DType == Tensor16U4Align16B || p.DType == Tensor16U6Align16B) && (p.Dims[0]%128 != 0 || p.Box[0] != 128) {
			return bad("%v needs dims[0] a multiple of 128 and box[0] = 128, got %d and %d", p.DType, p.Dims[0], p.Box[0])
		}
		if p.DType == Tensor16U4Align8B && p.Dims[0]%2 != 0 {
			return bad("%v needs dims[0] even, got %d", p.DType, p.Dims[0])
		}
		return nil // the driver checks the packed types' box bytes itself
	}
	if p.Interleave == InterleaveNone {
		inner := int(p.Box[0]) * esize
		if inner%16 != 0 {
			return bad("box inner dimension box[0] * %d B = %d bytes is not a multiple of 16", esize, inner)
		}
		if span := p.Swizzle.Span(); span > 0 && inner > span {
			return bad("box inner dimension box[0] * %d B = %d bytes exceeds the %d-byte span of %v", esize, inner, span, p.Swizzle)
		}
	}
	return nil
}

// EncodeTiled validates p and encodes a tiled tensor map
// (cuTensorMapEncodeTiled). name identifies the tensor in errors.
func (c *Context) EncodeTiled(p TensorMapParams, name string) (*TensorMap, error) {
	if err := p.Validate(name); err != nil {
		return nil, err
	}
	t := newTensorMap()
	dims, strides, box, es := p.Dims, p.Strides, p.Box, p.ElemStrides
	for i := range es {
		if es[i] == 0 {
			es[i] = 1
		}
	}
	err := c.Do(func() error {
		err := invoke(&cuTensorMapEncodeTiled, uintptr(t.Ptr()), uintptr(p.DType), uintptr(p.Rank), uintptr(p.Global),
			uintptr(unsafe.Pointer(&dims[0])), uintptr(unsafe.Pointer(&strides[0])),
			uintptr(unsafe.Pointer(&box[0])), uintptr(unsafe.Pointer(&es[0])),
			uintptr(p.Interleave), uintptr(p.Swizzle), uintptr(p.L2Promotion), uintptr(p.OOBFill))
		runtime.KeepAlive(t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cu: encode tensor map %q (%v rank %d dims %v box %v %v): %w",
			name, p.DType, p.Rank, p.Dims[:p.Rank], p.Box[:p.Rank], p.Swizzle, err)
	}
	return t, nil
}

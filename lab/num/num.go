// Package num holds the host-side numerics shared by swigen's references,
// baselines and verification: bf16/fp16 <-> float32 conversion with
// round-to-nearest-even, byte encodings of 16-bit slices, a seeded normal
// generator whose values are already rounded to the operand type, error
// metrics, and the NaN poison pattern used to catch unwritten outputs.
package num

import (
	"encoding/binary"
	"math"

	"github.com/swigen/swigen/tiling"
)

// BF16FromFloat32 rounds f to bfloat16 (round to nearest, ties to even).
// NaN stays NaN (quiet, sign kept); values past the bf16 range become ±Inf.
func BF16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7FFFFFFF > 0x7F800000 { // NaN: keep the sign, force the quiet bit
		return uint16(b>>16) | 0x0040
	}
	// Adding 0x7FFF plus the lowest kept bit rounds ties to even; a carry
	// out of the mantissa correctly bumps the exponent (up to Inf).
	lsb := (b >> 16) & 1
	return uint16((b + 0x7FFF + lsb) >> 16)
}

// BF16ToFloat32 widens a bfloat16 bit pattern exactly.
func BF16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}

// FP16FromFloat32 rounds f to IEEE half precision (round to nearest, ties to
// even), producing subnormals below 2^-14 and ±Inf above 65504 (after
// rounding). NaN becomes a quiet NaN with the sign kept.
func FP16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7FFFFFFF
	switch {
	case abs > 0x7F800000: // NaN
		return sign | 0x7E00
	case abs >= 0x477FF000: // >= 65520 rounds to Inf (65504 + half ulp)
		return sign | 0x7C00
	case abs >= 0x38800000: // normal half: exponent >= -14
		// Re-bias the exponent (127 -> 15) and round off 13 mantissa bits.
		v := abs - (112 << 23)
		lsb := (v >> 13) & 1
		return sign | uint16((v+0xFFF+lsb)>>13)
	case abs < 0x33000000: // < 2^-25: rounds to zero (2^-25 is a tie to 0)
		return sign
	default: // subnormal half: value = m * 2^-24
		exp := int(abs >> 23)               // biased float32 exponent, 102..112
		mant := (abs & 0x7FFFFF) | 0x800000 // 24-bit significand
		// value = mant * 2^(exp-150) = (mant >> (126-exp)) units of 2^-24.
		shift := uint(126 - exp) // 14..24
		q := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && q&1 == 1) {
			q++
		}
		return sign | uint16(q)
	}
}

// FP16ToFloat32 widens an IEEE half bit pattern exactly.
func FP16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1F
	mant := uint32(h & 0x3FF)
	switch {
	case exp == 0x1F: // Inf / NaN: keep the payload
		return math.Float32frombits(sign | 0x7F800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	default: // subnormal: mant * 2^-24 is exact in float32
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
}

// RoundBF16 returns f rounded to the nearest bfloat16, as a float32.
func RoundBF16(f float32) float32 { return BF16ToFloat32(BF16FromFloat32(f)) }

// RoundFP16 returns f rounded to the nearest half, as a float32.
func RoundFP16(f float32) float32 { return FP16ToFloat32(FP16FromFloat32(f)) }

// Tol is the relative Frobenius error an output of dtype may have against
// its reference (tiling.DTypeSpec.Tol); an unknown dtype gets the default
// type's.
func Tol(dtype tiling.DType) float64 {
	s, err := dtype.Spec()
	if err != nil {
		s, _ = tiling.DefaultDType.Spec()
	}
	return s.Tol
}

// codec is the host conversion of one operand type: its bit pattern (a
// uint16: every codec here is of a 16-bit type) from and to float32,
// rounding to nearest even, and its poison pattern.
type codec struct {
	toBits   func(float32) uint16
	fromBits func(uint16) float32
	poison   uint16
}

// codecBytes is the size of a codec's element: its bit pattern is a uint16.
const codecBytes = 2

// codecs is the host conversion of each operand type the helpers take
// (tiling.HelperDTypes; kinds_test checks the map against it): a new type
// with Helpers adds its row here.
var codecs = map[tiling.DType]codec{
	tiling.BF16: {toBits: BF16FromFloat32, fromBits: BF16ToFloat32, poison: PoisonBF16},
	tiling.FP16: {toBits: FP16FromFloat32, fromBits: FP16ToFloat32, poison: PoisonFP16},
}

// Valid reports whether dtype is an operand type with a host conversion.
func Valid(dtype tiling.DType) bool {
	_, ok := codecs[dtype]
	return ok
}

// Round returns f rounded to dtype, as a float32. An unknown dtype returns f
// unchanged.
func Round(dtype tiling.DType, f float32) float32 {
	c, ok := codecs[dtype]
	if !ok {
		return f
	}
	return c.fromBits(c.toBits(f))
}

// ToBits converts f to the 16-bit pattern of dtype; an unknown dtype gives
// false.
func ToBits(dtype tiling.DType, f float32) (uint16, bool) {
	c, ok := codecs[dtype]
	if !ok {
		return 0, false
	}
	return c.toBits(f), true
}

// FromBits widens a 16-bit pattern of dtype; an unknown dtype gives NaN.
func FromBits(dtype tiling.DType, h uint16) float32 {
	c, ok := codecs[dtype]
	if !ok {
		return float32(math.NaN())
	}
	return c.fromBits(h)
}

// EncodeBF16 rounds xs to bf16 and returns them little-endian, 2 bytes each
// (the device layout).
func EncodeBF16(xs []float32) []byte { return encode(xs, BF16FromFloat32) }

// EncodeFP16 rounds xs to fp16 and returns them little-endian, 2 bytes each.
func EncodeFP16(xs []float32) []byte { return encode(xs, FP16FromFloat32) }

// DecodeBF16 widens little-endian bf16 bytes; a trailing odd byte is ignored.
func DecodeBF16(b []byte) []float32 { return decode(b, BF16ToFloat32) }

// DecodeFP16 widens little-endian fp16 bytes; a trailing odd byte is ignored.
func DecodeFP16(b []byte) []float32 { return decode(b, FP16ToFloat32) }

// Encode rounds xs to dtype and returns them little-endian (the device
// layout). An unknown dtype returns nil (check with Valid first where the
// dtype comes from a user).
func Encode(dtype tiling.DType, xs []float32) []byte {
	c, ok := codecs[dtype]
	if !ok {
		return nil
	}
	return encode(xs, c.toBits)
}

// Decode widens little-endian elements of dtype; a trailing partial
// element is ignored. An unknown dtype returns nil.
func Decode(dtype tiling.DType, b []byte) []float32 {
	c, ok := codecs[dtype]
	if !ok {
		return nil
	}
	return decode(b, c.fromBits)
}

func encode(xs []float32, conv func(float32) uint16) []byte {
	out := make([]byte, codecBytes*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint16(out[codecBytes*i:], conv(x))
	}
	return out
}

func decode(b []byte, conv func(uint16) float32) []float32 {
	out := make([]float32, len(b)/codecBytes)
	for i := range out {
		out[i] = conv(binary.LittleEndian.Uint16(b[codecBytes*i:]))
	}
	return out
}

// Float64s widens xs to float64 (exactly), for the float64 references.
func Float64s(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

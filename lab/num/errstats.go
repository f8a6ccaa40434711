package num

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/swigen/swigen/tiling"
)

// Poison bit patterns. Outputs are filled with them before a kernel runs;
// an element still holding the exact pattern afterwards was never written.
// They are quiet NaNs with a payload no arithmetic produces (the hardware's
// canonical NaNs are 0x7FFF for bf16 and 0x7FFF/0x7E00 for fp16), so a
// poisoned element is told apart from a computed NaN.
const (
	PoisonBF16 uint16 = 0x7FC1
	PoisonFP16 uint16 = 0x7E01
)

// Poison returns the poison pattern of dtype (PoisonBF16 for an unknown
// dtype, which is still a NaN in either format).
func Poison(dtype tiling.DType) uint16 {
	if c, ok := codecs[dtype]; ok {
		return c.poison
	}
	return PoisonBF16
}

// PoisonBytes returns n elements of dtype's poison pattern, little-endian.
func PoisonBytes(dtype tiling.DType, n int) []byte {
	if n < 0 {
		n = 0
	}
	p := Poison(dtype)
	out := make([]byte, codecBytes*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(out[codecBytes*i:], p)
	}
	return out
}

// CountPoisoned returns how many 16-bit elements of raw still hold dtype's
// poison pattern.
func CountPoisoned(dtype tiling.DType, raw []byte) int {
	p := Poison(dtype)
	n := 0
	for i := 0; i+1 < len(raw); i += codecBytes {
		if binary.LittleEndian.Uint16(raw[i:]) == p {
			n++
		}
	}
	return n
}

// PoisonF64 is the poison pattern of a float64 output (the naive GPU
// references write their outputs as float64). It is a signaling NaN
// (quiet bit clear) with nonzero low bits: arithmetic and widening
// conversions only produce quiet NaNs, and widening a float32 NaN leaves
// its low 29 bits zero, so no computed value holds it. It repeats the
// 16-bit word PoisonF64Word, so MemsetD16 fills a buffer with it.
const (
	PoisonF64Word uint16 = 0x7FF4
	PoisonF64     uint64 = 0x7FF4_7FF4_7FF4_7FF4
)

// PoisonBytesF64 returns n float64 elements of PoisonF64, little-endian.
func PoisonBytesF64(n int) []byte {
	if n < 0 {
		n = 0
	}
	out := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(out[8*i:], PoisonF64)
	}
	return out
}

// CountPoisonedF64 returns how many float64 elements of raw
// (little-endian) still hold PoisonF64.
func CountPoisonedF64(raw []byte) int {
	n := 0
	for i := 0; i+7 < len(raw); i += 8 {
		if binary.LittleEndian.Uint64(raw[i:]) == PoisonF64 {
			n++
		}
	}
	return n
}

// DecodeF64 reads little-endian float64 bytes, bit for bit; trailing
// bytes short of an element are ignored.
func DecodeF64(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// ErrStats summarises how far a computed tensor is from its reference.
type ErrStats struct {
	// MaxAbs is the largest |got-want| over the finite elements.
	MaxAbs float64
	// RelFrobenius is ||got-want||_F / ||want||_F over the finite
	// elements (0 when both are zero, +Inf when only want is zero).
	RelFrobenius float64
	// NaNs counts elements of got or want that are NaN or ±Inf (unless
	// both hold the same Inf), plus elements present in only one of got
	// and want.
	NaNs int
	// Poisoned counts elements that still hold the poison pattern; only
	// CompareRaw and CompareRawF64 fill it, since Compare and CompareF64
	// see values, not bits.
	Poisoned int
	// Worst is the index of the worst element: the first non-finite one
	// if any, else the one with the largest |got-want|; -1 when empty.
	Worst int
}

// OK reports whether the comparison passes: no NaNs, nothing poisoned, and
// RelFrobenius <= tol.
func (s ErrStats) OK(tol float64) bool {
	return s.NaNs == 0 && s.Poisoned == 0 && s.RelFrobenius <= tol
}

// String formats the stats for test logs and reports.
func (s ErrStats) String() string {
	return fmt.Sprintf("rel_frob=%.3g max_abs=%.3g nans=%d poisoned=%d worst=%d",
		s.RelFrobenius, s.MaxAbs, s.NaNs, s.Poisoned, s.Worst)
}

// Compare measures got against the float64 reference want. Any non-finite
// element of got counts as a NaN, and so does every element present in only
// one of the slices, so a failed or short kernel can never pass on
// RelFrobenius alone.
func Compare(got []float32, want []float64) ErrStats { return compare(got, want) }

// CompareF64 is Compare for float64 got, such as one float64 reference
// measured against another.
func CompareF64(got, want []float64) ErrStats { return compare(got, want) }

func compare[T float32 | float64](got []T, want []float64) ErrStats {
	n := min(len(got), len(want))
	s := ErrStats{Worst: -1, NaNs: max(len(got), len(want)) - n}
	firstBad, argMax := -1, -1
	var diff2, want2 float64
	for i := 0; i < n; i++ {
		g, w := float64(got[i]), want[i]
		if math.IsNaN(w) || math.IsInf(w, 0) {
			// A reference that is not finite (a baseline that left an
			// element unwritten, say) would make both sums NaN and the
			// comparison pass: the element counts as bad unless got holds
			// the same Inf.
			if g != w {
				s.NaNs++
				if firstBad < 0 {
					firstBad = i
				}
			}
			continue
		}
		want2 += w * w
		if math.IsNaN(g) || math.IsInf(g, 0) {
			if g != w { // an Inf that matches an Inf reference is fine
				s.NaNs++
				if firstBad < 0 {
					firstBad = i
				}
			}
			continue
		}
		d := math.Abs(g - w)
		diff2 += d * d
		if argMax < 0 || d > s.MaxAbs {
			s.MaxAbs, argMax = d, i
		}
	}
	s.Worst = argMax
	if firstBad >= 0 {
		s.Worst = firstBad
	}
	s.RelFrobenius = RelFrobenius(diff2, want2)
	return s
}

// RelFrobenius is ||got-want||_F / ||want||_F from the two sums of squares
// (diff2 of got-want, want2 of want): 0 when both are zero, +Inf when only
// want is.
func RelFrobenius(diff2, want2 float64) float64 {
	switch {
	case want2 > 0:
		return math.Sqrt(diff2) / math.Sqrt(want2)
	case diff2 > 0:
		return math.Inf(1)
	}
	return 0
}

// CompareRaw decodes raw as dtype and compares it with want like Compare,
// also counting still-poisoned elements.
func CompareRaw(dtype tiling.DType, raw []byte, want []float64) ErrStats {
	s := Compare(Decode(dtype, raw), want)
	s.Poisoned = CountPoisoned(dtype, raw)
	return s
}

// CompareRawF64 decodes raw as little-endian float64 and compares it with
// want like CompareF64, also counting elements still holding PoisonF64.
func CompareRawF64(raw []byte, want []float64) ErrStats {
	s := CompareF64(DecodeF64(raw), want)
	s.Poisoned = CountPoisonedF64(raw)
	return s
}

// CompareRawBoth compares two raw dtype tensors, raw against the reference
// wantRaw (a baseline's output on the same inputs), like CompareRaw.
func CompareRawBoth(dtype tiling.DType, raw, wantRaw []byte) ErrStats {
	return CompareRaw(dtype, raw, Float64s(Decode(dtype, wantRaw)))
}

// RelOrInf is RelFrobenius, or +Inf when got had non-finite or unwritten
// (poisoned) elements: one number that no tolerance accepts for an output
// that is not all there.
func (s ErrStats) RelOrInf() float64 {
	if s.NaNs > 0 || s.Poisoned > 0 {
		return math.Inf(1)
	}
	return s.RelFrobenius
}

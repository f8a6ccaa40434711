package num

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestBF16KnownPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3F80},
		{"minus two", -2, 0xC000},
		{"zero", 0, 0x0000},
		{"minus zero", float32(math.Copysign(0, -1)), 0x8000},
		{"pi", math.Pi, 0x4049},
		{"max finite", math.Float32frombits(0x7F7F0000), 0x7F7F},
		{"rounds up to inf", math.MaxFloat32, 0x7F80},
		{"inf", float32(math.Inf(1)), 0x7F80},
		{"-inf", float32(math.Inf(-1)), 0xFF80},
		{"smallest subnormal kept", math.Float32frombits(0x00010000), 0x0001},
		{"tie to even down", math.Float32frombits(0x3F808000), 0x3F80},
		{"tie to even up", math.Float32frombits(0x3F818000), 0x3F82},
		{"above tie", math.Float32frombits(0x3F808001), 0x3F81},
		{"below tie", math.Float32frombits(0x3F807FFF), 0x3F80},
		{"nan quiet", math.Float32frombits(0x7FC00000), 0x7FC0},
		{"signalling nan stays nan", math.Float32frombits(0x7F800001), 0x7FC0},
		{"negative nan", math.Float32frombits(0xFFC00000), 0xFFC0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BF16FromFloat32(tt.in); got != tt.want {
				t.Errorf("BF16FromFloat32(%g [%#08x]) = %#04x, want %#04x", tt.in, math.Float32bits(tt.in), got, tt.want)
			}
		})
	}
}

func TestFP16KnownPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3C00},
		{"minus two", -2, 0xC000},
		{"max", 65504, 0x7BFF},
		{"below overflow tie", 65519, 0x7BFF},
		{"overflow tie to inf", 65520, 0x7C00},
		{"inf", float32(math.Inf(1)), 0x7C00},
		{"smallest normal", 1.0 / (1 << 14), 0x0400},
		{"largest subnormal", 1023.0 / (1 << 24), 0x03FF},
		{"smallest subnormal", 1.0 / (1 << 24), 0x0001},
		{"half smallest ties to zero", 1.0 / (1 << 25), 0x0000},
		{"above half smallest", math.Float32frombits(0x33000001), 0x0001},
		{"1.5 smallest ties to even 2", 3.0 / (1 << 25), 0x0002},
		{"2.5 smallest ties to even 2", 5.0 / (1 << 25), 0x0002},
		{"subnormal rounds to normal", math.Float32frombits(0x387FFFFF), 0x0400},
		{"tie to even down", 1 + 1.0/2048, 0x3C00},
		{"tie to even up", 1 + 3.0/2048, 0x3C02},
		{"minus zero", float32(math.Copysign(0, -1)), 0x8000},
		{"tiny negative", -1e-10, 0x8000},
		{"nan", float32(math.NaN()), 0x7E00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FP16FromFloat32(tt.in); got != tt.want {
				t.Errorf("FP16FromFloat32(%g) = %#04x, want %#04x", tt.in, got, tt.want)
			}
		})
	}
}

// TestRoundTripAllPatterns widens every 16-bit pattern and rounds it back:
// every non-NaN pattern must survive exactly, NaNs must stay NaN.
func TestRoundTripAllPatterns(t *testing.T) {
	t.Parallel()
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for h := 0; h <= 0xFFFF; h++ {
			f := FromBits(dt, uint16(h))
			back, _ := ToBits(dt, f)
			if f != f {
				if g := FromBits(dt, back); g == g {
					t.Fatalf("%s %#04x: NaN came back as %#04x", dt, h, back)
				}
				continue
			}
			if back != uint16(h) {
				t.Fatalf("%s %#04x -> %g -> %#04x", dt, h, f, back)
			}
		}
	}
}

// TestRoundingIsNearest checks, against float64 arithmetic, that the chosen
// neighbour is the nearest one for a sweep of float32 inputs.
func TestRoundingIsNearest(t *testing.T) {
	t.Parallel()
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		r := NewRand(7)
		xs := r.Normal("", 20000, 100)
		for _, x := range xs {
			h, _ := ToBits(dt, x)
			got := float64(FromBits(dt, h))
			lo := float64(FromBits(dt, h-1))
			hi := float64(FromBits(dt, h+1))
			d := math.Abs(got - float64(x))
			if math.Abs(lo-float64(x)) < d || math.Abs(hi-float64(x)) < d {
				t.Fatalf("%s: %g rounded to %g, neighbours %g %g are nearer", dt, x, got, lo, hi)
			}
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	in := []float32{1, -2, 0.5, 3}
	tests := []struct {
		dt   tiling.DType
		want []byte
	}{
		{tiling.BF16, []byte{0x80, 0x3F, 0x00, 0xC0, 0x00, 0x3F, 0x40, 0x40}},
		{tiling.FP16, []byte{0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0x00, 0x42}},
	}
	for _, tt := range tests {
		t.Run(string(tt.dt), func(t *testing.T) {
			b := Encode(tt.dt, in)
			if diff := cmp.Diff(tt.want, b); diff != "" {
				t.Errorf("Encode (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, Decode(tt.dt, b)); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
	if Encode("fp8", in) != nil || Decode("fp8", []byte{1, 2}) != nil {
		t.Error("unknown dtype: want nil")
	}
}

func TestRandIsRoundedAndReproducible(t *testing.T) {
	t.Parallel()
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		a := NewRand(42).Normal(dt, 1000, 1)
		b := NewRand(42).Normal(dt, 1000, 1)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("same seed differs (-a +b):\n%s", diff)
		}
		var sum, sum2 float64
		for _, x := range a {
			if Round(dt, x) != x {
				t.Fatalf("%s: %g is not rounded", dt, x)
			}
			sum += float64(x)
			sum2 += float64(x) * float64(x)
		}
		if mean, v := sum/1000, sum2/1000; math.Abs(mean) > 0.15 || v < 0.8 || v > 1.2 {
			t.Errorf("%s: mean %g var %g not ~N(0,1)", dt, mean, v)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	nan := float32(math.NaN())
	tests := []struct {
		name string
		got  []float32
		want []float64
		out  ErrStats
	}{
		{"exact", []float32{1, 2}, []float64{1, 2}, ErrStats{Worst: 0}},
		{"error", []float32{3, 0, 4}, []float64{3, 3, 0}, ErrStats{MaxAbs: 4, RelFrobenius: 5.0 / math.Sqrt(18), Worst: 2}},
		{"nan", []float32{1, nan, nan}, []float64{1, 2, 2}, ErrStats{NaNs: 2, Worst: 1}},
		{"short", []float32{1}, []float64{1, 2}, ErrStats{NaNs: 1, RelFrobenius: 0, Worst: 0}},
		{"zero reference", []float32{0, 1}, []float64{0, 0}, ErrStats{MaxAbs: 1, RelFrobenius: math.Inf(1), Worst: 1}},
		{"empty", nil, nil, ErrStats{Worst: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.got, tt.want)
			if diff := cmp.Diff(tt.out, got); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
	if (ErrStats{NaNs: 1}).OK(1) || !(ErrStats{RelFrobenius: 0.01}).OK(0.02) {
		t.Error("OK wrong")
	}
}

func TestPoison(t *testing.T) {
	t.Parallel()
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		p := Poison(dt)
		if f := FromBits(dt, p); f == f {
			t.Errorf("%s poison %#04x is not NaN", dt, p)
		}
		// A computed NaN must not look poisoned.
		if h, _ := ToBits(dt, float32(math.NaN())); h == p {
			t.Errorf("%s: computed NaN equals the poison", dt)
		}
		raw := PoisonBytes(dt, 5)
		copy(raw[2:], Encode(dt, []float32{1, 2}))
		want := []float64{0, 1, 2, 0, 0}
		s := CompareRaw(dt, raw, want)
		if s.Poisoned != 3 || s.NaNs != 3 || s.Worst != 0 {
			t.Errorf("%s: CompareRaw = %v, want 3 poisoned, 3 NaNs, worst 0", dt, s)
		}
	}
}

func TestPoisonF64(t *testing.T) {
	t.Parallel()
	if f := math.Float64frombits(PoisonF64); !math.IsNaN(f) {
		t.Errorf("PoisonF64 %#016x is not NaN", PoisonF64)
	}
	w := uint64(PoisonF64Word)
	if PoisonF64 != w<<48|w<<32|w<<16|w {
		t.Errorf("PoisonF64 %#016x does not repeat PoisonF64Word %#04x", PoisonF64, PoisonF64Word)
	}
	// Neither a computed NaN nor a widened float32 or 16-bit NaN (the
	// 16-bit poisons included) looks poisoned.
	nans := []float64{math.NaN(), math.Inf(1) - math.Inf(1), float64(float32(math.NaN())),
		float64(FromBits(tiling.BF16, PoisonBF16)), float64(FromBits(tiling.FP16, PoisonFP16))}
	for _, x := range nans {
		if math.Float64bits(x) == PoisonF64 {
			t.Errorf("NaN %#016x equals the float64 poison", math.Float64bits(x))
		}
	}
	raw := PoisonBytesF64(5)
	copy(raw[8:], encodeF64(1, 2))
	if n := CountPoisonedF64(raw); n != 3 {
		t.Errorf("CountPoisonedF64 = %d, want 3", n)
	}
	if diff := cmp.Diff(PoisonBytesF64(0), []byte{}); diff != "" || len(PoisonBytesF64(-1)) != 0 {
		t.Errorf("PoisonBytesF64 of no elements (-want +got):\n%s", diff)
	}
	s := CompareRawF64(raw, []float64{0, 1, 2, 0, 0})
	if diff := cmp.Diff(ErrStats{NaNs: 3, Poisoned: 3, Worst: 0}, s); diff != "" {
		t.Errorf("CompareRawF64 (-want +got):\n%s", diff)
	}
}

// encodeF64 is xs as little-endian float64 bytes.
func encodeF64(xs ...float64) []byte {
	out := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

func TestCompareF64(t *testing.T) {
	t.Parallel()
	tiny := math.Nextafter(1, 2) // one ulp above 1: exact in float64 only
	tests := []struct {
		name string
		raw  []byte
		want []float64
		out  ErrStats
	}{
		{"exact", encodeF64(1, tiny, -3), []float64{1, tiny, -3}, ErrStats{Worst: 0}},
		{"one ulp", encodeF64(1, 1), []float64{1, tiny}, ErrStats{MaxAbs: tiny - 1, RelFrobenius: math.Sqrt((tiny-1)*(tiny-1)) / math.Sqrt(1+tiny*tiny), Worst: 1}},
		{"nan", encodeF64(1, math.NaN()), []float64{1, 2}, ErrStats{NaNs: 1, Worst: 1}},
		{"matching inf", encodeF64(math.Inf(-1), 2), []float64{math.Inf(-1), 2}, ErrStats{Worst: 1}},
		{"short", encodeF64(1)[:7], []float64{1}, ErrStats{NaNs: 1, Worst: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.out, CompareRawF64(tt.raw, tt.want)); diff != "" {
				t.Errorf("CompareRawF64 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.out, CompareF64(DecodeF64(tt.raw), tt.want)); diff != "" {
				t.Errorf("CompareF64 (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareRawBothAndRelOrInf(t *testing.T) {
	t.Parallel()
	want := Encode(tiling.BF16, []float32{1, 2, 3})
	poisoned := append([]byte(nil), want...)
	p := Poison(tiling.BF16)
	poisoned[2], poisoned[3] = byte(p), byte(p>>8)
	tests := []struct {
		name    string
		got     []byte
		rel     float64
		wantBad bool
	}{
		{"equal", want, 0, false},
		{"poisoned element", poisoned, math.Inf(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := CompareRawBoth(tiling.BF16, tt.got, want)
			if diff := cmp.Diff(tt.rel, st.RelOrInf()); diff != "" {
				t.Errorf("RelOrInf (-want +got):\n%s", diff)
			}
			if st.OK(1e-2) == tt.wantBad {
				t.Errorf("OK = %v, want %v (%s)", st.OK(1e-2), !tt.wantBad, st)
			}
		})
	}
}

// TestCompareNonFiniteReference: a reference element that is NaN or Inf
// (a baseline that left poison behind) fails the comparison instead of
// turning both sums into NaN and passing; equal Infs are fine.
func TestCompareNonFiniteReference(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tt := range []struct {
		name     string
		got      []float64
		want     []float64
		wantNaNs int
		ok       bool
	}{
		{"NaN reference", []float64{1, 2}, []float64{1, nan}, 1, false},
		{"Inf reference", []float64{1, 2}, []float64{inf, 2}, 1, false},
		{"equal Infs", []float64{inf, 2}, []float64{inf, 2}, 0, true},
		{"both NaN", []float64{nan, 2}, []float64{nan, 2}, 1, false},
	} {
		s := CompareF64(tt.got, tt.want)
		if s.NaNs != tt.wantNaNs || s.OK(1e-2) != tt.ok || math.IsNaN(s.RelFrobenius) {
			t.Errorf("%s: %v, want %d NaNs and OK %v", tt.name, s, tt.wantNaNs, tt.ok)
		}
	}
}

package cu

import (
	"errors"
	"strings"
	"testing"
)

// okParams is a valid bf16 [4096 x 8192] row-major operand with a 64x128
// box and 128-byte swizzle, the shape of a Hopper GEMM A tile.
func okParams() TensorMapParams {
	return TensorMapParams{
		DType:   TensorBfloat16,
		Rank:    2,
		Global:  0x7f0000000000,
		Dims:    [5]uint64{8192, 4096},
		Strides: [4]uint64{8192 * 2},
		Box:     [5]uint32{64, 128},
		Swizzle: Swizzle128B,
	}
}

func TestValidateTensorMap(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *TensorMapParams)
		want string // substring of the error; "" means valid
	}{
		{"ok", func(p *TensorMapParams) {}, ""},
		{"ok rank 1", func(p *TensorMapParams) { p.Rank = 1; p.Swizzle = SwizzleNone }, ""},
		{"ok rank 5", func(p *TensorMapParams) {
			p.Rank = 5
			p.Dims = [5]uint64{64, 2, 3, 4, 5}
			p.Strides = [4]uint64{128, 256, 768, 3072}
			p.Box = [5]uint32{64, 1, 1, 1, 1}
		}, ""},
		{"ok fp32 swizzle 64", func(p *TensorMapParams) {
			p.DType = TensorFloat32
			p.Strides[0] = 8192 * 4
			p.Box[0] = 16
			p.Swizzle = Swizzle64B
		}, ""},
		{"ok elem strides", func(p *TensorMapParams) { p.ElemStrides = [5]uint32{1, 8} }, ""},
		{"ok dims 2^32", func(p *TensorMapParams) { p.Rank = 1; p.Dims[0] = 1 << 32 }, ""},
		{"rank 0", func(p *TensorMapParams) { p.Rank = 0 }, "rank 0 out of range [1, 5]"},
		{"rank 6", func(p *TensorMapParams) { p.Rank = 6 }, "rank 6 out of range [1, 5]"},
		{"bad dtype", func(p *TensorMapParams) { p.DType = 16 }, "data type 16 is not a CUtensorMapDataType"},
		{"bad swizzle", func(p *TensorMapParams) { p.Swizzle = 7 }, "swizzle 7 is not a CUtensorMapSwizzle"},
		{"bad interleave", func(p *TensorMapParams) { p.Interleave = 3 }, "interleave 3 is not"},
		{"bad l2", func(p *TensorMapParams) { p.L2Promotion = 4 }, "L2 promotion 4 is not"},
		{"bad oob", func(p *TensorMapParams) { p.OOBFill = 2 }, "OOB fill 2 is not"},
		{"nil global", func(p *TensorMapParams) { p.Global = 0 }, "global address is 0"},
		{"misaligned global", func(p *TensorMapParams) { p.Global += 8 }, "global address 0x7f0000000008 is not 16-byte aligned"},
		{"dim 0", func(p *TensorMapParams) { p.Dims[1] = 0 }, "dims[1] = 0 out of range [1, 2^32]"},
		{"dim too big", func(p *TensorMapParams) { p.Dims[1] = 1<<32 + 1 }, "dims[1] = 4294967297 out of range [1, 2^32]"},
		{"stride not 16", func(p *TensorMapParams) { p.Strides[0] = 16392 }, "strides[0] = 16392 bytes is not a multiple of 16"},
		{"stride too big", func(p *TensorMapParams) { p.Strides[0] = 1 << 40 }, "strides[0] = 1099511627776 bytes is not < 2^40"},
		{"stride in elements", func(p *TensorMapParams) { p.Strides[0] = 8192 }, "strides[0] = 8192 bytes is less than one row, dims[0] * 2 B = 16384 bytes"},
		{"stride zero", func(p *TensorMapParams) { p.Strides[0] = 0 }, "strides[0] is 0"},
		{"box 0", func(p *TensorMapParams) { p.Box[1] = 0 }, "box[1] = 0 out of range [1, 256]"},
		{"box 257", func(p *TensorMapParams) { p.Box[1] = 257 }, "box[1] = 257 out of range [1, 256]"},
		{"elem stride 9", func(p *TensorMapParams) { p.ElemStrides[1] = 9 }, "elemStrides[1] = 9 out of range [1, 8]"},
		{"inner over swizzle span", func(p *TensorMapParams) { p.Box[0] = 128 }, "box inner dimension box[0] * 2 B = 256 bytes exceeds the 128-byte span of Swizzle128B"},
		{"inner over 32B span", func(p *TensorMapParams) { p.Box[0] = 32; p.Swizzle = Swizzle32B }, "64 bytes exceeds the 32-byte span of Swizzle32B"},
		{"inner not 16 bytes", func(p *TensorMapParams) { p.Box[0] = 12 }, "box inner dimension box[0] * 2 B = 24 bytes is not a multiple of 16"},
		{"interleave needs rank 3", func(p *TensorMapParams) { p.Interleave = Interleave16B }, "interleaved layouts need rank >= 3"},
		{"interleave 32 needs swizzle 32", func(p *TensorMapParams) {
			p.Rank = 3
			p.Dims[2] = 2
			p.Strides[1] = 16384 * 4096
			p.Box[2] = 1
			p.Interleave = Interleave32B
		}, "interleave 32B requires Swizzle32B, got Swizzle128B"},
		{"nan fill on ints", func(p *TensorMapParams) {
			p.DType = TensorUint16
			p.OOBFill = OOBFillNaNRequestZeroFMA
		}, "NaN OOB fill needs a floating-point data type, got uint16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := okParams()
			tt.edit(&p)
			err := p.Validate("A")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want error containing %q", tt.want)
			}
			if !errors.Is(err, ErrInvalidTensorMap) {
				t.Errorf("error %v does not wrap ErrInvalidTensorMap", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"A"`) {
				t.Errorf("Validate() = %q, want it to name tensor \"A\" and contain %q", err, tt.want)
			}
		})
	}
}

func TestEncodeTiledValidatesFirst(t *testing.T) {
	// A zero Context is never used: validation fails before any driver call.
	var c Context
	p := okParams()
	p.Box[0] = 0
	if _, err := c.EncodeTiled(p, "B"); !errors.Is(err, ErrInvalidTensorMap) {
		t.Fatalf("EncodeTiled = %v, want ErrInvalidTensorMap", err)
	}
}

func TestDTypeSizes(t *testing.T) {
	want := map[TensorDType]int{TensorUint8: 1, TensorFloat16: 2, TensorBfloat16: 2, TensorFloat32: 4, TensorFloat64: 8, Tensor16U4Align8B: 0}
	for d, n := range want {
		if got := d.Size(); got != n {
			t.Errorf("%v.Size() = %d, want %d", d, got, n)
		}
	}
	// Enum values from cuda.h CUtensorMapDataType.
	if TensorFloat16 != 6 || TensorFloat32 != 7 || TensorBfloat16 != 9 || Tensor16U6Align16B != 15 {
		t.Error("CUtensorMapDataType values drifted from cuda.h")
	}
	if Swizzle128B != 3 || Swizzle128BAtom64B != 6 || L2Promotion256B != 3 || Interleave32B != 2 {
		t.Error("swizzle/L2/interleave enum values drifted from cuda.h")
	}
}

package view

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// The worked values come from ptx.md §0, §A2, §B3 and §B4.
func TestSmemDescWorkedValues(t *testing.T) {
	t.Parallel()
	const addr = 0x1400 // any 1024-byte aligned tile
	tests := []struct {
		name          string
		enc           func(addr, lbo, sbo uint32, sw swizzle) (uint64, error)
		addr, lbo, sb uint32
		sw            swizzle
		want          uint64
	}{
		{"sm90 K-major SW128", sm90SmemDesc, addr, 16, 1024, swizzle128B, 0x4000004000010000 | addr>>4},
		{"sm90 MN-major SW128 LBO 8192", sm90SmemDesc, 0, 8192, 1024, swizzle128B, 0x4000004002000000},
		{"sm90 64B", sm90SmemDesc, 0, 0, 0, swizzle64B, 1 << 63},
		{"sm90 32B", sm90SmemDesc, 0, 0, 0, swizzle32B, 3 << 62},
		{"sm100 K-major SW128", sm100SmemDesc, addr, 16, 1024, swizzle128B, 0x4000404000010000 | addr>>4},
		// MN-major, tile_k=64: LBO = one 64-wide MN slab of 64 k-rows.
		{"sm100 MN-major SW128 LBO 8192", sm100SmemDesc, 0, 8192, 1024, swizzle128B, 0x4000404002000000},
		{"sm100 64B", sm100SmemDesc, 0, 0, 0, swizzle64B, 1<<63 | 1<<46},
		{"sm100 32B", sm100SmemDesc, 0, 0, 0, swizzle32B, 3<<62 | 1<<46},
		{"sm100 128B atom 32B", sm100SmemDesc, 0, 0, 0, swizzle128BAtom32B, 1<<61 | 1<<46},
		{"sm100 none", sm100SmemDesc, 0x10, 128, 256, swizzleNone, 1<<46 | 16<<32 | 8<<16 | 1},
	}
	for _, tc := range tests {
		got, err := tc.enc(tc.addr, tc.lbo, tc.sb, tc.sw)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: got %#016x, want %#016x", tc.name, got, tc.want)
		}
	}
}

func TestSmemDescErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		enc           func(addr, lbo, sbo uint32, sw swizzle) (uint64, error)
		addr, lbo, sb uint32
		sw            swizzle
	}{
		{"unaligned addr", sm100SmemDesc, 8, 16, 1024, swizzle128B},
		{"addr too large", sm100SmemDesc, 1 << 18, 16, 1024, swizzle128B},
		{"unaligned sbo", sm90SmemDesc, 0, 16, 1000, swizzle128B},
		{"lbo too large", sm90SmemDesc, 0, 1 << 18, 1024, swizzle128B},
		{"sm90 has no 32B atom", sm90SmemDesc, 0, 16, 1024, swizzle128BAtom32B},
		{"unknown swizzle", sm100SmemDesc, 0, 16, 1024, swizzle(9)},
	}
	for _, tc := range tests {
		if got, err := tc.enc(tc.addr, tc.lbo, tc.sb, tc.sw); err == nil {
			t.Errorf("%s: got %#x, want an error", tc.name, got)
		}
	}
}

func TestSM100InstrDesc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		d              tiling.DType
		g, m, n        int
		transA, transB bool
		want           uint32
	}{
		{"bf16 m128 n256", tiling.BF16, 1, 128, 256, false, false, 0x08400490},
		{"bf16 m256 n256 (2cta)", tiling.BF16, 2, 256, 256, false, false, 0x10400490},
		{"bf16 B N-major", tiling.BF16, 1, 128, 256, false, true, 0x08410490},
		{"bf16 n128", tiling.BF16, 1, 128, 128, false, false, 0x08200490},
		{"f16 f32 acc", tiling.FP16, 1, 128, 256, false, false, 0x08400010},
		{"bf16 A M-major", tiling.BF16, 1, 128, 256, true, false, 0x08408490},
		// sm_100a gemm for a weight gradient: both operands MN-major, 2cta.
		{"bf16 m256 A and B MN-major", tiling.BF16, 2, 256, 256, true, true, 0x10418490},
		{"f16 m128 n128 A M-major", tiling.FP16, 1, 128, 128, true, false, 0x08208010},
		{"bf16 m64 n8", tiling.BF16, 1, 64, 8, false, false, 0x04020490},
		// PTX ISA Table 39: cta_group::1 M=128 takes N in steps of 8.
		{"bf16 m128 n24", tiling.BF16, 1, 128, 24, false, false, 0x08060490},
		{"bf16 m128 n32 (2cta)", tiling.BF16, 2, 128, 32, false, false, 0x08080490},
	}
	for _, tc := range tests {
		got, err := sm100InstrDesc(tc.d, tc.g, tc.m, tc.n, tc.transA, tc.transB)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: got %#08x, want %#08x", tc.name, got, tc.want)
		}
	}
	bad := []struct {
		name    string
		d       tiling.DType
		g, m, n int
	}{
		{"m96", tiling.BF16, 1, 96, 128},
		{"n0", tiling.BF16, 1, 128, 0},
		{"n264", tiling.BF16, 1, 128, 264},
		{"n12", tiling.BF16, 1, 128, 12},
		{"m256 n8", tiling.BF16, 2, 256, 8},
		{"fp8", tiling.DType("e4m3"), 1, 128, 128},
		// The shape depends on cta_group (Table 39).
		{"m256 on one CTA", tiling.BF16, 1, 256, 128},
		{"m64 on a pair", tiling.BF16, 2, 64, 128},
		{"pair n24", tiling.BF16, 2, 128, 24},
		{"cta_group 0", tiling.BF16, 0, 128, 128},
		{"cta_group 4", tiling.BF16, 4, 256, 128},
	}
	for _, tc := range bad {
		if got, err := sm100InstrDesc(tc.d, tc.g, tc.m, tc.n, false, false); err == nil {
			t.Errorf("%s: got %#x, want an error", tc.name, got)
		}
	}
}

// TestDescHex90: the fixed bits the sm_90a templates start from are the
// worked values of ptx.md §0 and §A2 with a zero start address.
func TestDescHex90(t *testing.T) {
	t.Parallel()
	for lbo, want := range map[int]string{16: "0x4000004000010000", 8192: "0x4000004002000000"} {
		if got, err := descHex90(lbo); err != nil || got != want {
			t.Errorf("descHex90(%d) = %s, %v; want %s", lbo, got, err, want)
		}
	}
	if _, err := descHex90(1 << 18); err == nil {
		t.Error("descHex90(1<<18): want an error (LBO past the 14-bit field)")
	}
}

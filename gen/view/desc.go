package view

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// swizzle is the shared-memory swizzle mode of a tensor-core operand, as
// the TMA wrote it.
type swizzle int

// The swizzle modes. swizzle128BAtom32B exists on sm_100 only (tf32
// MN-major operands).
const (
	swizzleNone swizzle = iota
	swizzle32B
	swizzle64B
	swizzle128B
	swizzle128BAtom32B
)

func (s swizzle) String() string {
	switch s {
	case swizzleNone:
		return "none"
	case swizzle32B:
		return "32B"
	case swizzle64B:
		return "64B"
	case swizzle128B:
		return "128B"
	case swizzle128BAtom32B:
		return "128B-atom32B"
	}
	return fmt.Sprintf("swizzle(%d)", int(s))
}

// smemDescMax is the exclusive bound of the 14-bit (>>4) address, LBO and
// SBO fields: 256 KiB.
const smemDescMax = 1 << 18

// smemDescFields packs the fields the sm_90 and sm_100 descriptors share
// (ptx.md §0, §A2, §B4): start address bits 0-13, LBO bits 16-29, SBO bits
// 32-45, each in 16-byte units.
func smemDescFields(op string, addr, lbo, sbo uint32) (uint64, error) {
	for _, f := range []struct {
		name string
		v    uint32
	}{{"addr", addr}, {"lbo", lbo}, {"sbo", sbo}} {
		if f.v%16 != 0 || f.v >= smemDescMax {
			return 0, fmt.Errorf("%s: %s=%#x: must be a multiple of 16 below %#x (a 14-bit field in 16-byte units)", op, f.name, f.v, smemDescMax)
		}
	}
	return uint64(addr>>4) | uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32, nil
}

// sm90SmemDesc encodes a Hopper wgmma shared-memory matrix descriptor
// (ptx.md §A2): swizzle in bits 62-63 (128B = 1, 64B = 2, 32B = 3), base
// offset 0 (tiles start 1024-byte aligned). addr is the shared-memory
// address of the first 16-byte row of the first core matrix.
func sm90SmemDesc(addr, lbo, sbo uint32, sw swizzle) (uint64, error) {
	const op = "sm90 smem desc"
	d, err := smemDescFields(op, addr, lbo, sbo)
	if err != nil {
		return 0, err
	}
	var code uint64
	switch sw {
	case swizzleNone:
		code = 0
	case swizzle128B:
		code = 1
	case swizzle64B:
		code = 2
	case swizzle32B:
		code = 3
	default:
		return 0, fmt.Errorf("%s: swizzle %s: not a wgmma layout (want none, 32B, 64B or 128B)", op, sw)
	}
	return d | code<<62, nil
}

// descHex90 is the sm_90a descriptor of a 128B-swizzled operand tile with
// leading byte offset lbo and stride byte offset swizzleRepeat (8 rows of
// 128 bytes), as the hex literal the templates OR the start address into.
func descHex90(lbo int) (string, error) {
	d, err := sm90SmemDesc(0, uint32(lbo), swizzleRepeat, swizzle128B)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("0x%016x", d), nil
}

// sm100SmemDesc encodes a Blackwell tcgen05 shared-memory descriptor
// (ptx.md §B4): the sm_90 fields plus the fixed version bit 46, LBO mode 0
// (relative) and the 3-bit layout field at bits 61-63 (128B = 2, 64B = 4,
// 32B = 6, 128B-with-32B-atom = 1). Base offset 0.
func sm100SmemDesc(addr, lbo, sbo uint32, sw swizzle) (uint64, error) {
	const op = "sm100 smem desc"
	d, err := smemDescFields(op, addr, lbo, sbo)
	if err != nil {
		return 0, err
	}
	var code uint64
	switch sw {
	case swizzleNone:
		code = 0
	case swizzle128BAtom32B:
		code = 1
	case swizzle128B:
		code = 2
	case swizzle64B:
		code = 4
	case swizzle32B:
		code = 6
	default:
		return 0, fmt.Errorf("%s: swizzle %s: unknown", op, sw)
	}
	return d | 1<<46 | code<<61, nil
}

// sm100InstrDesc encodes the 32-bit instruction descriptor of
// tcgen05.mma.cta_group::<ctaGroup>.kind::f16 with an fp32 accumulator
// (PTX ISA 9.7.16.4.2, Table 42 "Instruction descriptor format for
// .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8"): D type bits 4-5
// (F32 = 1), A and B type bits 7-9 and 10-12 (tiling.DTypeSpec.MMAType:
// F16 = 0, BF16 = 1),
// transpose A bit 15 and B bit 16 (1 = MN-major), N>>3 at bits 17-22,
// M>>4 at bits 24-28; dense, no negation, no saturation, no .ws shift.
// m is the instruction M (the CTA pair's M with cta_group::2). Only the
// shapes of PTX ISA Table 39 are accepted (tiling.Limits.CheckMMA):
// cta_group::1 M 64 or 128 with N a multiple of 8 in [8,256], cta_group::2
// M 128 or 256 with N a multiple of 16 in [16,256].
func sm100InstrDesc(ab tiling.DType, ctaGroup, m, n int, transA, transB bool) (uint32, error) {
	const op = "sm100 instr desc"
	spec, err := ab.Spec()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if spec.MMAKind != "f16" {
		return 0, fmt.Errorf("%s: dtype %q: tcgen05.mma kind::%s: only kind::f16 is encoded", op, ab, spec.MMAKind)
	}
	t := spec.MMAType
	if ctaGroup != 1 && ctaGroup != 2 {
		return 0, fmt.Errorf("%s: cta_group %d: want 1 or 2", op, ctaGroup)
	}
	lim, err := tiling.LimitsFor(tiling.ArchSM100a)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if err := lim.CheckMMA(ab, ctaGroup, m, n); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	d := uint32(1)<<4 | t<<7 | t<<10 | uint32(n>>3)<<17 | uint32(m>>4)<<24
	if transA {
		d |= 1 << 15
	}
	if transB {
		d |= 1 << 16
	}
	return d, nil
}

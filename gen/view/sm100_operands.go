package view

import (
	"fmt"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// The sm_100a operand ring. Each CTA loads its own rows of A (RowsPerCTA)
// and B (NPerCTA) into a stage: K-major, atom a holds k in [64a, 64a+64)
// of those rows; MN-major, slab q holds m (or n) in [64q, 64q+64) for
// TileK k-rows (LBO is the slab stride, SBO 8 k-rows, a k16 step 16
// k-rows; ptx.md §B4). Each TMA load is one box of the manifest's tensor
// map.

// sm100Operands lays out both operands' loads and returns them with the
// instruction descriptor, which needs both majors.
func sm100Operands(c tiling.Config, e Elem, boxes manifest.Boxes, p SM100Pair, halves int) (a, b Operand, idesc string, err error) {
	if a, err = sm100OperandA(c, e, boxes, p.RowsPerCTA); err != nil {
		return a, b, "", err
	}
	if b, err = sm100OperandB(c, e, boxes, p, halves); err != nil {
		return a, b, "", err
	}
	d, err := sm100InstrDesc(c.DType, p.CTAGroup, c.TileM, c.TileN, a.Trans == 1, b.Trans == 1)
	if err != nil {
		return a, b, "", fmt.Errorf("view: %w", err)
	}
	return a, b, fmt.Sprintf("0x%08x", d), nil
}

// sm100OperandA lays out the loads of the CTA's rows rows of A: one box per
// atom (K-major), or per 64-row slab (MN-major, load i at row MN[i]).
func sm100OperandA(c tiling.Config, e Elem, boxes manifest.Boxes, rows int) (Operand, error) {
	var o Operand
	var l loadList
	lbo := 16
	atom, err := boxRow("A", boxes.A)
	if err != nil {
		return o, err
	}
	switch c.MajorA {
	case tiling.KMajor:
		for a := 0; a < c.TileK/atom; a++ {
			l.add(atom*a, 0, a*rows*swizzleAtomBytes, 0, 0)
		}
		o.K16 = join.Ints(kmajorK16(e, c.TileK, rows))
	case tiling.MNMajor:
		lbo = boxes.A[1] * swizzleAtomBytes // one box: TileK k-rows of 64 m
		for q := 0; q < rows/atom; q++ {
			l.add(0, atom*q, q*lbo, 0, 0)
		}
		o.K16 = join.Ints(mnmajorK16(e, c.TileK))
		o.MNMajor, o.Trans = true, 1
	default:
		return o, fmt.Errorf("view: major_a %q: want k or mn", c.MajorA)
	}
	l.fill(&o, false, 1)
	return o, sm100Desc(c, &o, lbo)
}

// sm100OperandB lays out the loads of the CTA's B rows. fwd_gateup's B
// tile is two halves (left rows of W, then the matching gate rows), each
// loaded on its own; in a CTA pair each CTA holds one half, so its loads
// are all half 0 and the odd CTA's n origin is the gate half's
// (SM100Pair.RankNOff).
func sm100OperandB(c tiling.Config, e Elem, boxes manifest.Boxes, p SM100Pair, halves int) (Operand, error) {
	var o Operand
	var l loadList
	rows, lbo := p.NPerCTA, 16
	atom, err := boxRow("B", boxes.B)
	if err != nil {
		return o, err
	}
	loadHalves := halves
	if p.TwoCTA {
		loadHalves = 1
	}
	switch c.MajorB {
	case tiling.KMajor:
		hRows := boxes.B[1] // one box: an atom of one half's rows
		for a := 0; a < c.TileK/atom; a++ {
			for h := 0; h < loadHalves; h++ {
				l.add(atom*a, 0, (a*rows+h*hRows)*swizzleAtomBytes, 0, h)
			}
		}
		o.K16, o.Func = join.Ints(kmajorK16(e, c.TileK, rows)), "sw_load_b_kmajor"
	case tiling.MNMajor:
		lbo = boxes.B[1] * swizzleAtomBytes // one box: TileK k-rows of 64 n
		slabs := rows / atom
		perHalf := slabs / loadHalves
		for q := 0; q < slabs; q++ {
			l.add(0, atom*(q%perHalf), q*lbo, 0, q/perHalf)
		}
		o.K16, o.Func = join.Ints(mnmajorK16(e, c.TileK)), "sw_load_b_mnmajor"
		o.Trans = 1
	default:
		return o, fmt.Errorf("view: major_b %q: want k or mn", c.MajorB)
	}
	l.fill(&o, false, halves)
	return o, sm100Desc(c, &o, lbo)
}

// sm100Desc sets o's descriptor: 128B swizzle, leading byte offset lbo,
// stride byte offset 8 rows of 128 bytes.
func sm100Desc(c tiling.Config, o *Operand, lbo int) error {
	d, err := sm100SmemDesc(0, uint32(lbo), swizzleRepeat, swizzle128B)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	o.Desc = fmt.Sprintf("0x%016x", d)
	return nil
}

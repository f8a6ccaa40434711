package view

import (
	"fmt"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// The sm_90a operand ring. A stage holds the A tile, then the B tile, each
// 128B-swizzled: K-major, atom a holds k in [64a, 64a+64) of the tile's
// rows; MN-major, slab q holds m (or n) in [64q, 64q+64) for TileK k-rows.
// Each TMA load is one box of the manifest's tensor map. Under a cluster
// that shares an operand, each CTA loads a share of it and multicasts it,
// so every CTA still receives whole tiles.

// sharedRank is a load's multicast rank: -1 (every CTA loads its own)
// without a shared operand, else share r's CTA.
func sharedRank(r, shares int) int {
	if shares > 1 {
		return r
	}
	return -1
}

// slabRank is the multicast rank that loads slab q of n: the slabs are
// split into shares runs of consecutive slabs, the first runs one shorter
// when n is not a multiple of shares (128x192 under a 2x1 cluster has 3 B
// slabs: ranks 0, 0, 1). Each CTA still expects the whole stage's bytes,
// so an uneven split only moves load issue work.
func slabRank(q, n, shares int) int { return sharedRank(q*shares/n, shares) }

// sm90OperandA lays out A's loads in element type e: a 1x2 cluster shares
// A. consumerRows is where the second consumer's rows start (0: each
// consumer has whole tiles). A box is one swizzle row (boxes.A[0]
// elements) wide.
func sm90OperandA(c tiling.Config, e Elem, boxes manifest.Boxes, consumerRows int) (Operand, error) {
	var o Operand
	var l loadList
	atom, err := boxRow("A", boxes.A)
	if err != nil {
		return o, err
	}
	mb := c.TileM / 64
	if consumerRows > 0 {
		mb = consumerRows / 64
	}
	switch c.MajorA {
	case tiling.KMajor:
		// A [M,K]: a box is one atom of boxes.A[1] rows, a 1x2 cluster's
		// share of the tile's rows.
		rows := boxes.A[1]
		shares := c.TileM / rows
		for a := 0; a < c.TileK/atom; a++ {
			for r := 0; r < shares; r++ {
				l.add(atom*a, r*rows, (a*c.TileM+r*rows)*swizzleAtomBytes, sharedRank(r, shares), 0)
			}
		}
		o.K16, o.MB = join.Ints(kmajorK16(e, c.TileK, c.TileM)), join.Ints(steps(mb, 64*swizzleAtomBytes))
		o.ConsumerOff = consumerRows * swizzleAtomBytes
		o.Func = "sw_tma_load_2d"
		o.Desc, err = descHex90(16)
	case tiling.MNMajor:
		// A [K,M]: the transpose of B's MN-major layout (trans-a = 1). One
		// wgmma's 64 rows are one slab, so LBO (the slab stride) is never
		// stepped over; a k16 step is 16 k-rows.
		slab := boxes.A[1] * swizzleAtomBytes // one box: TileK k-rows of 64 m
		slabs := c.TileM / atom
		for q := 0; q < slabs; q++ {
			l.add(0, atom*q, q*slab, slabRank(q, slabs, c.ClusterN), 0)
		}
		o.K16, o.MB = join.Ints(mnmajorK16(e, c.TileK)), join.Ints(steps(mb, slab))
		o.ConsumerOff = consumerRows / atom * slab
		o.MNMajor, o.Trans, o.Func = true, 1, "sw_load_a_mnmajor"
		o.Desc, err = descHex90(slab)
	default:
		return o, fmt.Errorf("view: major_a %q: want k or mn", c.MajorA)
	}
	if err != nil {
		return o, fmt.Errorf("view: %w", err)
	}
	l.fill(&o, true, 1)
	if c.L2KeepOperands {
		o.Func += "_keep"
	}
	return o, nil
}

// sm90OperandB lays out B's loads in element type e: a 2x1 cluster shares
// B. fwd_gateup's B tile is two halves (left rows of W, then the matching
// gate rows), each loaded on its own.
func sm90OperandB(c tiling.Config, e Elem, boxes manifest.Boxes, halves int) (Operand, error) {
	var o Operand
	var l loadList
	atom, err := boxRow("B", boxes.B)
	if err != nil {
		return o, err
	}
	switch c.MajorB {
	case tiling.KMajor:
		// B [N,K]: a box is one atom of boxes.B[1] rows of one half, a 2x1
		// cluster's share of the half.
		hRows, rows := c.TileN/halves, boxes.B[1]
		shares := hRows / rows
		for a := 0; a < c.TileK/atom; a++ {
			for h := 0; h < halves; h++ {
				for r := 0; r < shares; r++ {
					l.add(atom*a, r*rows, (a*c.TileN+h*hRows+r*rows)*swizzleAtomBytes, sharedRank(r, shares), h)
				}
			}
		}
		o.K16, o.Func = join.Ints(kmajorK16(e, c.TileK, c.TileN)), "sw_load_b_kmajor"
		o.Desc, err = descHex90(16)
	case tiling.MNMajor:
		// B [K,N]: LBO is the slab stride, a k16 step 16 k-rows. With
		// halves, the first half of the slabs is the left one.
		slab := boxes.B[1] * swizzleAtomBytes // one box: TileK k-rows of 64 n
		slabs := c.TileN / atom
		perHalf := slabs / halves
		for q := 0; q < slabs; q++ {
			l.add(0, atom*(q%perHalf), q*slab, slabRank(q, slabs, c.ClusterM), q/perHalf)
		}
		o.K16, o.Func = join.Ints(mnmajorK16(e, c.TileK)), "sw_load_b_mnmajor"
		o.MNMajor, o.Trans = true, 1
		o.Desc, err = descHex90(slab)
	default:
		return o, fmt.Errorf("view: major_b %q: want k or mn", c.MajorB)
	}
	if err != nil {
		return o, fmt.Errorf("view: %w", err)
	}
	l.fill(&o, true, halves)
	if c.L2KeepOperands {
		o.Func += "_keep"
	}
	return o, nil
}

// steps is n offsets, step bytes apart.
func steps(n, step int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i * step
	}
	return out
}

package gen

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// sm100Kind is what one kernel kind changes in the sm_100a skeleton: how
// many halves its B tile has (fwd_gateup loads left and gate rows of W as
// two halves), the names of its operands for the header, and in apply its
// tensor-map docs and epilogue layout. The operand mapping of each kind is
// the sm_90a one (sm90KindOf); only the tiles differ: 128 rows per CTA, the
// accumulator in TMEM, 128 x 64 epilogue sub-tiles.
//
// Nothing generated for sm_100a has executed (no sm_100 GPU here); the
// kinds are compile-verified only.
type sm100Kind struct {
	halves int
	// aName names A in the 2-CTA schedule doc; bShare says which part of B
	// one CTA of the pair loads.
	aName  string
	bShare func(c tiling.Config) string
	apply  func(v *SM100View, c tiling.Config)
}

// sm100KindOf returns the kind-specific part of the sm_100a view of c.
func sm100KindOf(c tiling.Config) (sm100Kind, error) {
	switch c.Kernel {
	case tiling.KernelBwdDSwiGLU:
		return sm100Kind{halves: 1, aName: "dy", apply: applyBwd100,
			bShare: func(c tiling.Config) string { return fmt.Sprintf("%d rows of W_down", c.TileNPerCTA()) }}, nil
	case tiling.KernelGEMM:
		return sm100Kind{halves: 1, aName: "A", apply: applyGemm100,
			bShare: func(c tiling.Config) string { return fmt.Sprintf("%d columns (N) of B", c.TileNPerCTA()) }}, nil
	case tiling.KernelFwdGateUp:
		return sm100Kind{halves: 2, aName: "x", apply: applyGateUp100,
			bShare: func(c tiling.Config) string {
				return fmt.Sprintf("one %d-row half of the B tile (the even CTA W's left rows, the odd CTA the gate rows)", c.TileNPerCTA())
			}}, nil
	case tiling.KernelFwdDown:
		return sm100Kind{halves: 1, aName: "out", apply: applyDown100,
			bShare: func(c tiling.Config) string { return fmt.Sprintf("%d columns (N) of W_down", c.TileNPerCTA()) }}, nil
	}
	return sm100Kind{}, fmt.Errorf("gen: %s: kernel %q has no sm_100a view", c.Name(), c.Kernel)
}

// box2 formats a 2-D TMA box for a tensor-map doc.
func box2(b [3]int) string { return fmt.Sprintf("box {%d, %d}, 128B swizzle", b[0], b[1]) }

func applyBwd100(v *SM100View, c tiling.Config) {
	sub := v.EpiSubBytes
	v.IsBwd, v.NName = true, "I"
	v.RingDoc = "dy/W_down"
	v.EpiLoads, v.EpiLoadDoc = true, "left and gate sub-tiles of de"
	v.Warp2Doc = " and TMA-loads the left/gate sub-tiles of de"
	v.TmapADoc = "dy [M,K], " + box2(v.BoxA)
	if c.MajorB == tiling.MNMajor {
		v.TmapBDoc = "W_down [K,I] (MN-major), " + box2(v.BoxB)
	} else {
		v.TmapBDoc = "W_down [I,K] (K-major), " + box2(v.BoxB)
	}
	v.EpiGateOff = sub
	v.EpiSlotBytes = c.EpiTensors() * sub
	if c.StoreOut {
		v.EpiOutOff = 2 * sub
	}
	v.EpiTxBytes = 2 * sub
	v.TmapDeDoc = fmt.Sprintf("de as [M][2][I] (dims I, 2, M), box {64, 1, %d}, 128B swizzle", c.EpiM)
	v.TmapGdeDoc = fmt.Sprintf("grad_de as [M][2][I], box {64, 1, %d}, 128B swizzle", c.EpiM)
	v.TmapOutDoc = fmt.Sprintf("out [M,I], box {64, %d}, 128B swizzle", c.EpiM)
}

func applyGemm100(v *SM100View, c tiling.Config) {
	v.IsGemm, v.NName = true, "N"
	v.RingDoc = "A/B"
	if c.MajorA == tiling.MNMajor {
		v.TmapADoc = "A [K,M] (MN-major), " + box2(v.BoxA)
	} else {
		v.TmapADoc = "A [M,K] (K-major), " + box2(v.BoxA)
	}
	if c.MajorB == tiling.MNMajor {
		v.TmapBDoc = "B [K,N] (MN-major), " + box2(v.BoxB)
	} else {
		v.TmapBDoc = "B [N,K] (K-major), " + box2(v.BoxB)
	}
	v.EpiSlotBytes = v.EpiSubBytes
	v.TmapCDoc = fmt.Sprintf("C [M,N], box {64, %d}, 128B swizzle", c.EpiM)
}

func applyGateUp100(v *SM100View, c tiling.Config) {
	sub := v.EpiSubBytes
	v.IsGateUp, v.NName = true, "I"
	v.RingDoc = "x/W"
	// The accumulator is [left | gate], TileN wide; output tiles are
	// TileN/2 wide. The odd CTA of a pair loads the gate half, I rows (or
	// columns) past the left one.
	v.AccColsConst, v.RankNOff = "kAccN", "I"
	v.TmapADoc = "x [M,K], " + box2(v.BoxA)
	if c.MajorB == tiling.MNMajor {
		v.TmapBDoc = "W [K,2I] (MN-major: left columns 0..I-1, gate I..2I-1), " + box2(v.BoxB)
	} else {
		v.TmapBDoc = "W [2I,K] (K-major: left rows 0..I-1, gate I..2I-1), " + box2(v.BoxB)
	}
	v.EpiOutOff = 0
	v.EpiSlotBytes = sub
	if c.StoreOut {
		v.EpiLeftOff, v.EpiGateOff = sub, 2*sub
		v.EpiSlotBytes = 3 * sub
	}
	v.TmapOutDoc = fmt.Sprintf("out [M,I], box {64, %d}, 128B swizzle", c.EpiM)
	v.TmapDeDoc = fmt.Sprintf("de as [M][2][I] (dims I, 2, M), box {64, 1, %d}, 128B swizzle", c.EpiM)
}

func applyDown100(v *SM100View, c tiling.Config) {
	v.IsDown, v.NName = true, "N"
	v.RingDoc = "out/W_down"
	v.Residual = c.Residual
	v.TmapADoc = "out [M,I] (the GEMM's [M,K]), " + box2(v.BoxA)
	if c.MajorB == tiling.MNMajor {
		v.TmapBDoc = "W_down [I,K] (MN-major for this GEMM), " + box2(v.BoxB)
	} else {
		v.TmapBDoc = "W_down [K,I] (K-major for this GEMM), " + box2(v.BoxB)
	}
	v.EpiSlotBytes = v.EpiSubBytes
	v.TmapOutDoc = fmt.Sprintf("y [M,N] (N is the model dim K), box {64, %d}, 128B swizzle", c.EpiM)
	if c.Residual {
		v.EpiLoads, v.EpiLoadDoc = true, "residual sub-tiles"
		v.Warp2Doc = " and TMA-loads the residual sub-tiles"
		v.EpiTxBytes = v.EpiSubBytes
		v.TmapResDoc = fmt.Sprintf("residual [M,N], box {64, %d}, 128B swizzle", c.EpiM)
	}
}

// epiBuffers are the offsets, inside one epilogue slot, of the EpiM x EpiN
// buffers the epilogue writes (each is TMA-stored): what the write-map test
// checks.
func (v *SM100View) epiBuffers() []int {
	switch {
	case v.IsBwd:
		if v.StoreOut {
			return []int{0, v.EpiGateOff, v.EpiOutOff}
		}
		return []int{0, v.EpiGateOff}
	case v.IsGateUp:
		if v.StoreOut {
			return []int{v.EpiOutOff, v.EpiLeftOff, v.EpiGateOff}
		}
		return []int{v.EpiOutOff}
	}
	return []int{0}
}

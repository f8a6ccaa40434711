package view

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
	apply  func(v *SM100, c tiling.Config)
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
	return sm100Kind{}, fmt.Errorf("view: %s: kernel %q has no sm_100a view", c.Name(), c.Kernel)
}

func applyBwd100(v *SM100, c tiling.Config) {
	sub := v.EpiSubBytes
	v.IsBwd, v.NName = true, "I"
	v.RingDoc = "dy/W_down"
	v.EpiLoads, v.EpiLoadDoc = true, "left and gate sub-tiles of de"
	v.Warp2Doc = " and TMA-loads the left/gate sub-tiles of de"
	v.EpiGateOff = sub
	if c.StoreOut {
		v.EpiOutOff = 2 * sub
	}
	v.EpiTxBytes = 2 * sub
}

func applyGemm100(v *SM100, c tiling.Config) {
	v.IsGemm, v.NName = true, "N"
	v.RingDoc = "A/B"
}

func applyGateUp100(v *SM100, c tiling.Config) {
	sub := v.EpiSubBytes
	v.IsGateUp, v.NName = true, "I"
	v.RingDoc = "x/W"
	// The accumulator is [left | gate], TileN wide; output tiles are
	// TileN/2 wide. The odd CTA of a pair loads the gate half, I rows (or
	// columns) past the left one.
	v.AccColsConst, v.RankNOff = "kAccN", "I"
	v.EpiOutOff = 0
	if c.StoreOut {
		v.EpiLeftOff, v.EpiGateOff = sub, 2*sub
	}
}

func applyDown100(v *SM100, c tiling.Config) {
	v.IsDown, v.NName = true, "N"
	v.RingDoc = "out/W_down"
	v.Residual = c.Residual
	if c.Residual {
		v.EpiLoads, v.EpiLoadDoc = true, "residual sub-tiles"
		v.Warp2Doc = " and TMA-loads the residual sub-tiles"
		v.EpiTxBytes = v.EpiSubBytes
	}
}

// epiBuffers are the offsets, inside one epilogue slot, of the EpiM x EpiN
// buffers the epilogue writes (each is TMA-stored): what the write-map test
// checks.
func (v *SM100) epiBuffers() []int {
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

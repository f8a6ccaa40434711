package view

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// sm100Docs is what one kernel kind changes in the sm_100a skeleton
// besides its epilogue: the header's words for its operands and roles,
// and the names of two kernel constants. The operand mapping of each kind
// is the sm_90a one (kindOf); only the tiles differ: 128 rows per CTA, the
// accumulator in TMEM, 128 x 64 epilogue sub-tiles.
type sm100Docs struct {
	ring     string // the operand ring's tensors, e.g. dy/W_down
	schedule string // the schedule in a sentence
	warp2    string // what warp 2 does besides the TMEM allocation
	// accCols names the kernel constant of the accumulator width; rankNOff
	// what the odd CTA of a pair adds to its B n coordinate.
	accCols, rankNOff string
}

// sm100DocsOf returns c's docs, by its kind's template family
// (tiling.KindSpec.Family). gateup's accumulator is [left | gate], TileN
// wide, while its output tiles are TileN/2 wide (kAccN); the odd CTA of a
// pair loads the gate half, I rows (or columns) past the left one. A
// grouped kind runs one CTA per tile (no pair), so it has no B share.
func sm100DocsOf(c tiling.Config) sm100Docs {
	d := sm100Docs{accCols: "kTileN", rankNOff: "kTileNPerCTA"}
	s, _ := tiling.KindOf(c.Kernel)
	var a, bShare string
	if f, ok := sm100FamilyDocs[s.Family]; ok {
		a, bShare = f(c, &d)
	}
	if s.Grouped {
		bShare = ""
	}
	switch c.Schedule {
	case tiling.OneCTA:
		d.schedule = fmt.Sprintf("Schedule 1cta: tcgen05.mma.cta_group::1 M=128 N=%d per CTA.", c.TileN)
	case tiling.TwoCTA:
		d.schedule = fmt.Sprintf("Schedule 2cta: tcgen05.mma.cta_group::2 M=256 N=%d over the CTA pair; each CTA loads 128 rows of %s and %s, holds 128 rows of the accumulator and runs their epilogue.", c.TileN, a, bShare)
	}
	return d
}

// sm100FamilyDocs fills each template family's part of d and returns the
// names of its A operand and of the B share of one CTA of a pair (the
// test checks that every registered kind's family has an entry).
var sm100FamilyDocs = map[string]func(c tiling.Config, d *sm100Docs) (a, bShare string){
	"bwd": func(c tiling.Config, d *sm100Docs) (string, string) {
		d.ring, d.warp2 = "dy/W_down", " and TMA-loads the left/gate sub-tiles of de"
		return "dy", fmt.Sprintf("%d rows of W_down", c.TileNPerCTA())
	},
	"gemm": func(c tiling.Config, d *sm100Docs) (string, string) {
		d.ring = "A/B"
		return "A", fmt.Sprintf("%d columns (N) of B", c.TileNPerCTA())
	},
	"gateup": func(c tiling.Config, d *sm100Docs) (string, string) {
		d.ring, d.accCols, d.rankNOff = "x/W", "kAccN", "I"
		return "x", fmt.Sprintf("one %d-row half of the B tile (the even CTA W's left rows, the odd CTA the gate rows)", c.TileNPerCTA())
	},
	"down": func(c tiling.Config, d *sm100Docs) (string, string) {
		d.ring = "out/W_down"
		if c.Residual {
			d.warp2 = " and TMA-loads the residual sub-tiles"
		}
		return "out", fmt.Sprintf("%d columns (N) of W_down", c.TileNPerCTA())
	},
}

package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Boxes are the TMA boxes (elements, innermost dimension first; entries
// past a map's rank are 0) of a kernel's tensor maps. A and B are the GEMM
// operands as tmap_a and tmap_b see them; De is every 3-D [M][2][I] map
// (de, grad_de); Out is every 2-D epilogue map (out, C, y, the residual).
type Boxes struct {
	A, B, De, Out [3]int
}

// epiTile is the rows of the sm_90a epilogue's sub-tile.
const epiTile = 64

// operandRowBytes is the row of the 128-byte swizzle an operand box (and
// an sm_100a epilogue box) spans along its contiguous dimension: 64
// elements of a 16-bit type.
const operandRowBytes = 128

// BoxesOf returns the boxes the host encodes cfg's tensor maps with. The
// 64s below are one swizzle row of a 16-bit type (operandRowBytes / the
// element size in general).
//
// sm_90a: A {64, TileM/ClusterN} (k-major; a 1x2 cluster multicasts halves
// of A) or {64, TileK} (mn-major); B {64, TileN/halves/ClusterM} (k-major;
// fwd_gateup loads its left and gate halves apart) or {64, TileK}
// (mn-major); De {EpiN, 1, 64}; Out {EpiN, 64} (EpiN 64, or 32 for the
// bwd_dswiglu 64x32 sub-tile).
//
// sm_100a: each CTA loads its own rows: A {64, TileM/CTAsPerTile} (k-major)
// or {64, TileK} (mn-major); B {64, TileN/CTAsPerTile} (k-major; fwd_gateup
// {64, TileN/2}: one half of [left | gate] per load) or {64, TileK}
// (mn-major); De {64, 1, EpiM}; Out {64, EpiM}.
func BoxesOf(cfg tiling.Config) (Boxes, error) {
	var b Boxes
	dt, dtErr := cfg.DType.Spec()
	row := operandRowBytes / max(dt.Bytes, 1)
	switch cfg.Arch {
	case tiling.ArchSM90a:
		halves := 1
		if s, _ := tiling.KindOf(cfg.Kernel); s.Paired {
			halves = 2
		}
		b.A = [3]int{row, cfg.TileM / max(1, cfg.ClusterN)}
		b.B = [3]int{row, cfg.TileN / halves / max(1, cfg.ClusterM)}
		b.De = [3]int{cfg.EpiN, 1, epiTile}
		b.Out = [3]int{cfg.EpiN, epiTile}
	case tiling.ArchSM100a:
		b.A = [3]int{row, cfg.TileMPerCTA()}
		b.B = [3]int{row, cfg.TileNPerCTA()}
		if s, _ := tiling.KindOf(cfg.Kernel); s.Paired {
			// One CTA loads both halves of its B rows, or a pair one half
			// each: either way a load is TileN/2 rows.
			b.B = [3]int{row, cfg.TileN / 2}
		}
		b.De = [3]int{row, 1, cfg.EpiM} // one swizzle row per TMEM lane
		b.Out = [3]int{row, cfg.EpiM}
	default:
		return Boxes{}, fmt.Errorf("manifest: tma boxes: %s: arch %q: want %s or %s", cfg.Name(), cfg.Arch, tiling.ArchSM90a, tiling.ArchSM100a)
	}
	if dtErr != nil {
		return Boxes{}, fmt.Errorf("manifest: tma boxes: %s: %w", cfg.Name(), dtErr)
	}
	if cfg.MajorA == tiling.MNMajor {
		b.A = [3]int{row, cfg.TileK}
	}
	if cfg.MajorB == tiling.MNMajor {
		b.B = [3]int{row, cfg.TileK}
	}
	for _, box := range [][3]int{b.A, b.B, b.De, b.Out} {
		for i, e := range box {
			if e < 0 || e > 256 || e == 0 && (i < 2 || box == b.De) {
				return Boxes{}, fmt.Errorf("manifest: tma boxes: %s: box %v: extents must be in [1,256]", cfg.Name(), box)
			}
		}
	}
	return b, nil
}

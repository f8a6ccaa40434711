package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// The kinds' parameter tables. How each GEMM operand maps onto the MLP
// tensors is in gen's sm90KindOf; here is what the host passes.

// kindTables holds each registered kind's parameter table (the test
// checks that every kind of tiling.Kinds has one).
var kindTables = map[tiling.Kernel]func(tiling.Config, Boxes) table{
	tiling.KernelBwdDSwiGLU:    bwdTable,
	tiling.KernelGEMM:          gemmTable,
	tiling.KernelFwdGateUp:     gateUpTable,
	tiling.KernelFwdDown:       downTable,
	tiling.KernelMoEFwdGateUp:  moeGateUpTable,
	tiling.KernelMoEBwdDSwiGLU: moeBwdTable,
	tiling.KernelMoEGEMM:       moeGemmTable,
	tiling.KernelMoEWgrad:      moeWgradTable,
}

// kindTable returns cfg's kind's table.
func kindTable(cfg tiling.Config, b Boxes) (table, error) {
	if f, ok := kindTables[cfg.Kernel]; ok {
		return f(cfg, b), nil
	}
	return table{}, fmt.Errorf("manifest: kernel %q has no parameter table", cfg.Kernel)
}

// tiles is the tile count of an M x cols accumulator (cols: the GEMM's N
// in accumulator columns).
func tiles(cfg tiling.Config, cols mono) Expr {
	return Expr(fmt.Sprintf("cdiv(M,%d)*cdiv(%s,%d)", cfg.TileM, cols.expr(), cfg.TileN))
}

// halves is the [M][2][I] view of a [M,2I] buffer: a ragged I clips at
// the half boundary instead of spilling into the other half.
func halves(param, buffer string, box [3]int) mapSpec {
	return mapSpec{param: param, buffer: buffer, shape: []mono{size("M"), scaled(2, "I")},
		dims: []mono{size("I"), num(2), size("M")}, box: box,
		doc: buffer + " [M,2I] as [M][2][I] (dims I, 2, M)"}
}

// matrix is a 2-D map over a whole row-major [rows, cols] buffer.
func matrix(param, buffer string, rows, cols mono, box [3]int, doc string) mapSpec {
	return mapSpec{param: param, buffer: buffer, shape: []mono{rows, cols}, dims: []mono{cols, rows}, box: box, doc: doc}
}

// bwdTable: dout = dy @ W_down^T, grad_de = dswiglu(dout, de).
func bwdTable(cfg tiling.Config, b Boxes) table {
	w := matrix("tmap_b", "W_down", size("I"), size("K"), b.B, "W_down [I,K] (K-major)")
	if cfg.MajorB == tiling.MNMajor {
		w = matrix("tmap_b", "W_down", size("K"), size("I"), b.B, "W_down [K,I] (MN-major)")
	}
	t := table{
		sizes: []string{"M", "K", "I"},
		maps: []mapSpec{
			matrix("tmap_a", "dy", size("M"), size("K"), b.A, "dy [M,K]"), w,
			halves("tmap_de", "de", b.De), halves("tmap_gde", "grad_de", b.De),
		},
		scalars: []scalar{{"M", "M"}, {"I", "I"}, {"K", "K"}},
		rules: []Rule{positive("M"), pitch(cfg, "K", "dy and W_down"),
			gatePitch(cfg, "TMA needs 16-byte strides")},
		tiles: tiles(cfg, size("I")),
	}
	if cfg.StoreOut {
		t.maps = append(t.maps, matrix("tmap_out", "out", size("M"), size("I"), b.Out, "out [M,I]"))
	}
	return t
}

// gemmTable: C = A @ B.
func gemmTable(cfg tiling.Config, b Boxes) table {
	a := matrix("tmap_a", "A", size("M"), size("K"), b.A, "A [M,K] (K-major)")
	if cfg.MajorA == tiling.MNMajor {
		a = matrix("tmap_a", "A", size("K"), size("M"), b.A, "A [K,M] (MN-major)")
	}
	bm := matrix("tmap_b", "B", size("N"), size("K"), b.B, "B [N,K] (K-major)")
	if cfg.MajorB == tiling.MNMajor {
		bm = matrix("tmap_b", "B", size("K"), size("N"), b.B, "B [K,N] (MN-major)")
	}
	rules := []Rule{positive("M")}
	if cfg.MajorA == tiling.MNMajor {
		rules = append(rules, pitch(cfg, "M", "A [K,M] (major_a=mn)"))
	}
	// K is the contiguous dim of A (major_a=k) or B (major_b=k); with both
	// MN-major it is only a row count, but a K of zero has nothing to do.
	if cfg.MajorA == tiling.KMajor || cfg.MajorB == tiling.KMajor {
		rules = append(rules, pitch(cfg, "K", "the K-major operand's"))
	} else {
		rules = append(rules, positive("K"))
	}
	return table{
		sizes:   []string{"M", "N", "K"},
		maps:    []mapSpec{a, bm, matrix("tmap_c", "C", size("M"), size("N"), b.Out, "C [M,N]")},
		scalars: []scalar{{"M", "M"}, {"N", "N"}, {"K", "K"}},
		rules:   append(rules, pitch(cfg, "N", "C [M,N]")),
		tiles:   tiles(cfg, size("N")),
	}
}

// gateUpTable: de = x @ W, out = left*silu(gate). W is one 2-D tensor: the
// gate half starts I rows (major_b=k) or I columns (major_b=mn) past the
// left one; a ragged I lets the left half's last box read gate rows, whose
// columns are past I and whose stores are clipped. One tile is TileN
// accumulator columns: TileN/2 left and TileN/2 gate.
func gateUpTable(cfg tiling.Config, b Boxes) table {
	w := matrix("tmap_b", "W", scaled(2, "I"), size("K"), b.B, "W [2I,K] (K-major: left rows 0..I-1, gate I..2I-1)")
	if cfg.MajorB == tiling.MNMajor {
		w = matrix("tmap_b", "W", size("K"), scaled(2, "I"), b.B, "W [K,2I] (MN-major: left columns 0..I-1, gate I..2I-1)")
	}
	t := table{
		sizes: []string{"M", "K", "I"},
		maps: []mapSpec{
			matrix("tmap_a", "x", size("M"), size("K"), b.A, "x [M,K]"), w,
			matrix("tmap_out", "out", size("M"), size("I"), b.Out, "out [M,I]"),
		},
		scalars: []scalar{{"M", "M"}, {"I", "I"}, {"K", "K"}},
		rules:   []Rule{positive("M"), pitch(cfg, "K", "x and W"), pitch(cfg, "I", "out and de's halves")},
		tiles:   tiles(cfg, scaled(2, "I")),
	}
	if cfg.StoreOut {
		t.maps = append(t.maps, halves("tmap_de", "de", b.De))
	}
	return t
}

// downTable: y = out @ W_down (+ residual). The kernel's GEMM is M x K x I:
// its N is the model dim K, its reduction I.
func downTable(cfg tiling.Config, b Boxes) table {
	w := matrix("tmap_b", "W_down", size("K"), size("I"), b.B, "W_down [K,I] (K-major for this GEMM)")
	if cfg.MajorB == tiling.MNMajor {
		w = matrix("tmap_b", "W_down", size("I"), size("K"), b.B, "W_down [I,K] (MN-major for this GEMM)")
	}
	t := table{
		sizes: []string{"M", "K", "I"},
		maps: []mapSpec{
			matrix("tmap_a", "out", size("M"), size("I"), b.A, "out [M,I] (the GEMM's [M,K])"), w,
			matrix("tmap_y", "y", size("M"), size("K"), b.Out, "y [M,K] (the GEMM's [M,N])"),
		},
		scalars: []scalar{{"M", "M"}, {"N", "K"}, {"K", "I"}},
		rules:   []Rule{positive("M"), pitch(cfg, "K", "y and residual"), pitch(cfg, "I", "out")},
		tiles:   tiles(cfg, size("K")),
	}
	if cfg.Residual {
		t.maps = append(t.maps, matrix("tmap_res", "residual", size("M"), size("K"), b.Out, "residual [M,K]"))
	}
	return t
}

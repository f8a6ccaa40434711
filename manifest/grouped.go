package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// moeGateUpTable: the grouped fwd_gateup. Tokens are sorted by expert: x
// [T,K]; W [E,2I,K] stacks each expert's fwd_gateup weight (major_b=k:
// left rows 0..I-1, gate I..2I-1), read through one 2-D map over [E*2I,K]
// whose row is e*2I + n (K is the contiguous dim, so a ragged K zero-fills
// inside the expert; the rows a ragged I reads past the expert's 2I feed
// only accumulator columns past I, which are never stored); offs [E] are
// the experts' cumulative token ends (int32, offs[E-1] = T), read by the
// kernel only. out [T,I]; with StoreOut (training) also de [T,2I] = [left
// | gate]. out and de each come as a tensor map (sub-tiles wholly inside
// an expert) and a pointer (an expert's ragged last rows, stored row by
// row). The kernel's M is T.
func moeGateUpTable(cfg tiling.Config, b Boxes) table {
	outs := "out"
	if cfg.StoreOut {
		outs = "out and de's halves"
	}
	t := table{
		sizes: []string{"T", "K", "I", "E"},
		maps: []mapSpec{
			matrix("tmap_a", "x", size("T"), size("K"), b.A, "x [T,K] (rows sorted by expert)"),
			{param: "tmap_b", buffer: "W", shape: []mono{size("E"), scaled(2, "I"), size("K")},
				dims: []mono{size("K"), scaled(2, "I").times(size("E"))}, box: b.B,
				doc: "W [E,2I,K] as [E*2I][K] (K-major per expert: left rows 0..I-1, gate I..2I-1)"},
			matrix("tmap_out", "out", size("T"), size("I"), b.Out, "out [T,I]"),
		},
		scalars: []scalar{{"M", "T"}, {"I", "I"}, {"K", "K"}, {"E", "E"}},
		ptrs: []ptrSpec{{param: "offs", buffer: Buffer{Name: "offs", Shape: []Expr{"E"},
			Doc: "offs [E] int32: expert e's rows end at offs[e] (cumulative, offs[E-1] = T), read on the device only"}},
			{param: "out_ptr", buffer: Buffer{Name: "out", Shape: []Expr{"T", "I"}, Doc: "out [T,I]"}}},
		rules: []Rule{
			{Size: "T", Min: 1, Message: "must be >= 1 (with no tokens there is nothing to launch)"},
			pitch(cfg, "K", "x and W"), pitch(cfg, "I", outs), positive("E")},
		// An upper bound: sum over experts of cdiv(rows_e, TileM) is at most
		// cdiv(T, TileM) + E - 1; the static grid rule launches at most one
		// CTA per SM and a CTA past the last tile finds no work.
		tiles: Expr(fmt.Sprintf("(cdiv(T,%d)+E)*cdiv(2*I,%d)", cfg.TileM, cfg.TileN)),
	}
	if cfg.StoreOut {
		t.maps = append(t.maps, mapSpec{param: "tmap_de", buffer: "de", shape: []mono{size("T"), scaled(2, "I")},
			dims: []mono{size("I"), num(2), size("T")}, box: b.De, doc: "de [T,2I] as [T][2][I] (dims I, 2, T)"})
		t.ptrs = append(t.ptrs, ptrSpec{param: "de_ptr", buffer: Buffer{Name: "de", Shape: []Expr{"T", "2*I"},
			Doc: "de [T,2I] = [left | gate] (training)"}})
	}
	if cfg.Score {
		t.ptrs = append(t.ptrs, scorePtr())
	}
	return t
}

// scorePtr is the router score of a grouped kind with Score (read on the
// device only, rows outside the experts' never read).
func scorePtr() ptrSpec {
	return ptrSpec{param: "score_ptr", buffer: Buffer{Name: "score", Shape: []Expr{"T"},
		Doc: "score [T] fp32: each routed row's router weight, scaling its result"}}
}

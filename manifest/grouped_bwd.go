package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// moeBwdTable: the grouped bwd_dswiglu. Tokens are sorted by expert: dy
// [T,K], de [T,2I] ([left | gate] as the forward stores it); W_down
// [E,K,I] stacks each expert's nn.Linear(I,K).weight, the GEMM's B stored
// [K,N] (major_b=mn), read through a 3-D map [E][K][I] whose outer
// coordinate is the expert, so a ragged K zero-fills inside the expert
// instead of reading the next expert's rows; offs [E] are the experts'
// cumulative token ends (int32, offs[E-1] = T), read by the kernel only.
// Per expert e, dout = dy[rows of e] @ W_down[e], grad_de [T,2I] =
// dSwiGLU(dout, de) and, with StoreOut, out [T,I] = left*silu(gate). An
// expert's ragged last sub-tile is stored row by row through gde_ptr (and
// out_ptr). The kernel's M is T.
func moeBwdTable(cfg tiling.Config, b Boxes) table {
	t := table{
		sizes: []string{"T", "K", "I", "E"},
		maps: []mapSpec{
			matrix("tmap_a", "dy", size("T"), size("K"), b.A, "dy [T,K] (rows sorted by expert)"),
			{param: "tmap_b", buffer: "W_down", shape: []mono{size("E"), size("K"), size("I")},
				dims: []mono{size("I"), size("K"), size("E")}, box: [3]int{b.B[0], b.B[1], 1},
				doc: "W_down [E,K,I] as [E][K][I] (MN-major per expert: nn.Linear(I,K).weight)"},
			tokenHalves("tmap_de", "de", b.De), tokenHalves("tmap_gde", "grad_de", b.De),
		},
		scalars: []scalar{{"M", "T"}, {"I", "I"}, {"K", "K"}, {"E", "E"}},
		ptrs: []ptrSpec{{param: "offs", buffer: Buffer{Name: "offs", Shape: []Expr{"E"},
			Doc: "offs [E] int32: expert e's rows end at offs[e] (cumulative, offs[E-1] = T), read on the device only"}},
			{param: "gde_ptr", buffer: Buffer{Name: "grad_de", Shape: []Expr{"T", "2*I"}, Doc: "grad_de [T,2I]"}}},
		rules: []Rule{
			{Size: "T", Min: 1, Message: "must be >= 1 (with no tokens there is nothing to launch)"},
			pitch(cfg, "K", "dy"),
			gatePitch(cfg, "W_down's rows and TMA need 16-byte strides"),
			positive("E")},
		// The grouped forward's bound: at most cdiv(T, TileM) + E - 1 m-blocks.
		tiles: Expr(fmt.Sprintf("(cdiv(T,%d)+E)*cdiv(I,%d)", cfg.TileM, cfg.TileN)),
	}
	if cfg.StoreOut {
		t.maps = append(t.maps, matrix("tmap_out", "out", size("T"), size("I"), b.Out, "out [T,I]"))
		t.ptrs = append(t.ptrs, ptrSpec{param: "out_ptr", buffer: Buffer{Name: "out", Shape: []Expr{"T", "I"}, Doc: "out [T,I]"}})
	}
	if cfg.Score {
		// One partial per row and n-block of I: the caller sums each row's
		// partials in column order (no atomics, the same bits every launch).
		t.ptrs = append(t.ptrs, scorePtr(), ptrSpec{param: "dscore_ptr", buffer: Buffer{Name: "dscore_part",
			Shape: []Expr{"T", Expr(fmt.Sprintf("cdiv(I,%d)", cfg.TileN))},
			Doc:   "dscore_part [T,cdiv(I,TileN)] fp32: row t's sum of h*dout over n-block j's columns (h = left*silu(gate), unscaled); dscore[t] is the sum over j"}})
	}
	return t
}

// tokenHalves is halves over T rows: the [T][2][I] view of a [T,2I] buffer.
func tokenHalves(param, buffer string, box [3]int) mapSpec {
	return mapSpec{param: param, buffer: buffer, shape: []mono{size("T"), scaled(2, "I")},
		dims: []mono{size("I"), num(2), size("T")}, box: box,
		doc: buffer + " [T,2I] as [T][2][I] (dims I, 2, T)"}
}

package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// moeGemmTable: the M-grouped plain GEMM. Tokens are sorted by expert: A
// [T,K]; B stacks the experts' weights [E,N,K] (major_b=k: the layer's
// down projection y = h @ W_down[e]^T with W_down [E,H,I], nn.Linear(I,H)
// per expert) or [E,K,N] (major_b=mn: dx = grad_de @ W[e] with W
// [E,2I,H]), read through one 3-D map whose outer coordinate is the
// expert, so a ragged N or K zero-fills inside the expert instead of
// reading the next expert's rows; offs [E] are the experts' cumulative
// token ends (int32, offs[E-1] = T), read by the kernel only. C [T,N] comes
// as a tensor map (sub-tiles wholly inside an expert) and a pointer (an
// expert's ragged last rows, stored row by row). The kernel's M is T.
func moeGemmTable(cfg tiling.Config, b Boxes) table {
	bm := mapSpec{param: "tmap_b", buffer: "B", shape: []mono{size("E"), size("N"), size("K")},
		dims: []mono{size("K"), size("N"), size("E")}, box: [3]int{b.B[0], b.B[1], 1},
		doc: "B [E,N,K] as [E][N][K] (K-major per expert: nn.Linear(K,N).weight)"}
	if cfg.MajorB == tiling.MNMajor {
		bm = mapSpec{param: "tmap_b", buffer: "B", shape: []mono{size("E"), size("K"), size("N")},
			dims: []mono{size("N"), size("K"), size("E")}, box: [3]int{b.B[0], b.B[1], 1},
			doc: "B [E,K,N] as [E][K][N] (MN-major per expert)"}
	}
	return table{
		sizes: []string{"T", "N", "K", "E"},
		maps: []mapSpec{
			matrix("tmap_a", "A", size("T"), size("K"), b.A, "A [T,K] (rows sorted by expert)"), bm,
			matrix("tmap_c", "C", size("T"), size("N"), b.Out, "C [T,N]"),
		},
		scalars: []scalar{{"M", "T"}, {"N", "N"}, {"K", "K"}, {"E", "E"}},
		ptrs: []ptrSpec{{param: "offs", buffer: Buffer{Name: "offs", Shape: []Expr{"E"},
			Doc: "offs [E] int32: expert e's rows end at offs[e] (cumulative, offs[E-1] = T), read on the device only"}},
			{param: "c_ptr", buffer: Buffer{Name: "C", Shape: []Expr{"T", "N"}, Doc: "C [T,N]"}}},
		rules: []Rule{
			{Size: "T", Min: 1, Message: "must be >= 1 (with no tokens there is nothing to launch)"},
			pitch(cfg, "K", "A and B"), pitch(cfg, "N", "C and B"), positive("E")},
		// The grouped forward's bound: at most cdiv(T, TileM) + E - 1 m-blocks.
		tiles: Expr(fmt.Sprintf("(cdiv(T,%d)+E)*cdiv(N,%d)", cfg.TileM, cfg.TileN)),
	}
}

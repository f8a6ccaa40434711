package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// moeWgradTable: the K-grouped weight gradient. Tokens are sorted by
// expert: A [T,N] and B [T,K] (MN-major: the tokens, the reduction, are
// their outer dim), offs [E] the experts' cumulative token ends (int32,
// offs[E-1] = T), read by the kernel only; dW [E,N,K] (dW[e] = A[rows of
// e]^T @ B[rows of e]: nn.Linear(K,N).weight's layout per expert, so
// W_down [E,H,I]'s gradient takes A = dy [T,H], B = h [T,I], and W
// [E,2I,H]'s takes A = grad_de [T,2I], B = x [T,H]). dW is stored through
// one 3-D map [E][N][K] whose outer coordinate is the expert, so a ragged
// N or K clips inside the expert. The kernel's GEMM M, N and K are N, K
// and T.
func moeWgradTable(cfg tiling.Config, b Boxes) table {
	return table{
		sizes: []string{"T", "N", "K", "E"},
		maps: []mapSpec{
			matrix("tmap_a", "A", size("T"), size("N"), b.A, "A [T,N] (rows sorted by expert; MN-major: the tokens are the reduction)"),
			matrix("tmap_b", "B", size("T"), size("K"), b.B, "B [T,K] (rows sorted by expert; MN-major)"),
			{param: "tmap_c", buffer: "dW", shape: []mono{size("E"), size("N"), size("K")},
				dims: []mono{size("K"), size("N"), size("E")}, box: [3]int{b.Out[0], b.Out[1], 1},
				doc: "dW [E,N,K] as [E][N][K] (one expert per box: a ragged N or K clips inside the expert)"},
		},
		scalars: []scalar{{"M", "N"}, {"N", "K"}, {"K", "T"}, {"E", "E"}},
		ptrs: []ptrSpec{{param: "offs", buffer: Buffer{Name: "offs", Shape: []Expr{"E"},
			Doc: "offs [E] int32: expert e's rows end at offs[e] (cumulative, offs[E-1] = T), read on the device only"}}},
		rules: []Rule{
			{Size: "T", Min: 1, Message: "must be >= 1 (A and B need a row for their tensor maps; with no tokens dW is zero)"},
			pitch(cfg, "N", "A and dW"), pitch(cfg, "K", "B and dW"), positive("E")},
		// Every expert owns cdiv(N,TileM) x cdiv(K,TileN) tiles, an empty
		// one included (it writes zeros).
		tiles: Expr(fmt.Sprintf("E*cdiv(N,%d)*cdiv(K,%d)", cfg.TileM, cfg.TileN)),
	}
}

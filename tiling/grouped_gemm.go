package tiling

import "fmt"

// groupedGemmImplemented is where moe_gemm has code
// (templates/cuda/moe_gemm_sm90a.cu.tmpl on sched_grouped_sm90a.sched.tmpl):
// per expert e, C[rows of e] = A[rows of e] @ B[e] with A [T,K] (K-major
// only: KindSpec.MajorA is unset) and B stacked [E,N,K] (major_b=k, the down projection's W_down [E,H,I])
// or [E,K,N] (major_b=mn) read through a 3-D map whose outer coordinate is
// the expert, so a ragged N or K zero-fills inside the expert; the plain
// gemm epilogue (64x64 sub-tiles staged by the consumer, TMA-stored when
// all 64 rows are the expert's, else row by row). The rules every grouped
// kind shares are groupedCommon's, checked first.
func groupedGemmImplemented(c Config) (bool, string) {
	switch {
	case c.TileN%c.EpiN != 0:
		return false, fmt.Sprintf("%s tile_n=%d is not implemented: it must be a multiple of epi_n=%d (no overlapping last sub-tile on the grouped walk)", c.Kernel, c.TileN, c.EpiN)
	case c.L2KeepOperands:
		return false, fmt.Sprintf("%s with l2k is not implemented: the 3-D B load has no L2 evict_last form", c.Kernel)
	}
	return true, ""
}

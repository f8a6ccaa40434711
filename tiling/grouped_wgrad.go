package tiling

import "fmt"

// groupedWgradImplemented is where moe_wgrad has code
// (templates/cuda/moe_wgrad_sm90a.cu.tmpl on the K-grouped walk,
// sched_kgrouped_sm90a.sched.tmpl): per expert e, dW[e] [N,K] =
// A[rows of e]^T @ B[rows of e] with A [T,N] and B [T,K], whose tokens, the
// reduction, are the outer (strided) dim of both, so both operands are
// MN-major; an expert's ragged last k-block reads rows of the next expert,
// which the consumer that owns the tile zeroes in shared memory before its
// wgmmas. The rules every grouped kind shares are groupedCommon's, checked
// first.
func groupedWgradImplemented(c Config) (bool, string) {
	switch {
	case c.MajorA != MNMajor || c.MajorB != MNMajor:
		return false, fmt.Sprintf("%s needs major_a=mn and major_b=mn, not major_a=%s major_b=%s: A [T,N] and B [T,K] hold the tokens, the reduction, as their outer dim", c.Kernel, c.MajorA, c.MajorB)
	case c.Schedule != PingPong:
		return false, fmt.Sprintf("%s runs the pingpong schedule, not %s: the consumer that owns a tile zeroes its ragged k-block's rows past the expert in shared memory, and cooperative consumers share one B stage", c.Kernel, c.Schedule)
	case c.TileN%c.EpiN != 0:
		return false, fmt.Sprintf("%s tile_n=%d is not implemented: it must be a multiple of epi_n=%d (no overlapping last sub-tile on the grouped walk)", c.Kernel, c.TileN, c.EpiN)
	case c.L2KeepOperands:
		return false, fmt.Sprintf("%s with l2k is not implemented: the token-offset loads have no L2 evict_last form", c.Kernel)
	}
	return true, ""
}

// wgradRule is moe_wgrad's sm_90a rule (KindSpec.sm90Rule): both operands
// MN-major, the only layout groupedWgradImplemented takes, on the rule's
// ping-pong 128x128.
func wgradRule(c Config, _ RuleFacts) Config {
	c.MajorA, c.MajorB = MNMajor, MNMajor
	return c
}

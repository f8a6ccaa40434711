package tiling

// groupedCands is the grouped kinds' sm_90a tuning-space list
// (KindSpec.sm90Cands with KindSpec.Grouped): the tiles the grouped walk
// implements (cluster 1x1, at most 128 accumulators per thread), each at
// every operand-ring depth that fits (groupedRings). On the H100 the ring
// depth and the k-depth moved the grouped kinds by up to 10-13% at one
// expert shape, with a different winner per kind and shape
// (docs/PERFORMANCE.md#moe-training-forward-and-grouped-backward), so the
// space spans them rather than taking the deepest ring as the rules do.
// Tiles the kind does not implement (moe_fwd_gateup's 64-wide tile) drop
// out through Implemented.
var groupedCands = []spaceCand{
	{s: PingPong, m: 128, n: 128, cm: 1, cn: 1, rings: true},
	{s: PingPong, m: 128, n: 128, cm: 1, cn: 1, k: 128, rings: true},
	{s: PingPong, m: 128, n: 64, cm: 1, cn: 1},
	{s: Cooperative, m: 128, n: 128, cm: 1, cn: 1},
	{s: Cooperative, m: 256, n: 128, cm: 1, cn: 1},
}

// groupedRings are the operand-ring depths a grouped candidate with
// spaceCand.rings is tried at, where they fit: the A/B's s3..s6 at k64
// and s2..s3 at k128 (whose stage holds twice the bytes).
var groupedRings = []int{2, 3, 4, 5, 6}

// ringDepths is the rings of c (at its deepest that fits, maxStages) a
// space candidate is tried at: every depth of groupedRings that fits when
// all is set, else the deepest that fits within spaceStages.
func ringDepths(c Config, all bool) []int {
	deepest := c.MaxStages()
	if !all {
		return []int{min(deepest, spaceStages[len(spaceStages)-1])}
	}
	var out []int
	for _, s := range groupedRings {
		if s <= deepest && (s >= spaceStages[0] || deepest <= spaceStages[0]) {
			out = append(out, s)
		}
	}
	return out
}

package protocol

// GroupedTile is one tile of the grouped scheduler's sequence: its first
// row, its expert's end row and its n-block.
type GroupedTile struct {
	Row0, RowEnd, TN int
}

// GroupedTiles is the grouped scheduler's tile sequence (sw_gr_tile in
// templates/cuda/sched_grouped_sm90a.sched.tmpl): expert by expert (counts
// are the experts' rows), each expert's ceil(rows/tileM) m-blocks by
// tilesN n-blocks, n fastest; an empty expert has none.
func GroupedTiles(counts []int, tileM, tilesN int) []GroupedTile {
	var out []GroupedTile
	row0 := 0
	for _, n := range counts {
		end := row0 + max(n, 0)
		for m := 0; m < ceilDiv(end-row0, tileM); m++ {
			for tn := 0; tn < tilesN; tn++ {
				out = append(out, GroupedTile{Row0: row0 + m*tileM, RowEnd: end, TN: tn})
			}
		}
		row0 = end
	}
	return out
}

// KGroupedTile is one tile of the K-grouped walk: its expert's k-blocks
// and whether the last of them is ragged (holds tokens past the expert,
// which the consumer zeroes).
type KGroupedTile struct {
	KBlocks int
	Ragged  bool
}

// KGroupedTiles is the K-grouped walk's tile sequence
// (sched_kgrouped_sm90a.sched.tmpl): expert by expert (counts are the
// experts' tokens), tilesPerExpert tiles each, an empty expert's too (no
// k-block: it stores zeros), each with cdiv(tokens, tileK) k-blocks.
func KGroupedTiles(counts []int, tilesPerExpert, tileK int) []KGroupedTile {
	var out []KGroupedTile
	for _, n := range counts {
		n = max(n, 0)
		for range tilesPerExpert {
			out = append(out, KGroupedTile{KBlocks: ceilDiv(n, tileK), Ragged: n%tileK != 0})
		}
	}
	return out
}

// kgroupedScenarios are the K-grouped walk's cases (Counts are tokens, K
// their sum, M and N the output's): empty experts around ragged ones,
// one-token experts, sizes TileK-1, TileK and TileK+1 over two clusters,
// one expert holding every token with CTAs whose tiles are all empty,
// deep K so the ring wraps inside a tile, and several tiles per expert
// over an odd grid so the consumers' ring positions count each other's
// tiles of different experts.
func kgroupedScenarios(sp Spec) []Scenario {
	tm, tn, tk := sp.TileM, sp.TileN, sp.TileK
	mk := func(name string, m, n, grid int, counts ...int) Scenario {
		k := 0
		for _, c := range counts {
			k += c
		}
		return Scenario{Name: name, M: m, N: n, K: k, Grid: grid, Counts: counts}
	}
	return []Scenario{
		mk("kg-empty", tm, 2*tn-5, 2, 0, tk+37, 0, 0, 5, 0),
		mk("kg-one-token", tm, tn, 2, 1, 1, 1),
		mk("kg-edges", tm, tn, 2, tk-1, tk, tk+1),
		mk("kg-all-one", tm, 2*tn, 3, 0, 0, 2*tk-3, 0),
		mk("kg-deep-k", tm, tn, 1, (4*sp.Ring.Stages+1)*tk-3, 3),
		mk("kg-mixed", 2*tm-7, 2*tn, 3, 3*tk+1, 0, tk, 2, 0, 2*tk-1),
	}
}

// groupedScenarios are the grouped scheduler's cases: empty experts
// around a ragged one, one-token experts, expert sizes TileM-1, TileM and
// TileM+1 over two clusters, one expert holding every row with CTAs left
// idle, deep K so the rings wrap inside a tile, ragged sub-tiles right
// after whole ones in one ring, whole and ragged ones alternating, and
// only ragged ones over narrowing n-blocks.
func groupedScenarios(sp Spec) []Scenario {
	tm, tn, tk := sp.TileM, sp.TileN, sp.TileK
	mk := func(name string, n, k, grid int, counts ...int) Scenario {
		m := 0
		for _, c := range counts {
			m += c
		}
		return Scenario{Name: name, M: m, N: n, K: k, Grid: grid, Counts: counts}
	}
	return []Scenario{
		mk("gr-empty", 2*tn-5, 3*tk-7, 2, 0, tm+37, 0, 0, 5),
		mk("gr-one-token", tn, tk, 2, 1, 1, 1),
		mk("gr-edges", tn, 2*tk, 2, tm-1, tm, tm+1),
		mk("gr-all-one", 2*tn, tk, 5, 0, 0, 2*tm-3, 0),
		mk("gr-deep-k", tn, (4*sp.Ring.Stages+1)*tk, 1, tm/2, 3),
		// One CTA: in each consumer's ring, whole sub-tiles (TMA-stored)
		// are followed by ragged ones (stored row by row, no bulk group)
		// and then by more sub-tiles reusing the whole ones' slots.
		mk("gr-ragged-after-full", tn, tk, 1, tm, tm, tm-5, tm-5, 7, 7),
		// One CTA: three whole sub-tiles in a row (any ring depth's guard
		// then has a store to wait for), then whole and ragged ones
		// alternating, so a whole one's slot guard counts the groups a
		// ragged one did not commit.
		mk("gr-alternate", tn, tk, 1, tm, tm, tm, 5, tm, 5, tm),
		// One CTA: every expert smaller than TileM, so every sub-tile is
		// ragged and every slot an epilogue-operand loader refills was
		// freed by a ragged one (moe_bwd_dswiglu on sm_100a: read, not
		// rewritten, no store); the last n-block (SubN/2 columns) has
		// fewer sub-tiles where TileN > SubN, which the loader and the
		// epilogue must skip alike.
		mk("gr-ragged-run", tn+sp.SubN/2, tk, 1, 3, 1, tm-1, 2),
	}
}

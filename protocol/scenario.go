package protocol

import "fmt"

// Scenario is a problem shape and launch the model steps the kernel's
// roles over.
type Scenario struct {
	Name    string
	M, N, K int
	// Grid is the clusters launched.
	Grid int
	// Clusters are the clusters simulated, each on its own (clusters share
	// no barrier): every cluster of the grid when nil (clc: cluster 0).
	Clusters []int
	// Steals (sm_100a clc) are the clusters a simulated cluster's
	// try_cancel requests cancel, in order (it takes their tiles); the
	// request after the last fails.
	Steals []int
	// Counts (the grouped scheduler) are the experts' rows, in order; M
	// is their sum (the K-grouped walk: their tokens, K their sum).
	Counts []int
}

func (sc Scenario) validate(sp *Spec) error {
	if sc.M <= 0 || sc.N <= 0 || sc.K <= 0 || sc.Grid <= 0 {
		return fmt.Errorf("protocol: scenario %s: M, N, K and Grid must be positive", sc.Name)
	}
	for _, x := range append(sc.clusters(sp), sc.Steals...) {
		if x < 0 || x >= sc.Grid {
			return fmt.Errorf("protocol: scenario %s: cluster %d outside the grid of %d", sc.Name, x, sc.Grid)
		}
	}
	return nil
}

// clusters are the clusters a scenario simulates.
func (sc Scenario) clusters(sp *Spec) []int {
	switch {
	case sc.Clusters != nil:
		return sc.Clusters
	case sp.isCLC():
		return []int{0}
	}
	out := make([]int, sc.Grid)
	for i := range out {
		out[i] = i
	}
	return out
}

func (s *Spec) isCLC() bool { return s.SM100 != nil && s.SM100.CLC }

// isGrouped: the grouped (MoE) scheduler, on either architecture.
func (s *Spec) isGrouped() bool {
	return s.SM90 != nil && s.SM90.Grouped || s.SM100 != nil && s.SM100.Grouped
}

// ctasPerTile is the CTAs that share a scheduled tile.
func (s *Spec) ctasPerTile() int {
	if s.SM100 != nil {
		return s.SM100.CTAsPerTile
	}
	return 1
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Scenarios are the shapes every spec is checked on, in units of its own
// tile so that each names the same situation for every config:
//
//   - single: one tile, one k-block;
//   - ragged: two tile rows and columns, the last row and column short
//     of a sub-tile (consumers and loaders skip it; an sm_100a pair's odd
//     CTA holds no rows of the last tile row), K not a multiple of TileK;
//   - wrap: 3x3 tiles over two clusters, five k-blocks, so both rings wrap
//     several times;
//   - deep-k: one tile row, 4*Stages+1 k-blocks: every stage many phases
//     inside one tile;
//   - tiny: M = N = K = 1: one tile with one valid sub-tile, a
//     2-CTA peer and a cluster peer past the tensor;
//   - idle (static schedulers): more clusters than tiles;
//   - stream-K (sm_90a streamk): every tile split over 4 CTAs with ragged
//     edges, two whole waves then one split tile, and many tiles split
//     over few CTAs.
//
// The grouped scheduler (sm_90a, and the sm_100a grouped walk) takes the
// grouped scenarios instead (groupedScenarios: expert row counts).
//
// With the clc scheduler the grid holds a cluster per tile and the
// scenarios are the CLC cases: the first request fails; a cluster steals
// every other one (more responses than the ring has slots); stealing in
// reverse order a cluster whose odd CTA's tile lies past the last
// (skipped); the last cluster alone.
func Scenarios(sp Spec) []Scenario {
	tm, tn, tk := sp.TileM, sp.TileN, sp.TileK
	subM, subN := min(sp.SubM, tm/2), min(sp.SubN, tn/2)
	if !sp.isCLC() {
		scs := []Scenario{
			{Name: "single", M: tm, N: tn, K: tk, Grid: 1},
			{Name: "ragged", M: 2*tm - subM - 3, N: 2*tn - subN - 5, K: 3*tk - 7, Grid: 1},
			{Name: "wrap", M: 3 * tm, N: 3 * tn, K: 5 * tk, Grid: 2},
			{Name: "deep-k", M: tm, N: 2 * tn, K: (4*sp.Ring.Stages + 1) * tk, Grid: 1},
			{Name: "tiny", M: 1, N: 1, K: 1, Grid: 1},
			{Name: "idle", M: tm, N: tn, K: 2 * tk, Grid: 3},
		}
		if sp.SM90 != nil && sp.SM90.KGrouped {
			return kgroupedScenarios(sp)
		}
		if sp.isGrouped() {
			return groupedScenarios(sp)
		}
		if sp.SM90 != nil && sp.SM90.StreamKMinKBlocks > 0 {
			mk := sp.SM90.StreamKMinKBlocks
			scs = append(scs,
				// Every tile split: each CTA a partial head, middle parts
				// and an owned tail, ragged at the edges.
				Scenario{Name: "sk-split", M: 3*tm - subM - 3, N: tn - 5, K: (4*mk+3)*tk - 7, Grid: 4},
				// Two whole waves, then one tile split over two CTAs.
				Scenario{Name: "sk-wave", M: 5 * tm, N: tn, K: (2*mk + 1) * tk, Grid: 2},
				// Many split tiles per CTA range on few CTAs.
				Scenario{Name: "sk-many", M: 3 * tm, N: 3 * tn, K: (mk + 1) * tk, Grid: 4})
		}
		return scs
	}
	grid := func(m, n int) int {
		return ceilDiv(ceilDiv(m, tm)*ceilDiv(n, tn)*sp.ctasPerTile(), sp.clusterSize())
	}
	seq := func(from, to int) []int {
		var out []int
		for i := from; i != to; {
			out = append(out, i)
			if from < to {
				i++
			} else {
				i--
			}
		}
		return out
	}
	edgeM, edgeN := tm/2-9, 3*tn-5
	edge := grid(edgeM, edgeN)
	manyM, manyN := 4*tm-subM-3, 3*tn
	many := grid(manyM, manyN)
	return []Scenario{
		{Name: "clc-first-fails", M: tm, N: tn, K: tk, Grid: grid(tm, tn)},
		{Name: "clc-steal-all", M: manyM, N: manyN, K: 2 * tk, Grid: many, Steals: seq(1, many)},
		{Name: "clc-edge-reverse", M: edgeM, N: edgeN, K: 3*tk - 7, Grid: edge, Steals: seq(edge-1, 0)},
		{Name: "clc-last-alone", M: edgeM, N: edgeN, K: tk, Grid: edge, Clusters: []int{edge - 1}},
	}
}

// rasterTile maps tile id t to its (row, column) tile as
// sw_tile_raster_m / sw_tile_raster_n do: groups of g tile columns (m) or
// rows (n), the short index fastest inside a group.
func rasterTile(raster string, t, tilesM, tilesN, g int) (tm, tn int) {
	if raster == "n" {
		per := g * tilesN
		grp := t / per
		w := t - grp*per
		first := grp * g
		gs := min(g, tilesM-first)
		return first + w%gs, w / gs
	}
	per := g * tilesM
	grp := t / per
	w := t - grp*per
	first := grp * g
	gs := min(g, tilesN-first)
	return w / gs, first + w%gs
}

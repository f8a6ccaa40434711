package manifest

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Scheduler is how a kernel's CTAs find their tiles, which decides how
// many CTAs a launch starts.
type Scheduler string

// Schedulers.
const (
	// SchedulerStatic: a persistent grid, at most one work unit (CTAsPerTile
	// CTAs) per SM, each unit striding over the tiles by the grid's unit
	// count.
	SchedulerStatic Scheduler = "static"
	// SchedulerCLC: one work unit per tile; clusters that have not started
	// are cancelled and their tiles taken by running ones (cluster launch
	// control).
	SchedulerCLC Scheduler = "clc"
	// SchedulerStreamK: one CTA per SM (no clusters); each takes whole
	// tiles in full waves, then a contiguous range of the remaining tiles'
	// k-blocks (tiling.StreamKPlan), so the grid does not depend on the
	// tile count.
	SchedulerStreamK Scheduler = "streamk"
)

// MaxGridX is the largest gridDim.x a launch may have (2^31 - 1).
const MaxGridX = 1<<31 - 1

// Grid is the rule that sizes a launch's 1-D grid (gridDim.x; y and z are
// 1). With tiles = Tiles evaluated, cpt = CTAsPerTile and c the cluster's
// CTA count (ClusterDims x*y):
//
//   - clc: tiles*cpt rounded up to a multiple of c;
//   - streamk (c = cpt = 1): max(1, SMs), at most tiling.StreamKMaxCTAs;
//   - static: g = min(tiles, max(1, SMs/cpt)) * cpt, then c if g < c, else
//     g rounded down to a multiple of c; where c > 1, at most c times the
//     clusters that fit on the device at once
//     (cuOccupancyMaxActiveClusters), since more would run a second wave.
type Grid struct {
	Tiles       Expr      `json:"tiles"`
	CTAsPerTile int       `json:"ctas_per_tile"`
	Scheduler   Scheduler `json:"scheduler"`
}

// CapsByClusters reports whether the grid depends on the number of
// co-resident clusters, so that a loader queries it only when it must.
func (m *Manifest) CapsByClusters() bool {
	return m.Grid.Scheduler == SchedulerStatic && m.clusterSize() > 1
}

func (m *Manifest) clusterSize() int { return max(1, m.ClusterDims[0]*m.ClusterDims[1]) }

// GridCTAs is the grid for s on a device of sms multiprocessors that fits
// clusters clusters at once (read only where CapsByClusters).
func (m *Manifest) GridCTAs(s Sizes, sms, clusters int) (int, error) {
	t, err := m.Grid.Tiles.Eval(s)
	if err != nil {
		return 0, err
	}
	cpt, c := max(1, m.Grid.CTAsPerTile), m.clusterSize()
	if t < 0 || t > MaxGridX/int64(cpt) {
		return 0, fmt.Errorf("manifest: %s: %d tiles of %d CTAs: the grid must hold 0 to %d CTAs (gridDim.x)", m.Name, t, cpt, MaxGridX)
	}
	tiles := int(t)
	switch m.Grid.Scheduler {
	case SchedulerCLC:
		g := (tiles*cpt + c - 1) / c * c
		if g > MaxGridX {
			return 0, fmt.Errorf("manifest: %s: %d tiles of %d CTAs in clusters of %d: %d CTAs: the grid must hold 0 to %d CTAs (gridDim.x)", m.Name, tiles, cpt, c, g, MaxGridX)
		}
		return g, nil
	case SchedulerStreamK:
		if cpt != 1 || c != 1 {
			return 0, fmt.Errorf("manifest: %s: a streamk grid of %d CTAs per tile in clusters of %d: want 1 and 1", m.Name, cpt, c)
		}
		return min(max(1, sms), tiling.StreamKMaxCTAs), nil
	}
	g := min(tiles, max(1, sms/cpt)) * cpt
	if g < c {
		g = c
	} else {
		g -= g % c
	}
	if m.CapsByClusters() {
		g = min(g, clusters*c)
	}
	return g, nil
}

package perfmodel

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// Projection is the projected run of one sm_100a bwd_dswiglu config at
// one shape on a datasheet GPU: not a measurement.
type Projection struct {
	Config tiling.Config
	Shape  tiling.Shape
	Work   TileWork
	Times  TileTimes
	// SteadyUS is the time per tile once the pipeline is full:
	// max(Mainloop, Epilogue). TMEM holds tiling.AccStages accumulators,
	// so the epilogue of tile i runs under the mainloop of tile i+1.
	SteadyUS float64
	// Tiles is the output tiles, Units the work units resident at once
	// (one CTA per SM, CTAsPerTile CTAs per unit, at most the grid's),
	// TilesPerUnit the tiles of the busiest unit: ceil(Tiles / Units).
	Tiles, Units, TilesPerUnit int
	// Schedule is the busiest unit's tile sequence; its CLCDepth is 0
	// for the static scheduler.
	Schedule Schedule
	// PipelineUS is Schedule.Run(), CLCStallUS what of it the CLC ring
	// adds over the static schedule's
	// LaunchUS + TMALatencyUS + Mainloop + (n-1)*SteadyUS + Epilogue.
	PipelineUS, CLCStallUS float64
	// FloorUS is the roofline floor of the config's traffic (out
	// included when stored); KernelUS = max(PipelineUS, FloorUS), since
	// the per-SM HBM shares above ignore the operands' own HBM traffic.
	FloorUS, KernelUS float64
}

// Waves is Tiles / Units: how many times the tiles fill the machine.
func (p Projection) Waves() float64 { return float64(p.Tiles) / float64(p.Units) }

// Project projects c at s on g: per-tile role times (TileWork.Times),
// the steady state max(mainloop, epilogue), and the busiest unit's tile
// sequence with its fill (launch, first TMA load, first mainloop), drain
// (last epilogue) and the CLC ring (Schedule). g must have a Pipeline and
// c be a valid sm_100a bwd_dswiglu config for g's arch.
func Project(g GPU, c tiling.Config, s tiling.Shape) (Projection, error) {
	if g.Pipe == nil {
		return Projection{}, fmt.Errorf("perfmodel: %s: no per-tile pipeline model for this GPU", g.Label)
	}
	if c.Arch != g.Arch {
		return Projection{}, fmt.Errorf("perfmodel: %s targets %s; the GPU runs %s", c.Name(), c.Arch, g.Arch)
	}
	if err := s.Validate(); err != nil {
		return Projection{}, fmt.Errorf("perfmodel: %w", err)
	}
	w, err := NewTileWork(c, s)
	if err != nil {
		return Projection{}, err
	}
	tiles, units, err := launchUnits(g, c, s)
	if err != nil {
		return Projection{}, err
	}
	p := Projection{Config: c, Shape: s, Work: w, Times: w.Times(g), Tiles: tiles, Units: units,
		TilesPerUnit: (tiles + units - 1) / units}
	p.SteadyUS = math.Max(p.Times.Mainloop, p.Times.Epilogue)
	p.Schedule = Schedule{Tiles: p.TilesPerUnit, MainloopUS: p.Times.Mainloop, EpilogueUS: p.Times.Epilogue,
		AccStages: tiling.AccStages, LaunchUS: g.Pipe.LaunchUS, TMALatencyUS: g.Pipe.TMALatencyUS}
	static := p.Schedule.Run()
	if d := c.CLCDepth(); d > 0 {
		p.Schedule.CLCDepth, p.Schedule.CLCRoundTripUS = d, g.Pipe.CLCRoundTripUS
	}
	p.PipelineUS = p.Schedule.Run()
	p.CLCStallUS = p.PipelineUS - static
	flops, bytes := BwdCost(s, c.StoreOut)
	p.FloorUS = math.Max(g.rooflineUS(flops, bytes))
	p.KernelUS = math.Max(p.PipelineUS, p.FloorUS)
	return p, nil
}

// launchUnits is c's tile count at s and the work units resident at once
// on g, by the manifest's grid rule (the launch runtime/launch would
// make) with every cluster assumed to fit.
func launchUnits(g GPU, c tiling.Config, s tiling.Shape) (tiles, units int, err error) {
	k, err := tiling.Check(c)
	if err != nil {
		return 0, 0, fmt.Errorf("perfmodel: %w", err)
	}
	m, err := manifest.New(k)
	if err != nil {
		return 0, 0, fmt.Errorf("perfmodel: %w", err)
	}
	sizes := manifest.Sizes{"M": s.M, "K": s.K, "I": s.I}
	t, err := m.Grid.Tiles.Eval(sizes)
	if err != nil {
		return 0, 0, fmt.Errorf("perfmodel: %s: %w", c.Name(), err)
	}
	cluster := max(1, c.ClusterM*c.ClusterN)
	grid, err := m.GridCTAs(sizes, g.SMs, g.SMs/cluster)
	if err != nil {
		return 0, 0, fmt.Errorf("perfmodel: %s: %w", c.Name(), err)
	}
	cpt := c.CTAsPerTile()
	// One CTA per SM: a CLC grid covers every tile, but only an SM's worth
	// of it is resident, and the rest is taken by cancellation.
	return int(t), max(1, min(grid, g.SMs)/cpt), nil
}

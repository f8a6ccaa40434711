package tune

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// DefaultPruneRatio is how much worse than the best candidate's a
// candidate's Prune score may be before it is left out: 1.5 keeps every
// tile within half again of the best one's operand traffic per useful
// output, which at the seed shape leaves out exactly the tiles that never
// won on the H200 (docs/PERFORMANCE.md#pruning-the-tuning-space).
const DefaultPruneRatio = 1.5

// Pruned is a candidate Prune left out, with its score and the best.
type Pruned struct {
	Config      tiling.Config
	Score, Best float64
}

// Prune splits cands into those worth measuring at shape s on a GPU of sms
// multiprocessors and those a static model says cannot win. The model
// scores a candidate by the operand bytes each output element costs (a
// tile of TileM x TileN reads K*(TileM+TileN) operand elements for
// TileM*TileN outputs: 1/TileM + 1/TileN per output and unit of K) over
// the fraction of the GPU its tiles keep busy (tiles over waves times the
// work units that run at once, from the kernel's grid rule; under
// stream-K, which splits the last wave's k-blocks over the idle CTAs, the
// k-blocks over the busiest CTA's times the CTAs). A tile taller than M
// counts only M rows: its other rows are zero-filled, not read. Candidates
// scoring more than ratio times the best are left out. The model knows
// nothing of epilogues or schedules, so it only separates tile shapes that
// are far apart; swigen tune --exhaustive measures every candidate.
func Prune(cands []tiling.Config, s tiling.Shape, sms int, ratio float64) (kept []tiling.Config, pruned []Pruned, err error) {
	if sms < 1 || !(ratio >= 1) {
		return nil, nil, fmt.Errorf("tune: prune: %d SMs, ratio %g: want at least 1 of each", sms, ratio)
	}
	scores := make([]float64, len(cands))
	best := math.Inf(1)
	for i, c := range cands {
		if scores[i], err = pruneScore(c, s, sms); err != nil {
			return nil, nil, err
		}
		best = min(best, scores[i])
	}
	for i, c := range cands {
		if scores[i] > ratio*best {
			pruned = append(pruned, Pruned{Config: c, Score: scores[i], Best: best})
			continue
		}
		kept = append(kept, c)
	}
	return kept, pruned, nil
}

// pruneScore is c's operand traffic per output over its GPU utilization
// at shape s (lower is better).
func pruneScore(c tiling.Config, s tiling.Shape, sms int) (float64, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return 0, fmt.Errorf("tune: prune: %w", err)
	}
	m, err := manifest.New(k)
	if err != nil {
		return 0, fmt.Errorf("tune: prune %s: %w", c.Name(), err)
	}
	sizes := manifest.Sizes{"M": s.M, "K": s.K, "I": s.I, "N": s.I}
	t, err := m.Grid.Tiles.Eval(sizes)
	if err != nil {
		return 0, fmt.Errorf("tune: prune %s at %+v: %w", c.Name(), s, err)
	}
	tiles := max(1, int(t))
	units := max(1, sms/max(1, m.Grid.CTAsPerTile))
	waves := (tiles + units - 1) / units
	busy := float64(tiles) / float64(waves*units)
	rows, kred := c.TileM, 0
	for _, p := range m.Params {
		if p.Name != "M" && p.Name != "K" || p.Value == "" {
			continue
		}
		v, err := p.Value.Eval(sizes)
		if err != nil {
			return 0, fmt.Errorf("tune: prune %s at %+v: %w", c.Name(), s, err)
		}
		if p.Name == "M" {
			rows = max(1, min(rows, int(v)))
		} else {
			kred = int(v)
		}
	}
	if c.Scheduler == tiling.StreamKScheduler && kred > 0 {
		kb := (kred + c.TileK - 1) / c.TileK
		p := tiling.NewStreamKPlan(tiles, kb, min(units, tiling.StreamKMaxCTAs))
		busiest := p.Full * kb
		if p.SKUnits > 0 {
			busiest += (p.SKUnits + p.SKCTAs - 1) / p.SKCTAs
		}
		busy = float64(tiles*kb) / float64(busiest*p.Grid)
	}
	traffic := 1/float64(rows) + 1/float64(c.TileN)
	return traffic / busy, nil
}

package tune

import (
	"context"
	"fmt"
	"github.com/swigen/swigen/internal/badinput"
	"slices"

	"github.com/swigen/swigen/tiling"
)

// ShapeTune tunes one key: the prune model, the shard's part of what it
// keeps, a screening round when there are more candidates than
// ScreenKeep, then a full round of the finalists. It is swigen tune's
// work at one shape, with what the tune says left to Events.
type ShapeTune struct {
	// Sweep holds what every round shares: DBPath, Key, Devices, Prepare,
	// PrepareWorkers, Runner, SlowFactor and Retry. Each round sets
	// Candidates, Screen, HangTest, Reps, Warmup and Progress.
	Sweep SweepOptions
	// SMs is the GPU's multiprocessor count; 0 (unknown) prunes nothing.
	SMs int
	// Exhaustive measures every candidate fully: no pruning, no screening.
	Exhaustive bool
	// ScreenKeep is how many of the screened candidates the full round
	// measures (0: no screening round).
	ScreenKeep int
	// Shard and Shards take every Shards-th candidate of what the prune
	// model keeps, from the Shard-th (Shards 0: all of them).
	Shard, Shards int
	// HangTest runs the final round's last candidate once more with the
	// hang probe (SweepOptions.HangTest).
	HangTest bool
	Events   ShapeEvents
}

// ShapeEvents are what ShapeTune.Run reports as it goes, each optional.
type ShapeEvents struct {
	// Sharded: kept candidates survived the prune model, cands of them
	// are this shard's (before the DB is read).
	Sharded func(kept, cands int)
	// Planned: the shard's candidates, the pruned ones, what the DB
	// already holds and whether a screening round comes first.
	Planned func(cands []tiling.Config, pruned []Pruned, plan Plan, screen bool)
	// Round starts a round of n jobs to run; it returns the round's
	// progress sink and a function called when the round ends.
	Round func(screening bool, n int) (progress func(Progress), done func())
}

// SelectionError is a shard that does not select (Select's error): bad
// input, not a failure of the tune (badinput.Error, as InputError is).
type SelectionError = badinput.Error

// Run tunes the shard's part of selected (the whole --filter and --max
// selection). It returns nil and no error when the shard has no
// candidate at the key's shape (the prune model kept fewer candidates
// than there are shards, and the others have them); the DB is still
// written then (empty if new), so that every finished shard leaves one
// for tune merge to name.
func (t *ShapeTune) Run(ctx context.Context, selected []tiling.Config) (*SweepResult, error) {
	cands, pruned, kept, err := t.candidates(selected)
	if err != nil {
		return nil, err
	}
	if f := t.Events.Sharded; f != nil {
		f(kept, len(cands))
	}
	if len(cands) == 0 {
		if _, err := UpdateDB(t.Sweep.DBPath, func(*DB) error { return nil }); err != nil {
			return nil, fmt.Errorf("tune: --db: %w", err)
		}
		return nil, nil
	}
	db, err := ReadDB(t.Sweep.DBPath)
	if err != nil {
		return nil, fmt.Errorf("tune: --db: %w", err)
	}
	screen := !t.Exhaustive && t.ScreenKeep > 0 && len(cands) > t.ScreenKeep
	if f := t.Events.Planned; f != nil {
		f(cands, pruned, PlanSweep(db.Entry(t.Sweep.Key), cands, t.Sweep.Retry, screen), screen)
	}
	if !screen {
		return t.round(ctx, db, cands, false, t.HangTest)
	}
	res, err := t.round(ctx, db, cands, true, false)
	if err != nil {
		return res, err
	}
	return t.round(ctx, db, Finalists(res.Entry, cands, t.ScreenKeep, t.Sweep.Key), false, t.HangTest)
}

// candidates prunes selected (unless Exhaustive or SMs is unknown) and
// takes the shard of what is kept. Pruned before it is sharded: each
// shard pruning its own part would measure the tiles that are far from
// the best only in a part without the best ones, which the unsharded
// tune leaves out.
func (t *ShapeTune) candidates(selected []tiling.Config) (cands []tiling.Config, pruned []Pruned, kept int, err error) {
	cands = selected
	// The prune model counts a dense grid's tiles; a grouped kind's walk
	// depends on the routing, and its space is small: all of it is run.
	if !t.Exhaustive && t.SMs > 0 && !t.Sweep.Key.Kernel.Grouped() {
		if cands, pruned, err = Prune(selected, t.Sweep.Key.Shape, t.SMs, DefaultPruneRatio); err != nil {
			return nil, nil, 0, err
		}
	}
	kept = len(cands)
	if cands, err = Select(cands, Selection{Shard: t.Shard, Shards: t.Shards}); err != nil {
		return nil, nil, 0, &SelectionError{Err: err}
	}
	return cands, pruned, kept, nil
}

// round sweeps cs once: a screening round (brief timing, results that
// rank but never win) or a full one. The DB is read again first, so the
// round's job count (for its progress) counts what the last round wrote.
func (t *ShapeTune) round(ctx context.Context, db *DB, cs []tiling.Config, screening, hang bool) (*SweepResult, error) {
	so := t.Sweep
	so.Candidates, so.Screen, so.HangTest = cs, screening, hang
	if screening {
		so.Reps, so.Warmup = ScreenReps, ScreenWarmup
	}
	if fresh, err := ReadDB(so.DBPath); err == nil {
		db = fresh
	}
	if f := t.Events.Round; f != nil {
		progress, done := f(screening, len(PlanSweep(db.Entry(so.Key), cs, so.Retry, screening).Run))
		defer done()
		so.Progress = progress
	}
	return Sweep(ctx, so)
}

// Finalists are the candidates a full round measures after screening:
// the keep fastest screened, and the heuristic's config when it is a
// candidate (so a summary can compare the winner with a full
// measurement of it).
func Finalists(e *Entry, cands []tiling.Config, keep int, key Key) []tiling.Config {
	top := TopScreened(e, cands, keep)
	if h, err := HeuristicFor(key); err == nil && slices.Contains(cands, h) && !slices.Contains(top, h) {
		top = append(top, h)
	}
	return top
}

// HeuristicFor is the heuristic config of the key's problem, with the
// key's StoreOut (so it is comparable with the key's candidates); a
// StoreOut heuristic that does not validate or is not implemented is an
// error.
func HeuristicFor(k Key) (tiling.Config, error) {
	if k.MajorA != "" || k.MajorB != "" {
		c, _, err := tiling.HeuristicGemm(k.Arch, k.DType, k.Shape, k.MajorA, k.MajorB)
		return c, err
	}
	if !k.StoreOut {
		return tiling.Heuristic(k.Kernel, k.Arch, k.DType, k.Shape)
	}
	h, err := tiling.HeuristicStoreOut(k.Kernel, k.Arch, k.DType, k.Shape)
	if err != nil {
		return h, err
	}
	if _, err := tiling.Check(h); err != nil {
		return h, err
	}
	return h, nil
}

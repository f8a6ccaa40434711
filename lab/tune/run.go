package tune

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swigen/swigen/tiling"
)

// RunOptions are a whole tune: every shape of Shapes tuned in turn with
// one runner (swigen tune, or tune --suite).
type RunOptions struct {
	Kernel tiling.Kernel
	Arch   tiling.Arch
	DType  tiling.DType
	Shapes []tiling.Shape
	// Majors, when set (gemm only), has one entry per shape: the operand
	// majors every candidate at that shape runs in (tiling.WithMajors),
	// part of its key.
	Majors   [][2]tiling.Major
	StoreOut bool
	// Experts and Routing complete a grouped kind's shapes (Key.Experts,
	// Key.Routing).
	Experts int
	Routing string
	// GPU names the machine in every key; its SMs size the prune model.
	GPU GPU
	// Compiler and Templates complete every key (Key.Compiler, Key.Templates).
	Compiler, Templates string

	// Filter and Max narrow the space (Selection); Shard of Shards is
	// taken per shape of what the prune model keeps (ShapeTune).
	Filter        []string
	Max           int
	Shard, Shards int
	// ShardFlag is the shard as the user wrote it, for messages.
	ShardFlag string

	DBPath         string
	Devices        []int
	Prepare        func(ctx context.Context, c tiling.Config) error
	PrepareWorkers int
	// NewRunner makes the runner once the selection is known to leave a
	// candidate; a runner with a Close(time.Duration) method is closed at
	// the end.
	NewRunner  func() (Runner, error)
	SlowFactor float64
	Retry      bool
	Exhaustive bool
	ScreenKeep int
	HangTest   bool

	// Reporter receives what the tune says as it goes (nil: nothing).
	Reporter Reporter
	// Now measures the tune's time (nil: time.Now).
	Now func() time.Time
}

// Reporter receives a Run's events; swigen tune prints them.
type Reporter interface {
	// Events are the events of the tune at key, whose space has space
	// candidates (without of them without StoreOut).
	Events(key Key, space, without int) ShapeEvents
	// ShapeDone receives each shape's result, took after the tune began;
	// an error (a report that cannot be written) ends the tune.
	ShapeDone(res *SweepResult, took time.Duration) error
	// SuiteDone closes a tune of several shapes, also one that failed
	// after its first shape began: the shapes done so far.
	SuiteDone(done []*SweepResult, took time.Duration)
}

// GPU is what a tune needs to know about the GPU; probing it creates no
// CUDA context, so the workers have the GPU to themselves.
type GPU struct {
	Name   string
	Driver int
	Arch   tiling.Arch
	CC     string
	// SMs is the multiprocessor count, which sizes the prune model's
	// waves (0: unknown, nothing is pruned).
	SMs int
}

// Run tunes every shape of o.Shapes in turn and returns the results of
// those tuned. Bad input (a selection that leaves no candidate) is a
// *SelectionError. A shape without a passing candidate is an error after
// its result is reported; a tune stopped while screening reports the
// provisional best through the result's entry (Entry.Provisional).
func Run(ctx context.Context, o RunOptions) ([]*SweepResult, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	rep := o.Reporter
	if rep == nil {
		rep = nopReporter{}
	}
	space := tiling.Space(o.Kernel, o.Arch, o.DType)
	without := len(space)
	if o.StoreOut {
		space = tiling.SpaceStoreOut(o.Kernel, o.Arch, o.DType)
	}
	if len(space) == 0 {
		return nil, fmt.Errorf("tune: the tuning space of %s %s %s%s is empty (nothing implemented?)", o.Kernel, o.Arch, o.DType, StoreOutFlag(o.StoreOut))
	}
	// The shard is taken per shape of what the prune model keeps of the
	// whole selection (ShapeTune.Run), so that the shards together run
	// what one unsharded tune runs; here it only has to leave a candidate.
	selected, err := Select(space, Selection{Filter: o.Filter, Max: o.Max})
	if err != nil {
		return nil, &SelectionError{Err: err}
	}
	if mine, err := Select(selected, Selection{Shard: o.Shard, Shards: o.Shards}); err != nil || len(mine) == 0 {
		return nil, &SelectionError{Err: fmt.Errorf("tune: no candidate left of %d after --filter %q --max %d --shard %s", len(space), o.Filter, o.Max, o.ShardFlag)}
	}
	runner, err := o.NewRunner()
	if err != nil {
		return nil, err
	}
	if c, ok := runner.(interface{ Close(time.Duration) }); ok {
		defer c.Close(10 * time.Second)
	}
	start := now()
	var done []*SweepResult
	for i, shape := range o.Shapes {
		key, sel := o.key(shape), selected
		if o.Majors != nil {
			key.MajorA, key.MajorB = o.Majors[i][0], o.Majors[i][1]
			sel = tiling.WithMajors(selected, key.MajorA, key.MajorB)
			if len(sel) == 0 {
				return done, &SelectionError{Err: fmt.Errorf("tune: no candidate of the selection is implemented with majors a=%s b=%s", key.MajorA, key.MajorB)}
			}
		}
		st := o.shapeTune(runner, key, rep.Events(key, len(space), without))
		res, err := st.Run(ctx, sel)
		if res == nil && err == nil {
			continue // this shard has nothing to run at this shape
		}
		if res != nil {
			if werr := rep.ShapeDone(res, now().Sub(start)); werr != nil && err == nil {
				err = werr
			}
			done = append(done, res)
		}
		if err != nil {
			if len(o.Shapes) > 1 {
				rep.SuiteDone(done, now().Sub(start))
			}
			return done, err
		}
		if _, ok := res.Entry.Best(); !ok && len(o.Shapes) == 1 {
			return done, errors.New("tune: no candidate passed (see the status column)")
		}
	}
	if len(o.Shapes) > 1 {
		rep.SuiteDone(done, now().Sub(start))
		for _, res := range done {
			if _, ok := res.Entry.Best(); !ok {
				return done, fmt.Errorf("tune: no candidate passed at %s (see swigen tune --shape for its table)", ShapeDims(o.Kernel, res.Entry.Key.Shape))
			}
		}
	}
	return done, nil
}

// key is the DB key of the tune at shape.
func (o *RunOptions) key(shape tiling.Shape) Key {
	return Key{Kernel: o.Kernel, Arch: o.Arch, DType: o.DType, Shape: shape, GPU: o.GPU.Name, Driver: o.GPU.Driver,
		Compiler: o.Compiler, Templates: o.Templates, StoreOut: o.StoreOut, Experts: o.Experts, Routing: o.Routing}
}

// shapeTune is the tune of one key with the run's options.
func (o *RunOptions) shapeTune(runner Runner, key Key, ev ShapeEvents) *ShapeTune {
	slow := o.SlowFactor
	if slow == 0 {
		slow = 1 // Sweep reads 0 as the default; a factor of 1 never stops
	}
	return &ShapeTune{
		Sweep: SweepOptions{DBPath: o.DBPath, Key: key, Devices: o.Devices,
			Prepare: o.Prepare, PrepareWorkers: max(1, o.PrepareWorkers),
			Runner: runner, SlowFactor: slow, Retry: o.Retry},
		SMs: o.GPU.SMs, Exhaustive: o.Exhaustive, ScreenKeep: o.ScreenKeep, Shard: o.Shard, Shards: o.Shards,
		HangTest: o.HangTest,
		Events:   ev,
	}
}

type nopReporter struct{}

func (nopReporter) Events(Key, int, int) ShapeEvents            { return ShapeEvents{} }
func (nopReporter) ShapeDone(*SweepResult, time.Duration) error { return nil }
func (nopReporter) SuiteDone([]*SweepResult, time.Duration)     {}

package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swigen/swigen/tiling"
)

// Selection narrows a candidate list: Filter keeps configs whose name
// contains every substring, Max keeps the first Max of those (0: all), and
// the shard Shard of Shards keeps every index with index%Shards == Shard.
type Selection struct {
	Filter        []string
	Max           int
	Shard, Shards int
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("tune: shard %q: want i/n with 0 <= i < n, e.g. 0/2", s)
	}
	return i, n, nil
}

// Select applies s to cands, keeping their order.
func Select(cands []tiling.Config, s Selection) ([]tiling.Config, error) {
	if s.Shards == 0 {
		s.Shards = 1
	}
	if s.Shards < 1 || s.Shard < 0 || s.Shard >= s.Shards {
		return nil, fmt.Errorf("tune: shard %d/%d: want 0 <= i < n", s.Shard, s.Shards)
	}
	if s.Max < 0 {
		return nil, fmt.Errorf("tune: max %d: must not be negative", s.Max)
	}
	var kept []tiling.Config
	for _, c := range cands {
		name := c.Name()
		ok := true
		for _, f := range s.Filter {
			ok = ok && strings.Contains(name, f)
		}
		if ok {
			kept = append(kept, c)
		}
	}
	if s.Max > 0 && len(kept) > s.Max {
		kept = kept[:s.Max]
	}
	var out []tiling.Config
	for i, c := range kept {
		if i%s.Shards == s.Shard {
			out = append(out, c)
		}
	}
	return out, nil
}

// DefaultSlowFactor is the early-stop ratio: a candidate whose first timed
// samples are all at least this many times the best so far cannot win, so
// it is stopped instead of fully timed.
const DefaultSlowFactor = 3

// EarlyStop reports whether a candidate with these first samples (µs) is
// to be stopped: its fastest sample is at least factor times best. Without
// a best yet (best <= 0), without samples, or with factor <= 1, never.
func EarlyStop(samples []float64, best, factor float64) bool {
	if best <= 0 || factor <= 1 || len(samples) == 0 {
		return false
	}
	fastest := math.Inf(1)
	for _, s := range samples {
		fastest = math.Min(fastest, s)
	}
	return fastest >= factor*best
}

// SweepOptions configure Sweep.
type SweepOptions struct {
	DBPath     string
	Key        Key
	Candidates []tiling.Config
	// Devices are the GPU ordinals; each runs one worker at a time.
	Devices []int
	// Prepare builds a candidate ahead of its turn (it fills the build
	// cache, so the worker's own build is a hit); it runs on
	// PrepareWorkers goroutines while earlier candidates are timed. An
	// error records the candidate as StatusCompile without running it.
	// Nil skips the step.
	Prepare        func(ctx context.Context, c tiling.Config) error
	PrepareWorkers int
	Runner         Runner
	SlowFactor     float64 // 0 means DefaultSlowFactor
	// Retry runs candidates recorded with a failure again (passing ones
	// are always skipped: the sweep resumes).
	Retry bool
	// Screen makes this a screening sweep: every job runs Reps
	// repetitions and its result is recorded as Screened, to rank the
	// candidates cheaply; a later full sweep of the best few measures them
	// again (Screen off, where a screened result counts as not recorded).
	Screen bool
	// Reps and Warmup, when above 0, are the timing each job asks its
	// worker for (Job.Reps, Job.Warmup); 0 leaves the worker's default.
	Reps   int
	Warmup time.Duration
	// HangTest runs the last candidate once more, built with the hang
	// probe (a kernel that deadlocks), after the others: a test that the
	// runner isolates a hung kernel and the sweep carries on. Its result,
	// a fault, is recorded under manifest.ProbedName and can never win.
	HangTest bool
	// Progress, when set, is called once per finished candidate, from one
	// goroutine at a time.
	Progress func(Progress)
	// Now stamps results (tests fix it); nil means time.Now.
	Now func() time.Time
}

// Progress reports one finished candidate.
type Progress struct {
	Done, Total int // candidates finished and to run in this sweep
	Result      Result
	Best        Result // best passing result so far (Status "" if none)
}

// Plan is what a sweep will do: the candidates to run and those already
// recorded for the key.
type Plan struct {
	Run     []tiling.Config
	Skipped []string
}

// PlanSweep splits candidates into those recorded in entry (skipped: the
// sweep resumes) and those to run. With retry, failed records run again. A
// screening sweep (screen) counts any record; a full one does not count a
// screening result, which it measures again.
func PlanSweep(entry *Entry, cands []tiling.Config, retry, screen bool) Plan {
	var p Plan
	for _, c := range cands {
		name := c.Name()
		if entry != nil {
			if r, ok := entry.Result(name); ok && (r.Status == StatusOK || !retry) && (screen || !r.Screened) {
				p.Skipped = append(p.Skipped, name)
				continue
			}
		}
		p.Run = append(p.Run, c)
	}
	return p
}

// SweepResult summarises a finished (or interrupted) sweep.
type SweepResult struct {
	Entry   *Entry // the key's entry as last written
	Plan    Plan
	Ran     int // candidates finished and recorded in this sweep
	Elapsed time.Duration
}

// Sweep measures every candidate not yet recorded for o.Key and records
// each result in the DB at o.DBPath as soon as it is known (under the file
// lock, atomically), so that a sweep stopped at any point leaves a valid DB
// that the next one resumes from. Candidates are prepared (compiled) in
// parallel ahead of their turn and run one at a time per device. Failures
// of a candidate are results, not errors; Sweep fails only on a DB write
// error or when ctx is cancelled (then the results so far are kept).
func Sweep(ctx context.Context, o SweepOptions) (*SweepResult, error) {
	start := time.Now()
	if o.Runner == nil {
		return nil, errors.New("tune: sweep: no runner")
	}
	if len(o.Devices) == 0 {
		o.Devices = []int{0}
	}
	if o.SlowFactor == 0 {
		o.SlowFactor = DefaultSlowFactor
	}
	if o.PrepareWorkers < 1 {
		o.PrepareWorkers = 1
	}
	for _, c := range o.Candidates {
		// Results are keyed by kind and StoreOut: a candidate of another
		// would be recorded, and compared, as if it did the key's work.
		if c.Kernel != o.Key.Kernel || c.StoreOut != o.Key.StoreOut {
			return nil, fmt.Errorf("tune: sweep: candidate %s (kernel %s, store_out %v) does not match the key (kernel %s, store_out %v)",
				c.Name(), c.Kernel, c.StoreOut, o.Key.Kernel, o.Key.StoreOut)
		}
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	db, err := ReadDB(o.DBPath)
	if err != nil {
		return nil, err
	}
	entry := db.Entry(o.Key)
	plan := PlanSweep(entry, o.Candidates, o.Retry, o.Screen)
	if entry == nil {
		entry = &Entry{Key: o.Key}
	}
	res := &SweepResult{Entry: entry, Plan: plan}
	// probes[i] is the probe plan.Run[i] is built with ("": the product).
	probes := make([]string, len(plan.Run))
	if o.HangTest && len(o.Candidates) > 0 {
		hang := Job{Config: o.Candidates[len(o.Candidates)-1], Probe: "hang"}
		if r, ok := entry.Result(hang.Name()); !ok || (r.Status != StatusOK && o.Retry) {
			plan.Run = append(plan.Run, hang.Config)
			probes = append(probes, hang.Probe)
		}
	}
	name := func(i int) string { return Job{Config: plan.Run[i], Probe: probes[i]}.Name() }
	n := len(plan.Run)
	if n == 0 {
		res.Elapsed = time.Since(start)
		return res, nil
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Prepare ahead, in candidate order, on a pool.
	ready := make([]chan error, n)
	for i := range ready {
		ready[i] = make(chan error, 1)
	}
	feed := make(chan int)
	go func() {
		defer close(feed)
		for i := 0; i < n; i++ {
			select {
			case feed <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < o.PrepareWorkers; w++ {
		go func() {
			for i := range feed {
				var err error
				if o.Prepare != nil && probes[i] == "" {
					err = o.Prepare(ctx, plan.Run[i])
				}
				ready[i] <- err
			}
		}()
	}

	var (
		mu       sync.Mutex
		next     int
		done     int
		best, _  = entry.Best()
		ceilings = entry.Ceilings
		firstErr error
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n || firstErr != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	record := func(out Output) {
		mu.Lock()
		defer mu.Unlock()
		r := out.Result
		r.Screened = o.Screen
		if r.Date == "" {
			r.Date = now().UTC().Format(time.RFC3339)
		}
		written, err := UpdateDB(o.DBPath, func(db *DB) error {
			e := db.Upsert(o.Key)
			if !e.Ceilings.Known() && out.Ceilings.Known() {
				e.Ceilings = out.Ceilings
			}
			e.Set(r)
			return nil
		})
		if err != nil {
			if firstErr == nil {
				firstErr = err
				cancel()
			}
			return
		}
		res.Entry = written.Entry(o.Key)
		if !ceilings.Known() {
			ceilings = res.Entry.Ceilings
		}
		if r.Status == StatusOK && res.Entry.canWin(r.Config) && (best.Status != StatusOK || r.Time() < best.Time()) {
			best = r
		}
		done++
		res.Ran = done
		if o.Progress != nil {
			o.Progress(Progress{Done: done, Total: n, Result: r, Best: best})
		}
	}
	snapshot := func() (float64, Ceilings) {
		mu.Lock()
		defer mu.Unlock()
		b := 0.0
		if best.Status == StatusOK {
			b = best.US
		}
		return b, ceilings
	}

	var wg sync.WaitGroup
	for _, dev := range o.Devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				cfg := plan.Run[i]
				var perr error
				select {
				case perr = <-ready[i]:
				case <-ctx.Done():
					return
				}
				if ctx.Err() != nil {
					return
				}
				if perr != nil {
					record(Output{Result: Result{Config: name(i), Status: StatusCompile, Device: dev, Error: clip(perr.Error(), 4000)}})
					continue
				}
				bestUS, ceil := snapshot()
				out, err := o.Runner.Run(ctx, Job{Index: i, Config: cfg, Probe: probes[i], Shape: o.Key.Shape, Experts: o.Key.Experts, Routing: o.Key.Routing, Device: dev,
					BestUS: bestUS, SlowFactor: o.SlowFactor, Ceilings: ceil, Reps: o.Reps, Warmup: o.Warmup})
				if err != nil || ctx.Err() != nil {
					return
				}
				out.Config = name(i)
				record(out)
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("tune: sweep interrupted after %d of %d candidates (recorded in %s; run again to resume): %w", res.Ran, n, o.DBPath, err)
	}
	return res, nil
}

// clip shortens s to at most n bytes, keeping its end (where compilers and
// drivers put the actual error) and its first line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	first, _, _ := strings.Cut(s, "\n")
	if len(first) > n/4 {
		first = first[:n/4]
	}
	return first + "\n…\n" + s[len(s)-(n-len(first)-5):]
}

// ScreenReps and ScreenWarmup are a screening sweep's timing: the fewest
// repetitions the bench takes and a short warm-up, enough to rank
// candidates that differ by more than the noise (a few percent).
const (
	ScreenReps   = 20
	ScreenWarmup = 50 * time.Millisecond
)

// TopScreened is the keep fastest passing candidates of cands recorded in
// entry (screened or fully measured), fastest first: the ones a full sweep
// measures after a screening sweep. Ties keep cands' order.
func TopScreened(entry *Entry, cands []tiling.Config, keep int) []tiling.Config {
	if entry == nil {
		return nil
	}
	type timed struct {
		c  tiling.Config
		us float64
	}
	var ok []timed
	for _, c := range cands {
		if r, found := entry.Result(c.Name()); found && r.Status == StatusOK {
			ok = append(ok, timed{c, r.Time()})
		}
	}
	slices.SortStableFunc(ok, func(a, b timed) int { return cmp.Compare(a.us, b.us) })
	out := make([]tiling.Config, 0, keep)
	for i := 0; i < len(ok) && i < keep; i++ {
		out = append(out, ok[i].c)
	}
	return out
}

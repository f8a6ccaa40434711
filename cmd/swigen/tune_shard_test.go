package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/tiling"
)

// distinctUS is a time for config name that no other config of a space
// shares (checked by the tests that use it): with ties, which of two
// equal candidates a screening keeps depends on their order, and the
// sharded and unsharded sweeps could pick different but equally fast
// winners, hiding a real difference.
func distinctUS(name string) float64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return 200 + float64(h.Sum32()%1000003)/1000
}

// shardDeps are fakeTuneDeps on a GPU of 132 SMs (so the prune model
// runs, as on the H200) whose candidates all pass with distinctUS. It
// records the jobs run; after stop jobs (0: never) it cancels cancel, as
// a shard killed half-way would stop.
type shardDeps struct {
	mu     sync.Mutex
	jobs   []tune.Job
	stop   int
	cancel context.CancelFunc
}

func (s *shardDeps) deps(t *testing.T) tuneDeps {
	d := fakeTuneDeps(t, "", new([]string))
	probe := d.probe
	d.probe = func(devs []int) (tuneGPU, error) {
		g, err := probe(devs)
		g.SMs = 132
		return g, err
	}
	d.runner = func(*tuneOptions, *toolchain.Toolchain, io.Writer) (tune.Runner, error) {
		return tune.RunnerFunc(func(ctx context.Context, j tune.Job) (tune.Output, error) {
			s.mu.Lock()
			s.jobs = append(s.jobs, j)
			if s.stop > 0 && len(s.jobs) == s.stop {
				s.cancel()
			}
			s.mu.Unlock()
			if err := ctx.Err(); err != nil {
				return tune.Output{}, err
			}
			return tune.Output{Result: tune.Result{Status: tune.StatusOK, US: distinctUS(j.Name()), BaselineUS: 347},
				Ceilings: tune.Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}}, nil
		}), nil
	}
	return d
}

// runShardTune runs swigen tune with args (and --db db) through runTune
// with deps.
func runShardTune(t *testing.T, ctx context.Context, d tuneDeps, db string, args ...string) error {
	t.Helper()
	o, err := parseTune(t, append([]string{"--db", db}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err = runTune(ctx, &env{stdout: io.Discard, stderr: &stderr}, o, d)
	if err != nil && ctx.Err() == nil {
		t.Fatalf("tune %q: %v\n%s", args, err, stderr.String())
	}
	return err
}

// mergeShards merges the DBs with swigen tune merge into out and loads it.
func mergeShards(t *testing.T, out string, dbs []string) *tune.DB {
	t.Helper()
	if code, stdout, stderr := runCLI(t, append(append([]string{"tune", "merge"}, dbs...), "-o", out)...); code != exitOK {
		t.Fatalf("tune merge: exit %d\n%s%s", code, stdout, stderr)
	}
	db, err := tune.LoadDB(out)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// sweepSummary is what a sweep leaves per key: every config recorded,
// those fully measured (not screened), and the winner.
type sweepSummary struct {
	Recorded, Full []string
	Winner         string
}

func summarize(db *tune.DB) map[string]sweepSummary {
	out := map[string]sweepSummary{}
	for _, e := range db.Entries {
		var s sweepSummary
		for _, r := range e.Results {
			s.Recorded = append(s.Recorded, r.Config)
			if !r.Screened {
				s.Full = append(s.Full, r.Config)
			}
		}
		if b, ok := e.Best(); ok {
			s.Winner = b.Config
		}
		out[e.Key.String()] = s
	}
	return out
}

// ignoreRun drops what differs between two runs of one measurement:
// when and on which device it ran.
var ignoreRun = cmpopts.IgnoreFields(tune.Result{}, "Date", "Device", "WallS")

// TestTuneShardsMerged: for every n, tune --shard i/n for each i of n
// into its own DB, merged with tune merge, records exactly the candidates
// the unsharded tune does (pruning included) and finds its winner. With
// --exhaustive the merged DB is the unsharded one, record for record; by
// default each shard measures its own best --screen-keep fully, so the
// merge has at least the unsharded finalists fully measured.
func TestTuneShardsMerged(t *testing.T) {
	t.Parallel()
	space := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)
	seen := map[float64]string{}
	for _, c := range append(space, tiling.SpaceStoreOut(tiling.KernelFwdGateUp, tiling.ArchSM90a, tiling.BF16)...) {
		if o, dup := seen[distinctUS(c.Name())]; dup {
			t.Fatalf("distinctUS gives %s and %s one time", o, c.Name())
		}
		seen[distinctUS(c.Name())] = c.Name()
	}
	for _, tt := range []struct {
		name   string
		args   []string
		shards []int
	}{
		{"exhaustive", []string{"--exhaustive"}, []int{2, 3, 7}},
		{"pruned and screened", nil, []int{2, 3, 7}},
		{"suite, store-out", []string{"--suite", "--kernel", "fwd_gateup", "--store-out", "--filter", "c1x1"}, []int{3}},
		// The prune model keeps 10 of these 18: shards 10 and 11 of 12
		// have nothing to run.
		{"more shards than the prune keeps", []string{"--filter", "pingpong", "--filter", "c1x1"}, []int{12}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole.json")
			var sd shardDeps
			runShardTune(t, context.Background(), sd.deps(t), whole, tt.args...)
			want, err := tune.LoadDB(whole)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.shards {
				var dbs []string
				for i := range n {
					db := filepath.Join(dir, fmt.Sprintf("n%d-shard-%d.json", n, i))
					var sd shardDeps
					runShardTune(t, context.Background(), sd.deps(t), db, append(slices.Clone(tt.args), "--shard", fmt.Sprintf("%d/%d", i, n))...)
					dbs = append(dbs, db)
				}
				got := mergeShards(t, filepath.Join(dir, fmt.Sprintf("n%d-merged.json", n)), dbs)
				checkShardsMerged(t, fmt.Sprintf("%d shards", n), want, got, slices.Contains(tt.args, "--exhaustive"))
			}
		})
	}
}

// checkShardsMerged compares a merge of shards with the unsharded DB.
func checkShardsMerged(t *testing.T, what string, whole, merged *tune.DB, exhaustive bool) {
	t.Helper()
	if exhaustive {
		if diff := cmp.Diff(whole, merged, ignoreRun); diff != "" {
			t.Errorf("%s: merged DB (-unsharded +merged):\n%s", what, diff)
		}
		return
	}
	w, m := summarize(whole), summarize(merged)
	if len(w) == 0 {
		t.Fatalf("%s: the unsharded tune recorded nothing", what)
	}
	for k, ws := range w {
		ms := m[k]
		if diff := cmp.Diff(ws.Recorded, ms.Recorded); diff != "" {
			t.Errorf("%s: %s: candidates recorded (-unsharded +merged):\n%s", what, k, diff)
		}
		if ws.Winner == "" || ws.Winner != ms.Winner {
			t.Errorf("%s: %s: winner %q merged, %q unsharded", what, k, ms.Winner, ws.Winner)
		}
		for _, f := range ws.Full {
			if !slices.Contains(ms.Full, f) {
				t.Errorf("%s: %s: %s measured fully unsharded, only screened in the shards", what, k, f)
			}
		}
	}
	for k := range m {
		if _, ok := w[k]; !ok {
			t.Errorf("%s: merged key %s the unsharded tune does not have", what, k)
		}
	}
}

// TestTuneShardEmptyAfterPrune: a shard the prune model leaves without a
// candidate at a shape says so and succeeds (in a job array its task
// must not fail), running and recording nothing but leaving its DB for
// tune merge; one left without a
// candidate by --filter and --max alone is a usage error, as before.
func TestTuneShardEmptyAfterPrune(t *testing.T) {
	t.Parallel()
	filter := []string{"--filter", "pingpong", "--filter", "c1x1"} // 18 candidates, 10 kept by the prune model
	for _, tt := range []struct {
		shard string
		jobs  int    // jobs run
		want  string // in stderr, or in the error for a usage error
		usage bool
	}{
		{"11/12", 0, "tune: shard 11/12 has no candidate at M=16384 K=768 I=4608: the prune model keeps 10, all in other shards", false},
		{"9/12", 1, "1 to run on device(s) 0", false},
		{"18/19", 0, "no candidate left of the bwd_dswiglu space after --filter", true},
	} {
		db := filepath.Join(t.TempDir(), "tune.json")
		o, err := parseTune(t, append([]string{"--db", db, "--exhaustive=false", "--shard", tt.shard}, filter...)...)
		if err != nil {
			t.Fatal(err)
		}
		var sd shardDeps
		var stderr bytes.Buffer
		err = runTune(context.Background(), &env{stdout: io.Discard, stderr: &stderr}, o, sd.deps(t))
		switch {
		case tt.usage && (exitCode(err) != exitUsage || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("shard %s: err %v (exit %d), want a usage error with %q", tt.shard, err, exitCode(err), tt.want)
		case !tt.usage && (err != nil || !strings.Contains(stderr.String(), tt.want)):
			t.Errorf("shard %s: err %v, stderr:\n%s\nwant success and %q", tt.shard, err, stderr.String(), tt.want)
		}
		if len(sd.jobs) != tt.jobs {
			t.Errorf("shard %s: %d jobs ran, want %d", tt.shard, len(sd.jobs), tt.jobs)
		}
		if _, err := os.Stat(db); !tt.usage && err != nil {
			t.Errorf("shard %s left no DB: %v", tt.shard, err)
		}
	}
}

// TestTuneShardResume: a shard stopped half-way (its context cancelled,
// as SIGTERM does, in its stop-th job: in the screening round, at its
// last job, in the full round) resumes when run again: the rerun runs
// only what is not recorded (the job in flight at the stop among it),
// its DB ends as the uninterrupted shard's, and merged with the other
// shards it gives the unsharded tune's candidates and winner.
func TestTuneShardResume(t *testing.T) {
	t.Parallel()
	const n, i = 3, 1
	args := []string{"--shard", fmt.Sprintf("%d/%d", i, n)}
	dir := t.TempDir()
	var unsharded shardDeps
	wholeDB := filepath.Join(dir, "whole.json")
	runShardTune(t, context.Background(), unsharded.deps(t), wholeDB)
	wantWhole, err := tune.LoadDB(wholeDB)
	if err != nil {
		t.Fatal(err)
	}
	others := map[int]string{}
	var whole []tune.Job // the uninterrupted shard i's, to compare with
	for j := range n {
		others[j] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", j))
		var sd shardDeps
		runShardTune(t, context.Background(), sd.deps(t), others[j], "--shard", fmt.Sprintf("%d/%d", j, n))
		if j == i {
			whole = sd.jobs
		}
	}
	wantShard, err := tune.LoadDB(others[i])
	if err != nil {
		t.Fatal(err)
	}
	screened := 0
	for _, j := range whole {
		if j.Reps == tune.ScreenReps {
			screened++
		}
	}
	if screened == 0 || screened == len(whole) {
		t.Fatalf("shard %d/%d screened %d of %d jobs; the test needs both rounds", i, n, screened, len(whole))
	}
	for _, stop := range []int{1, screened / 2, screened, screened + 1, len(whole)} {
		t.Run(fmt.Sprint("stopped in job ", stop), func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "shard.json")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := shardDeps{stop: stop, cancel: cancel}
			if err := runShardTune(t, ctx, first.deps(t), db, args...); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "resume") {
				t.Fatalf("stopped shard: err %v, want a cancellation that says how to resume", err)
			}
			var again shardDeps
			runShardTune(t, context.Background(), again.deps(t), db, args...)
			if got, want := len(first.jobs)-1+len(again.jobs), len(whole); got != want {
				t.Errorf("%d jobs before the stop (one in flight) and %d after, want %d in all", len(first.jobs), len(again.jobs), want)
			}
			if again.jobs[0].Config.Name() != first.jobs[stop-1].Config.Name() {
				t.Errorf("the rerun began with %s, want %s (in flight at the stop)", again.jobs[0].Config.Name(), first.jobs[stop-1].Config.Name())
			}
			got, err := tune.LoadDB(db)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantShard, got, ignoreRun); diff != "" {
				t.Errorf("resumed shard's DB (-uninterrupted +resumed):\n%s", diff)
			}
			dbs := []string{db}
			for j := range n {
				if j != i {
					dbs = append(dbs, others[j])
				}
			}
			checkShardsMerged(t, "resumed shard merged", wantWhole, mergeShards(t, filepath.Join(t.TempDir(), "merged.json"), dbs), false)
		})
	}
}

// TestTuneMergeKeepsKeysApart: DBs tuned on different GPUs, drivers,
// compilers and modes, merged with tune merge, keep one entry per key
// with exactly its own records (two shards of one host join into one
// entry), in either input order to the same bytes.
func TestTuneMergeKeepsKeysApart(t *testing.T) {
	t.Parallel()
	type host struct {
		name, gpu string
		driver    int
		nvcc      string
		args      []string
	}
	hosts := []host{
		{"h200 shard 0", "NVIDIA H200", 13000, "13.0.88", []string{"--shard", "0/2"}},
		{"h200 shard 1", "NVIDIA H200", 13000, "13.0.88", []string{"--shard", "1/2"}},
		{"h200 older driver", "NVIDIA H200", 12080, "13.0.88", nil},
		{"h200 other nvcc", "NVIDIA H200", 13000, "12.9.86", nil},
		{"h100", "NVIDIA H100 80GB HBM3", 13000, "13.0.88", nil},
		{"h200 store-out", "NVIDIA H200", 13000, "13.0.88", []string{"--store-out"}},
	}
	dir := t.TempDir()
	type rec = map[string]tune.Result // config -> record
	want := map[tune.Key]rec{}
	var dbs []string
	for i, h := range hosts {
		var sd shardDeps
		d := sd.deps(t)
		d.probe = func([]int) (tuneGPU, error) {
			return tuneGPU{Name: h.gpu, Driver: h.driver, Arch: tiling.ArchSM90a, CC: "sm_90", SMs: 132}, nil
		}
		d.toolchain = func(string) (*toolchain.Toolchain, error) {
			return &toolchain.Toolchain{NVCC: "/fake/nvcc", Version: h.nvcc}, nil
		}
		db := filepath.Join(dir, fmt.Sprintf("host-%d.json", i))
		runShardTune(t, context.Background(), d, db, append([]string{"--filter", "pingpong", "--filter", "c1x1"}, h.args...)...)
		read, err := tune.LoadDB(db)
		if err != nil || len(read.Entries) != 1 {
			t.Fatalf("%s: %v, %d entries, want 1", h.name, err, len(read.Entries))
		}
		e := read.Entries[0]
		if e.Key.GPU != h.gpu || e.Key.Driver != h.driver || e.Key.Compiler != "nvcc "+h.nvcc {
			t.Fatalf("%s: tuned under key %+v", h.name, e.Key)
		}
		if want[e.Key] == nil {
			want[e.Key] = rec{}
		}
		for _, r := range e.Results {
			if _, dup := want[e.Key][r.Config]; dup {
				t.Fatalf("%s: %s recorded by two shards", h.name, r.Config)
			}
			want[e.Key][r.Config] = r
		}
		dbs = append(dbs, db)
	}
	if len(want) != len(hosts)-1 {
		t.Fatalf("%d keys from %d hosts, want %d (the two shards share one)", len(want), len(hosts), len(hosts)-1)
	}
	merged := filepath.Join(dir, "merged.json")
	db := mergeShards(t, merged, dbs)
	got := map[tune.Key]rec{}
	for _, e := range db.Entries {
		got[e.Key] = rec{}
		for _, r := range e.Results {
			got[e.Key][r.Config] = r
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged entries (-sources +merged):\n%s", diff)
	}
	reversed := slices.Clone(dbs)
	slices.Reverse(reversed)
	mergeShards(t, filepath.Join(dir, "reversed.json"), reversed)
	a, errA := os.ReadFile(merged)
	b, errB := os.ReadFile(filepath.Join(dir, "reversed.json"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("merging in reverse order gave other bytes (%v, %v)", errA, errB)
	}
}

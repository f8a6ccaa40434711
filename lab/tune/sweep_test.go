package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func names(cs []tiling.Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name())
	}
	return out
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"0/1", 0, 1, true}, {"1/2", 1, 2, true}, {" 2 / 3 ", 2, 3, true},
		{"2/2", 0, 0, false}, {"-1/2", 0, 0, false}, {"0/0", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false},
	} {
		i, n, err := ParseShard(tt.in)
		if (err == nil) != tt.ok || i != tt.i || n != tt.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tt.in, i, n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "0 <= i < n") {
			t.Errorf("ParseShard(%q) error %q does not state the rule", tt.in, err)
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	all := testCands(100)
	ping := func(cs []tiling.Config) []string {
		var out []string
		for _, n := range names(cs) {
			if strings.Contains(n, "pingpong") {
				out = append(out, n)
			}
		}
		return out
	}(all)
	every := func(xs []string, from, step int) []string {
		var out []string
		for i := from; i < len(xs); i += step {
			out = append(out, xs[i])
		}
		return out
	}
	for _, tt := range []struct {
		name string
		sel  Selection
		want []string
	}{
		{"all", Selection{}, names(all)},
		{"filter", Selection{Filter: []string{"pingpong"}}, ping},
		{"filter and", Selection{Filter: []string{"pingpong", "m64n64", "c1x1"}}, []string{
			"bwd_dswiglu_sm90a_bf16_m64n64k64_s5_c1x1_pingpong", "bwd_dswiglu_sm90a_bf16_m64n64k64_s6_c1x1_pingpong"}},
		{"max", Selection{Max: 3}, names(all[:3])},
		{"filter max", Selection{Filter: []string{"pingpong"}, Max: 2}, ping[:2]},
		{"shard 0/3", Selection{Shard: 0, Shards: 3}, every(names(all), 0, 3)},
		{"shard 2/3", Selection{Shard: 2, Shards: 3}, every(names(all), 2, 3)},
		{"filter shard", Selection{Filter: []string{"pingpong"}, Shard: 1, Shards: 2}, every(ping, 1, 2)},
		{"no match", Selection{Filter: []string{"nope"}}, nil},
	} {
		got, err := Select(all, tt.sel)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The shards partition the selection.
	seen := map[string]int{}
	for i := 0; i < 4; i++ {
		got, _ := Select(all, Selection{Shard: i, Shards: 4})
		for _, n := range names(got) {
			seen[n]++
		}
	}
	if len(seen) != len(all) {
		t.Errorf("4 shards cover %d of %d configs", len(seen), len(all))
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s in %d shards", n, c)
		}
	}
	for _, bad := range []Selection{{Shard: 2, Shards: 2}, {Max: -1}, {Shard: -1, Shards: 2}} {
		if _, err := Select(all, bad); err == nil {
			t.Errorf("Select(%+v) succeeded", bad)
		}
	}
}

func TestEarlyStop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		samples      []float64
		best, factor float64
		want         bool
	}{
		{[]float64{900, 950}, 300, 3, true},
		{[]float64{899, 2000}, 300, 3, false}, // one sample under 3x: keep timing
		{[]float64{900}, 300, 3, true},        // exactly 3x
		{[]float64{5000}, 0, 3, false},        // no best yet
		{nil, 300, 3, false},
		{[]float64{5000}, 300, 1, false}, // factor <= 1 disables
		{[]float64{650}, 300, 2, true},
	} {
		if got := EarlyStop(tt.samples, tt.best, tt.factor); got != tt.want {
			t.Errorf("EarlyStop(%v, %v, %v) = %v, want %v", tt.samples, tt.best, tt.factor, got, tt.want)
		}
	}
}

func TestPlanSweep(t *testing.T) {
	t.Parallel()
	cands := testCands(4)
	e := &Entry{Key: testKey()}
	e.Set(Result{Config: cands[0].Name(), Status: StatusOK, US: 1})
	e.Set(Result{Config: cands[2].Name(), Status: StatusTimeout})
	p := PlanSweep(e, cands, false, false)
	if diff := cmp.Diff([]string{cands[1].Name(), cands[3].Name()}, names(p.Run)); diff != "" {
		t.Errorf("resume Run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{cands[0].Name(), cands[2].Name()}, p.Skipped); diff != "" {
		t.Errorf("resume Skipped (-want +got):\n%s", diff)
	}
	p = PlanSweep(e, cands, true, false)
	if diff := cmp.Diff([]string{cands[1].Name(), cands[2].Name(), cands[3].Name()}, names(p.Run)); diff != "" {
		t.Errorf("retry Run (-want +got):\n%s", diff)
	}
	if p := PlanSweep(nil, cands, false, false); len(p.Run) != 4 {
		t.Errorf("no entry: %d to run", len(p.Run))
	}
}

// fakeRunner is an in-process Runner with a scripted outcome per config.
type fakeRunner struct {
	mu      sync.Mutex
	outcome func(j Job) Output
	jobs    []Job
	busy    map[int]bool // devices with a job running
	overlap bool         // two jobs ran on one device at once
	delay   time.Duration
}

func (f *fakeRunner) Run(ctx context.Context, j Job) (Output, error) {
	f.mu.Lock()
	if f.busy == nil {
		f.busy = map[int]bool{}
	}
	if f.busy[j.Device] {
		f.overlap = true
	}
	f.busy[j.Device] = true
	f.jobs = append(f.jobs, j)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.busy[j.Device] = false; f.mu.Unlock() }()
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return Output{}, ctx.Err()
	}
	return f.outcome(j), nil
}

var fixedNow = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }

func TestSweep(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	cands := testCands(6)
	// cands[1] does not compile; cands[2] hangs; cands[4] is the fastest.
	times := map[int]float64{0: 300, 1: 290, 3: 280, 4: 250, 5: 1000}
	fr := &fakeRunner{outcome: func(j Job) Output {
		switch j.Index {
		case 2:
			return Output{Result: Result{Status: StatusTimeout, Error: "killed"}}
		}
		o := Output{Result: Result{Status: StatusOK, US: times[j.Index], BaselineUS: 350}}
		if !j.Ceilings.Known() {
			o.Ceilings = Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}
		}
		if EarlyStop([]float64{o.US}, j.BestUS, j.SlowFactor) {
			o.Status = StatusSlow
		}
		return o
	}}
	var progress []Progress
	res, err := Sweep(context.Background(), SweepOptions{
		DBPath: path, Key: testKey(), Candidates: cands, Runner: fr, Now: fixedNow,
		Prepare: func(ctx context.Context, c tiling.Config) error {
			if c.Name() == cands[1].Name() {
				return errors.New("gen: compile: ptxas exited with status 255")
			}
			return nil
		},
		PrepareWorkers: 3,
		Progress:       func(p Progress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 6 || len(progress) != 6 || progress[5].Done != 6 || progress[5].Total != 6 {
		t.Errorf("ran %d, %d progress reports (last %+v)", res.Ran, len(progress), progress[len(progress)-1])
	}
	db, err := LoadDB(path)
	if err != nil {
		t.Fatal(err)
	}
	e := db.Entry(testKey())
	if diff := cmp.Diff(res.Entry, e); diff != "" {
		t.Errorf("returned entry differs from the DB (-ret +db):\n%s", diff)
	}
	want := map[string]Status{}
	for i, c := range cands {
		want[c.Name()] = StatusOK
		switch i {
		case 1:
			want[c.Name()] = StatusCompile
		case 2:
			want[c.Name()] = StatusTimeout
		case 5:
			want[c.Name()] = StatusSlow
		}
	}
	got := map[string]Status{}
	for _, r := range e.Results {
		got[r.Config] = r.Status
		if r.Date != "2026-12-01T12:00:00Z" {
			t.Errorf("%s: date %q", r.Config, r.Date)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if r, _ := e.Result(cands[1].Name()); !strings.Contains(r.Error, "ptxas") {
		t.Errorf("compile failure lost its reason: %q", r.Error)
	}
	if best, _ := e.Best(); best.Config != cands[4].Name() {
		t.Errorf("best %s, want %s", best.Config, cands[4].Name())
	}
	if !e.Ceilings.Known() {
		t.Error("ceilings measured by the first worker were not recorded")
	}
	// The compile failure never reached a worker; the first job measured
	// ceilings and had no best; later ones got both.
	if len(fr.jobs) != 5 {
		t.Errorf("%d jobs ran, want 5", len(fr.jobs))
	}
	if j := fr.jobs[0]; j.BestUS != 0 || j.Ceilings.Known() || j.SlowFactor != DefaultSlowFactor || j.Shape != testKey().Shape {
		t.Errorf("first job %+v", j)
	}
	if j := fr.jobs[len(fr.jobs)-1]; j.BestUS != 250 || !j.Ceilings.Known() {
		t.Errorf("last job best %v ceilings %+v; want 250 and known", j.BestUS, j.Ceilings)
	}

	// Re-running resumes: nothing left to do.
	fr2 := &fakeRunner{outcome: fr.outcome}
	res2, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: cands, Runner: fr2})
	if err != nil || res2.Ran != 0 || len(fr2.jobs) != 0 || len(res2.Plan.Skipped) != 6 {
		t.Errorf("resume: ran %d, jobs %d, skipped %d, %v", res2.Ran, len(fr2.jobs), len(res2.Plan.Skipped), err)
	}
	// --retry reruns the failures only; the compile failure now compiles.
	res3, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: cands, Runner: fr2, Retry: true})
	if err != nil || res3.Ran != 3 {
		t.Errorf("retry: ran %d, %v; want 3 (compile, timeout, slow)", res3.Ran, err)
	}
}

func TestSweepDevices(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	fr := &fakeRunner{delay: 5 * time.Millisecond, outcome: func(j Job) Output {
		return Output{Result: Result{Status: StatusOK, US: 100}}
	}}
	res, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: testCands(8), Devices: []int{0, 3}, Runner: fr})
	if err != nil || res.Ran != 8 {
		t.Fatalf("ran %d, %v", res.Ran, err)
	}
	used := map[int]int{}
	for _, j := range fr.jobs {
		used[j.Device]++
	}
	if used[0] == 0 || used[3] == 0 || len(used) != 2 {
		t.Errorf("jobs per device %v, want both 0 and 3 used", used)
	}
	if fr.overlap {
		t.Error("two jobs ran on one device at once")
	}
	for _, r := range res.Entry.Results {
		if r.Device != 0 && r.Device != 3 {
			t.Errorf("%s recorded on device %d", r.Config, r.Device)
		}
	}
}

// TestSweepInterrupted cancels a sweep part way: what finished is in the
// DB, the rest runs on the next sweep.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	cands := testCands(6)
	ctx, cancel := context.WithCancel(context.Background())
	fr := &fakeRunner{outcome: func(j Job) Output {
		if j.Index == 2 {
			cancel()
		}
		return Output{Result: Result{Status: StatusOK, US: 100}}
	}}
	res, err := Sweep(ctx, SweepOptions{DBPath: path, Key: testKey(), Candidates: cands, Runner: fr})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("err = %v, want an interruption that says how to resume", err)
	}
	db, _ := LoadDB(path)
	n := len(db.Entry(testKey()).Results)
	if n != res.Ran || n < 2 || n > 3 {
		t.Errorf("%d recorded, %d ran", n, res.Ran)
	}
	res2, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: cands, Runner: RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
		return Output{Result: Result{Status: StatusOK, US: 100}}, nil
	})})
	if err != nil || res2.Ran != 6-n {
		t.Errorf("resume ran %d, want %d (%v)", res2.Ran, 6-n, err)
	}
}

// TestSweepKilled kills a tuner process with SIGKILL in the middle of its
// sweep: the DB must still parse and a new sweep must finish the rest.
func TestSweepKilled(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	const n = 12
	cmd := helperCmd(t, "sweeper", path, fmt.Sprint(n), "40ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		db, err := LoadDB(path)
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("DB unreadable while the sweep runs: %v", err)
		}
		if e := db.Entry(testKey()); e != nil && len(e.Results) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("sweeper made no progress")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	db, err := LoadDB(path)
	if err != nil {
		t.Fatalf("DB after kill -9: %v", err)
	}
	done := len(db.Entry(testKey()).Results)
	if done >= n {
		t.Skipf("the sweep finished (%d) before the kill", done)
	}
	res, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: testCands(n),
		Runner: RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
			return Output{Result: Result{Status: StatusOK, US: 50}}, nil
		})})
	if err != nil || res.Ran != n-done || len(res.Entry.Results) != n {
		t.Errorf("resume after kill: ran %d (want %d), %d recorded, %v", res.Ran, n-done, len(res.Entry.Results), err)
	}
	for _, e := range mustReadDir(t, filepath.Dir(path)) {
		if strings.Contains(e, ".tmp-") {
			t.Logf("note: a write in flight at the kill left %s (harmless: never renamed)", e)
		}
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestSweepDBError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "tune.json")
	// A directory where the DB's temp file must go cannot be written:
	// make the DB path itself a directory so the rename fails.
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: testCands(2),
		Runner: RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
			return Output{Result: Result{Status: StatusOK, US: 50}}, nil
		})})
	if err == nil {
		t.Error("Sweep succeeded with an unwritable DB")
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	s := "first line\n" + strings.Repeat("x", 5000) + "\nthe real error"
	got := clip(s, 200)
	if len(got) != 200 || !strings.HasPrefix(got, "first line") || !strings.HasSuffix(got, "the real error") {
		t.Errorf("clip = %d bytes %q", len(got), got)
	}
	if clip("short", 10) != "short" {
		t.Error("clip changed a short string")
	}
}

// TestSweepKeyMismatch: a candidate of another kind or StoreOut than the
// key is refused before anything runs (it would be recorded, and compared,
// as if it did the key's work).
func TestSweepKeyMismatch(t *testing.T) {
	t.Parallel()
	out := testCands(1)[0]
	out.StoreOut = true
	gemm := tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, tiling.BF16)[0]
	ko := testKey()
	ko.StoreOut = true
	for _, tt := range []struct {
		name string
		key  Key
		cand tiling.Config
		want string // "" means no error
	}{
		{"store-out candidate, plain key", testKey(), out, "store_out true) does not match the key (kernel bwd_dswiglu, store_out false)"},
		{"plain candidate, store-out key", ko, testCands(1)[0], "store_out false) does not match the key (kernel bwd_dswiglu, store_out true)"},
		{"other kind", testKey(), gemm, "(kernel gemm, store_out false) does not match"},
		{"matching store-out", ko, out, ""},
	} {
		ran := 0
		_, err := Sweep(context.Background(), SweepOptions{DBPath: filepath.Join(t.TempDir(), "tune.json"), Key: tt.key,
			Candidates: []tiling.Config{tt.cand},
			Runner: RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
				ran++
				return Output{Result: Result{Status: StatusOK, US: 50}}, nil
			})})
		switch {
		case tt.want == "" && (err != nil || ran != 1):
			t.Errorf("%s: err %v, ran %d; want it run", tt.name, err, ran)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || ran != 0):
			t.Errorf("%s: err %v, ran %d; want %q and nothing run", tt.name, err, ran, tt.want)
		}
	}
}

// TestScreening: a screening sweep records Screened results, which never
// win; a full sweep measures them again; TopScreened ranks them.
func TestScreening(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	cands := testCands(6)
	var reps []int
	r := RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
		reps = append(reps, j.Reps)
		return Output{Result: Result{Status: StatusOK, US: 100 + float64(j.Index)}}, nil
	})
	res, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: cands, Runner: r,
		Screen: true, Reps: ScreenReps, Warmup: ScreenWarmup})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res.Entry.Results {
		if !x.Screened {
			t.Errorf("%s: not marked screened", x.Config)
		}
	}
	if _, ok := res.Entry.Best(); ok {
		t.Error("a screened result won")
	}
	if p := PlanSweep(res.Entry, cands, false, true); len(p.Run) != 0 {
		t.Errorf("a second screening would run %d", len(p.Run))
	}
	if p := PlanSweep(res.Entry, cands, false, false); len(p.Run) != len(cands) {
		t.Errorf("a full sweep would run %d, want %d", len(p.Run), len(cands))
	}
	top := TopScreened(res.Entry, cands, 2)
	if len(top) != 2 || top[0].Name() != cands[0].Name() || top[1].Name() != cands[1].Name() {
		t.Fatalf("TopScreened = %v", names(top))
	}
	reps = nil
	res, err = Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: top, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0, 0}, reps); diff != "" {
		t.Errorf("full-round reps (-want +got):\n%s", diff)
	}
	best, ok := res.Entry.Best()
	if !ok || best.Screened || best.Config != cands[0].Name() {
		t.Errorf("Best = %+v, %v; want %s fully measured", best, ok, cands[0].Name())
	}
	if TopScreened(nil, cands, 2) != nil {
		t.Error("TopScreened(nil) is not nil")
	}
}

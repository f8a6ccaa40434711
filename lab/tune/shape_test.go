package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// shapeRunner times each candidate by its place in cands, the last
// fastest, and records the jobs it ran (screening ones by their Reps).
type shapeRunner struct {
	cands []tiling.Config
	mu    sync.Mutex
	full  []string
	scr   []string
}

func (r *shapeRunner) Run(_ context.Context, j Job) (Output, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j.Reps == ScreenReps {
		r.scr = append(r.scr, j.Name())
	} else {
		r.full = append(r.full, j.Name())
	}
	i := slices.IndexFunc(r.cands, func(c tiling.Config) bool { return c.Name() == j.Name() })
	return Output{Result: Result{Status: StatusOK, US: 1000 - float64(i), BaselineUS: 2000},
		Ceilings: Ceilings{GemmTFLOPs: 800, CopyGBs: 4000}}, nil
}

// TestShapeTuneRounds: with more candidates than ScreenKeep the tune
// screens them all, then fully measures the fastest ScreenKeep (and the
// heuristic's config when it is a candidate); exhaustive measures all
// fully in one round. The events come in order with the rounds' sizes.
func TestShapeTuneRounds(t *testing.T) {
	t.Parallel()
	key := testKey()
	cands := testCands(10)
	h, err := HeuristicFor(key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cands, h) {
		cands = append(cands, h)
	}
	names := func(cs []tiling.Config) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name())
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		exhaustive bool
		wantScr    int
		wantFull   []string
		wantEvents []string
	}{
		{"screened", false, len(cands), names(Finalists(fastestScreened(cands), cands, 3, key)),
			[]string{"sharded", "planned screen", "round screening", "done", "round full", "done"}},
		{"exhaustive", true, 0, names(cands), []string{"sharded", "planned", "round full", "done"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &shapeRunner{cands: cands}
			var events []string
			st := &ShapeTune{
				Sweep:      SweepOptions{DBPath: filepath.Join(t.TempDir(), "db.json"), Key: key, Devices: []int{0}, Runner: r, SlowFactor: 1},
				Exhaustive: tt.exhaustive, ScreenKeep: 3,
				Events: ShapeEvents{
					Sharded: func(kept, n int) { events = append(events, "sharded") },
					Planned: func(_ []tiling.Config, _ []Pruned, _ Plan, screen bool) {
						events = append(events, map[bool]string{true: "planned screen", false: "planned"}[screen])
					},
					Round: func(screening bool, n int) (func(Progress), func()) {
						events = append(events, map[bool]string{true: "round screening", false: "round full"}[screening])
						return nil, func() { events = append(events, "done") }
					},
				},
			}
			res, err := st.Run(context.Background(), cands)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.scr) != tt.wantScr {
				t.Errorf("%d screening jobs, want %d", len(r.scr), tt.wantScr)
			}
			slices.Sort(r.full)
			slices.Sort(tt.wantFull)
			if d := cmp.Diff(tt.wantFull, r.full); d != "" {
				t.Errorf("fully measured (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantEvents, events); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if best, ok := res.Entry.Best(); !ok || best.Config != cands[len(cands)-1].Name() {
				t.Errorf("winner %+v, want the last candidate %s", best, cands[len(cands)-1].Name())
			}
		})
	}
}

// fastestScreened is the entry a screening round of shapeRunner leaves:
// every candidate screened, the later ones faster.
func fastestScreened(cands []tiling.Config) *Entry {
	e := &Entry{Key: testKey()}
	for i, c := range cands {
		e.Set(Result{Config: c.Name(), Status: StatusOK, US: 1000 - float64(i), Screened: true})
	}
	return e
}

// TestShapeTuneShards: a shard left without a candidate runs nothing and
// still writes its DB; a shard that does not select is a SelectionError.
func TestShapeTuneShards(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db.json")
	r := &shapeRunner{}
	st := &ShapeTune{Sweep: SweepOptions{DBPath: db, Key: testKey(), Devices: []int{0}, Runner: r}, Shard: 5, Shards: 8}
	res, err := st.Run(context.Background(), testCands(3))
	if res != nil || err != nil || len(r.full)+len(r.scr) != 0 {
		t.Errorf("empty shard: %v, %v, %d jobs; want nothing run", res, err, len(r.full)+len(r.scr))
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("empty shard wrote no DB: %v", err)
	}
	st.Shard, st.Shards = 3, 2
	_, err = st.Run(context.Background(), testCands(3))
	if se := (*SelectionError)(nil); !errors.As(err, &se) {
		t.Errorf("shard 3/2: error %v, want a SelectionError", err)
	}
}

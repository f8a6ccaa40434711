package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/tiling"
)

const (
	nameA = "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"
	nameB = "bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative"
	nameC = "bwd_dswiglu_sm90a_bf16_m64n128k64_s5_c1x1_pingpong"
	nameH = "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_probe_hang"
	// nameOut also stores out (StoreOut).
	nameOut = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"
)

func sampleDB() *DB {
	db := NewDB()
	e := db.Upsert(testKey())
	e.Ceilings = Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}
	e.Set(Result{Config: nameB, Status: StatusOK, US: 250, P20US: 248, P80US: 255, BaselineUS: 347, RelErr: 1e-3, Date: "2026-12-01T10:00:00Z"})
	e.Set(Result{Config: nameA, Status: StatusOK, US: 269.4, BaselineUS: 347.5, Date: "2026-12-01T10:00:01Z"})
	e.Set(Result{Config: nameH, Status: StatusTimeout, Error: "no result within 1m0s", Device: 1})
	e.Set(Result{Config: nameC, Status: StatusSlow, US: 900, Error: "stopped early"})
	k2 := testKey()
	k2.Shape = tiling.Shape{M: 8192, K: 4096, I: 14336}
	db.Upsert(k2).Set(Result{Config: nameA, Status: StatusOK, US: 1469.7})
	return db
}

func TestDBRoundTrip(t *testing.T) {
	t.Parallel()
	db := sampleDB()
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := db.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(db, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Byte-stable: writing what was read gives the same file.
	b1, _ := os.ReadFile(path)
	b2, err := got.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(b1) != string(b2) {
		t.Error("re-encoding a loaded DB changed its bytes")
	}
	// Results stay sorted by config whatever order they were set in.
	var names []string
	for _, r := range got.Entry(testKey()).Results {
		names = append(names, r.Config)
	}
	if diff := cmp.Diff([]string{nameA, nameH, nameB, nameC}, names); diff != "" {
		t.Errorf("result order (-want +got):\n%s", diff)
	}
}

func TestLoadDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := LoadDB(filepath.Join(dir, "missing.json"))
	if err != nil || len(db.Entries) != 0 || db.Format != DBFormat {
		t.Errorf("LoadDB(missing) = %+v, %v; want an empty DB", db, err)
	}
	for _, tt := range []struct{ name, body, wantErr string }{
		{"torn", `{"format":"swigen-tune-v1","entries":[`, "parse DB"},
		{"format", `{"format":"other","entries":[]}`, `format "other", want "swigen-tune-v1"`},
		{"null", `{"format":"swigen-tune-v1","entries":[null]}`, "null entry"},
	} {
		p := filepath.Join(dir, tt.name+".json")
		os.WriteFile(p, []byte(tt.body), 0o644)
		if _, err := LoadDB(p); err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), p) || !errors.Is(err, ErrInvalidDB) {
			t.Errorf("%s: LoadDB = %v, want an error wrapping ErrInvalidDB naming %s with %q", tt.name, err, p, tt.wantErr)
		}
	}
	// A read failure is not bad input.
	if _, err := LoadDB(dir); err == nil || errors.Is(err, ErrInvalidDB) {
		t.Errorf("LoadDB(a directory) = %v, want a read error that is not ErrInvalidDB", err)
	}
}

// TestReadDBCreatesNothing checks that reading a DB, with or without a
// stale lock file of an older swigen beside it, leaves the directory as
// it was.
func TestReadDBCreatesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files []string // created before the read
	}{
		{"missing DB", nil},
		{"DB without lock file", []string{"tune.json"}},
		{"DB with a stale lock file", []string{"tune.json", "tune.json.lock"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "tune.json")
			for _, f := range tt.files {
				switch f {
				case "tune.json":
					if err := sampleDB().WriteFile(path); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			db, err := ReadDB(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(tt.files) > 0; (len(db.Entries) > 0) != want {
				t.Errorf("ReadDB: %d entries, want some: %v", len(db.Entries), want)
			}
			var got []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if diff := cmp.Diff(tt.files, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("files after ReadDB (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteAtomic checks that a write replaces the file whole, leaves no
// temporary behind, and that a failed write leaves the old file intact.
func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "tune.json")
	if err := sampleDB().WriteFile(path); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	if err := NewDB().WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if db, err := LoadDB(path); err != nil || len(db.Entries) != 0 {
		t.Errorf("after overwrite: %v, %v", db, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d files, want only tune.json", len(ents))
	}
	// A DB that cannot be encoded (NaN) fails before touching the file.
	os.WriteFile(path, old, 0o644)
	bad := sampleDB()
	bad.Entries[0].Results[0].US = math.NaN()
	if err := bad.WriteFile(path); err == nil {
		t.Error("WriteFile(NaN) succeeded")
	}
	if now, _ := os.ReadFile(path); string(now) != string(old) {
		t.Error("a failed write changed the file")
	}
	if err := sampleDB().WriteFile(filepath.Join(dir, "no", "such", "dir.json")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("failed writes left %d files", len(ents))
	}
}

// TestUpdateDBConcurrent has goroutines and processes add records to one
// DB at once: with the lock none may be lost.
func TestUpdateDBConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	const procs, goroutines, each = 3, 4, 15
	var cmds []*testingCmd
	for p := 0; p < procs; p++ {
		c := helperCmd(t, "updater", path, fmt.Sprintf("proc%d", p), fmt.Sprint(each))
		var out strings.Builder
		c.Stderr = &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, &testingCmd{c, &out})
	}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := UpdateDB(path, func(db *DB) error {
					db.Upsert(testKey()).Set(Result{Config: fmt.Sprintf("g%d-%03d", g, i), Status: StatusOK, US: 1})
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("updater: %v: %s", err, c.out)
		}
	}
	db, err := LoadDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(db.Entry(testKey()).Results), (procs+goroutines)*each; got != want {
		t.Errorf("%d records, want %d: updates were lost", got, want)
	}
	if _, err := UpdateDB(path, func(*DB) error { return fmt.Errorf("boom") }); err == nil {
		t.Error("UpdateDB ignored f's error")
	}
	if db2, _ := LoadDB(path); len(db2.Entry(testKey()).Results) != (procs+goroutines)*each {
		t.Error("a failed update changed the DB")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the DB's directory holds %q; want the DB alone (no lock file)", names)
	}
}

type testingCmd struct {
	*exec.Cmd
	out *strings.Builder
}

func TestMerge(t *testing.T) {
	t.Parallel()
	k := testKey()
	a, b := NewDB(), NewDB()
	ea, eb := a.Upsert(k), b.Upsert(k)
	eb.Ceilings = Ceilings{GemmTFLOPs: 700, CopyGBs: 4000}
	ea.Set(Result{Config: nameA, Status: StatusTimeout, Date: "2026-12-02T00:00:00Z"})
	eb.Set(Result{Config: nameA, Status: StatusOK, US: 270, Date: "2026-12-01T00:00:00Z"}) // ok beats a newer failure
	ea.Set(Result{Config: nameB, Status: StatusOK, US: 250, Date: "2026-12-01T00:00:00Z"})
	eb.Set(Result{Config: nameB, Status: StatusOK, US: 251, Date: "2026-12-03T00:00:00Z"}) // newer wins
	ea.Set(Result{Config: nameC, Status: StatusOK, US: 300, Date: "2026-12-01T00:00:00Z"})
	eb.Set(Result{Config: nameC, Status: StatusOK, US: 301, Date: "2026-12-01T00:00:00Z"}) // tie: first DB's
	k2 := k
	k2.GPU = "NVIDIA H100"
	b.Upsert(k2).Set(Result{Config: nameA, Status: StatusOK, US: 400})

	got := Merge(a, b)
	want := NewDB()
	e := want.Upsert(k)
	e.Ceilings = eb.Ceilings
	e.Set(Result{Config: nameA, Status: StatusOK, US: 270, Date: "2026-12-01T00:00:00Z"})
	e.Set(Result{Config: nameB, Status: StatusOK, US: 251, Date: "2026-12-03T00:00:00Z"})
	e.Set(Result{Config: nameC, Status: StatusOK, US: 300, Date: "2026-12-01T00:00:00Z"})
	want.Upsert(k2).Set(Result{Config: nameA, Status: StatusOK, US: 400})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	// The inputs are not modified.
	if r, _ := a.Entry(k).Result(nameA); r.Status != StatusTimeout {
		t.Error("Merge modified its input")
	}
}

func TestBestAndBaseline(t *testing.T) {
	t.Parallel()
	e := sampleDB().Entry(testKey())
	best, ok := e.Best()
	if !ok || best.Config != nameB {
		t.Errorf("Best = %s, %v; want %s", best.Config, ok, nameB)
	}
	// A probed kernel never wins, however fast.
	e.Set(Result{Config: nameH, Status: StatusOK, US: 1})
	if best, _ := e.Best(); best.Config != nameB {
		t.Errorf("Best with a fast probed kernel = %s", best.Config)
	}
	if got := e.BaselineUS(); got != 347.5 {
		t.Errorf("BaselineUS = %v, want the median 347.5", got)
	}
	if got := (&Entry{}).BaselineUS(); got != 0 {
		t.Errorf("empty BaselineUS = %v", got)
	}
	// S1 with 780 TFLOP/s and 4255 GB/s: memory-bound, 2*(M*K+I*K+4*M*I) bytes.
	s := testKey().Shape
	wantFloor := 2 * float64(s.M*s.K+s.I*s.K+4*s.M*s.I) / 4255e9 * 1e6
	if got := e.FloorUS(nameA); math.Abs(got-wantFloor) > 1e-9 {
		t.Errorf("FloorUS = %v, want %v", got, wantFloor)
	}
	if got := (&Entry{Key: testKey()}).FloorUS(nameA); got != 0 {
		t.Errorf("FloorUS without ceilings = %v, want 0", got)
	}
	if r := (Result{Status: StatusSlow, US: 5}); !math.IsInf(r.Time(), 1) {
		t.Error("a slow result has a finite Time")
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	db := sampleDB()
	k := testKey()
	// Same problem, other templates (older generator): faster but stale.
	old := k
	old.Templates = "old"
	db.Upsert(old).Set(Result{Config: nameC, Status: StatusOK, US: 100})
	// An unparsable and a debug record must be skipped, and so must a
	// record with a second output in an entry without (a DB written by
	// hand or by an older tune).
	db.Entry(k).Set(Result{Config: "bwd_dswiglu_bogus", Status: StatusOK, US: 1})
	db.Entry(k).Set(Result{Config: nameH, Status: StatusOK, US: 2})
	db.Entry(k).Set(Result{Config: nameOut, Status: StatusOK, US: 3})
	// The store-out mode has its own entry, with a slower winner.
	ko := k
	ko.StoreOut = true
	db.Upsert(ko).Set(Result{Config: nameOut, Status: StatusOK, US: 300})
	db.Upsert(ko).Set(Result{Config: nameA, Status: StatusOK, US: 4}) // wrong mode: skipped

	for _, tt := range []struct {
		name      string
		shape     tiling.Shape
		arch      tiling.Arch
		storeOut  bool
		templates string
		want      string
		stale     bool
		ok        bool
	}{
		{"current", k.Shape, k.Arch, false, "abc123", nameB, false, true},
		{"current, store-out", k.Shape, k.Arch, true, "abc123", nameOut, false, true},
		{"stale only", k.Shape, k.Arch, false, "new", nameC, true, true},
		{"stale only, store-out", k.Shape, k.Arch, true, "new", nameOut, true, true},
		{"other shape", tiling.Shape{M: 1, K: 8, I: 8}, k.Arch, false, "abc123", "", false, false},
		{"other arch", k.Shape, tiling.ArchSM100a, false, "abc123", "", false, false},
	} {
		w, ok := db.Lookup(k.Kernel, tt.arch, k.DType, tt.shape, tt.storeOut, tt.templates)
		if ok != tt.ok || w.Config.Name() != tt.want && tt.ok || w.StaleTemplates != tt.stale {
			t.Errorf("%s: Lookup = %s stale=%v ok=%v; want %s stale=%v ok=%v", tt.name, w.Config.Name(), w.StaleTemplates, ok, tt.want, tt.stale, tt.ok)
		}
		if ok && w.BaselineUS == 0 && tt.name == "current" {
			t.Errorf("%s: no baseline", tt.name)
		}
	}
}

func TestTemplatesHash(t *testing.T) {
	t.Parallel()
	h1, err := TemplatesHash()
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := TemplatesHash()
	if h1 != h2 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h1) {
		t.Errorf("TemplatesHash = %q then %q; want one stable sha256", h1, h2)
	}
}

// TestOutputJSON: a worker's answer line is a flat Result with a
// ceilings field, and decodes back to the same Output.
func TestOutputJSON(t *testing.T) {
	t.Parallel()
	want := Output{Result: Result{Config: nameA, Status: StatusOK, US: 1}, Ceilings: Ceilings{GemmTFLOPs: 1, CopyGBs: 2},
		Phases: []Phase{{Name: "bench", S: 0.5}}}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Output
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["config"] != nameA || m["ceilings"] == nil {
		t.Errorf("worker JSON not flat: %s", b)
	}
}

// TestKeyStoreOut: the store-out mode is part of the key (its own entry,
// its own sort key), and a key without it encodes as before, so earlier
// DBs keep their keys.
func TestKeyStoreOut(t *testing.T) {
	t.Parallel()
	k := testKey()
	ko := k
	ko.StoreOut = true
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	bo, _ := json.Marshal(ko)
	for _, tt := range []struct {
		name string
		got  bool
	}{
		{"plain key has no store_out field", !strings.Contains(string(b), "store_out")},
		{"store-out key has it", strings.Contains(string(bo), `"store_out":true`)},
		{"String differs", k.String() != ko.String() && strings.HasSuffix(ko.String(), "|store_out")},
		{"String of the plain key unchanged", k.String() == "bwd_dswiglu|sm_90a|bf16|16384,768,4608|NVIDIA H200|13000|nvcc 13.0.88|abc123"},
	} {
		if !tt.got {
			t.Errorf("%s: %s / %s", tt.name, b, bo)
		}
	}
	db := NewDB()
	db.Upsert(k).Set(Result{Config: nameA, Status: StatusOK, US: 1})
	db.Upsert(ko).Set(Result{Config: nameOut, Status: StatusOK, US: 2})
	got, err := ParseDB(mustMarshal(t, db))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(db, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if len(got.Entries) != 2 || got.Entry(ko) == nil || got.Entry(k).Results[0].Config != nameA {
		t.Errorf("entries: %+v", got.Entries)
	}
}

func mustMarshal(t *testing.T, db *DB) []byte {
	t.Helper()
	b, err := db.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBestStoreOut: only configs of the key's mode win.
func TestBestStoreOut(t *testing.T) {
	t.Parallel()
	ko := testKey()
	ko.StoreOut = true
	for _, tt := range []struct {
		name    string
		key     Key
		results []Result
		want    string
	}{
		{"plain key skips _out", testKey(), []Result{{Config: nameOut, Status: StatusOK, US: 1}, {Config: nameA, Status: StatusOK, US: 9}}, nameA},
		{"store-out key skips plain", ko, []Result{{Config: nameOut, Status: StatusOK, US: 9}, {Config: nameA, Status: StatusOK, US: 1}}, nameOut},
		{"none of the mode", ko, []Result{{Config: nameA, Status: StatusOK, US: 1}}, ""},
	} {
		e := &Entry{Key: tt.key}
		for _, r := range tt.results {
			e.Set(r)
		}
		best, _ := e.Best()
		if best.Config != tt.want {
			t.Errorf("%s: Best = %q, want %q", tt.name, best.Config, tt.want)
		}
	}
}

// TestFwdGateUpCost: a fwd_gateup entry has the step ledger's cost model,
// with de's bytes only when the config stores it (training).
func TestFwdGateUpCost(t *testing.T) {
	t.Parallel()
	sh := tiling.Shape{M: 16384, K: 768, I: 4608}
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	ceil := Ceilings{GemmTFLOPs: 800, CopyGBs: 4000}
	const (
		train = "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"
		infer = "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
	)
	floor := func(flops, bytes float64) float64 {
		return math.Max(flops/(ceil.GemmTFLOPs*1e12), bytes/(ceil.CopyGBs*1e9)) * 1e6
	}
	flops := 4 * M * K * I
	for _, tt := range []struct {
		name     string
		storeOut bool
		config   string
		want     float64
	}{
		{"training", true, train, floor(flops, 2*(M*K+2*I*K+3*M*I))},
		{"inference", false, infer, floor(flops, 2*(M*K+2*I*K+M*I))},
		{"unparsable name: the key's mode", true, "", floor(flops, 2*(M*K+2*I*K+3*M*I))},
	} {
		e := &Entry{Key: Key{Kernel: tiling.KernelFwdGateUp, Shape: sh, StoreOut: tt.storeOut}, Ceilings: ceil}
		if got := e.FloorUS(tt.config); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: FloorUS = %v, want %v", tt.name, got, tt.want)
		}
		if got := e.FLOPs(); got != flops {
			t.Errorf("%s: FLOPs = %v, want %v", tt.name, got, flops)
		}
	}
}

// TestMergePrefersFull: a full measurement beats a newer screening one.
func TestMergePrefersFull(t *testing.T) {
	t.Parallel()
	full, screen := &DB{}, &DB{}
	full.Upsert(testKey()).Set(Result{Config: nameA, Status: StatusOK, US: 200, Date: "2026-12-01T10:00:00Z"})
	screen.Upsert(testKey()).Set(Result{Config: nameA, Status: StatusOK, US: 190, Date: "2026-12-01T11:00:00Z", Screened: true})
	for _, m := range []*DB{Merge(full, screen), Merge(screen, full)} {
		r, ok := m.Entry(testKey()).Result(nameA)
		if !ok || r.Screened || r.US != 200 {
			t.Errorf("merged %+v, want the full measurement", r)
		}
	}
}

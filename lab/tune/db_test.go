package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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
	// A directory where a DB file is expected is bad input, like a file
	// that is not a DB.
	if _, err := LoadDB(dir); err == nil || !errors.Is(err, ErrInvalidDB) || !strings.Contains(err.Error(), dir+": ") || !strings.Contains(err.Error(), "is a directory, want a results DB file") {
		t.Errorf("LoadDB(a directory) = %v, want an error wrapping ErrInvalidDB naming %s as a directory", err, dir)
	}
	// A read failure is not bad input.
	loop := filepath.Join(dir, "loop.json")
	if err := os.Symlink(loop, loop); err != nil {
		t.Skipf("no symlink loop for a read failure: %v", err)
	}
	if _, err := LoadDB(loop); err == nil || errors.Is(err, ErrInvalidDB) {
		t.Errorf("LoadDB(a symlink loop) = %v, want a read error that is not ErrInvalidDB", err)
	}
}

// Config names of other kinds, arches and dtypes than testKey's.
const (
	nameGateUp = "fwd_gateup_sm90a_bf16_m128n128k64_s5_c1x1_cooperative"
	nameSM100  = "bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta"
	nameFP16   = "bwd_dswiglu_sm90a_fp16_m128n128k64_s4_c1x1_cooperative"
)

// TestLoadDBRejects: every record no tuner writes makes LoadDB fail with
// an error wrapping ErrInvalidDB that names the file and the record. The
// cases mutate sampleDB, whose entry 0 is testKey's with results nameA,
// nameH (timeout), nameB, nameC (slow) in that order.
func TestLoadDBRejects(t *testing.T) {
	t.Parallel()
	const e0 = "entry 0 (bwd_dswiglu|sm_90a|bf16|16384,768,4608|NVIDIA H200|13000|nvcc 13.0.88|abc123)"
	r0 := e0 + ": result 0 (" + nameA + ")"
	r1 := e0 + ": result 1 (" + nameH + ")"
	r3 := e0 + ": result 3 (" + nameC + ")"
	key := func(db *DB) *Key { return &db.Entries[0].Key }
	res := func(i int) func(db *DB) *Result { return func(db *DB) *Result { return &db.Entries[0].Results[i] } }
	for _, tt := range []struct {
		name   string
		mutate func(db *DB)
		want   []string // in the error, besides the path
	}{
		{"ok with negative us", func(db *DB) { res(0)(db).US = -3 }, []string{r0 + ": status ok with us -3, want a finite positive time"}},
		{"ok with zero us", func(db *DB) { res(0)(db).US = 0 }, []string{r0 + ": status ok with us 0"}},
		{"failed with negative us", func(db *DB) { res(3)(db).US = -1 }, []string{r3 + ": us -1, want a finite non-negative value"}},
		{"negative p20", func(db *DB) { res(0)(db).P20US = -1 }, []string{r0 + ": p20_us -1"}},
		{"negative p80", func(db *DB) { res(0)(db).P80US = -1 }, []string{r0 + ": p80_us -1"}},
		{"negative baseline", func(db *DB) { res(1)(db).BaselineUS = -2 }, []string{r1 + ": baseline_us -2"}},
		{"negative rel_err", func(db *DB) { res(0)(db).RelErr = -1e-3 }, []string{r0 + ": rel_err -0.001"}},
		{"negative verify_rel_err", func(db *DB) { res(1)(db).VerifyErr = -1 }, []string{r1 + ": verify_rel_err -1"}},
		{"negative wall_s", func(db *DB) { res(1)(db).WallS = -0.5 }, []string{r1 + ": wall_s -0.5"}},
		{"unknown status", func(db *DB) { res(1)(db).Status = "done" }, []string{r1 + `: unknown status "done"`}},
		{"no status", func(db *DB) { res(1)(db).Status = "" }, []string{r1 + `: unknown status ""`}},
		{"no config name", func(db *DB) { res(1)(db).Config = "" }, []string{e0 + ": result 1: no config name"}},
		{"duplicate config", func(db *DB) {
			e := db.Entries[0]
			e.Results = append(e.Results, e.Results[0])
		}, []string{e0 + ": result 4 (" + nameA + "): duplicate config (result 0 has it too)"}},
		{"config of another kernel", func(db *DB) { res(0)(db).Config = nameGateUp }, []string{e0 + ": result 0 (" + nameGateUp + "): a fwd_gateup sm_90a bf16 config in a bwd_dswiglu sm_90a bf16 entry"}},
		{"config of another arch", func(db *DB) { res(0)(db).Config = nameSM100 }, []string{"result 0 (" + nameSM100 + "): a bwd_dswiglu sm_100a bf16 config"}},
		{"config of another dtype", func(db *DB) { res(0)(db).Config = nameFP16 }, []string{"result 0 (" + nameFP16 + "): a bwd_dswiglu sm_90a fp16 config"}},
		{"impossible shape", func(db *DB) { key(db).Shape = tiling.Shape{M: -5, K: 0, I: 4608} }, []string{
			"entry 0 (bwd_dswiglu|sm_90a|bf16|-5,0,4608|", ": key: tiling: shape M=-5,K=0,I=4608: M=-5: must be a positive integer; K=0: must be a positive integer"}},
		{"unaligned shape", func(db *DB) { key(db).Shape.I = 4607 }, []string{"|16384,768,4607|", "I=4607: must be a multiple of 8"}},
		{"unknown kernel", func(db *DB) { key(db).Kernel = "bwd_swiglu" }, []string{"entry 0 (bwd_swiglu|", `key: tiling: parse kernel "bwd_swiglu": must be one of`}},
		{"no kernel", func(db *DB) { key(db).Kernel = "" }, []string{"entry 0 (|sm_90a", `key: tiling: parse kernel ""`}},
		{"unknown arch", func(db *DB) { key(db).Arch = "sm_80" }, []string{`key: tiling: parse arch "sm_80"`}},
		{"unknown dtype", func(db *DB) { key(db).DType = "fp8" }, []string{`key: tiling: parse dtype "fp8"`}},
		// ParseArch reads "90a" as sm_90a, but a key so spelled matches no
		// lookup.
		{"arch not as its constant", func(db *DB) { key(db).Arch = "90a" }, []string{`: key: arch "90a", want "sm_90a"`}},
		{"kernel not as its constant", func(db *DB) { key(db).Kernel = "BWD_DSWIGLU" }, []string{`: key: kernel "BWD_DSWIGLU", want "bwd_dswiglu"`}},
		{"duplicate key", func(db *DB) { db.Entries[1].Key = db.Entries[0].Key }, []string{
			"entry 1 (bwd_dswiglu|sm_90a|bf16|16384,768,4608|", "): duplicate key (entry 0 has it too)"}},
		{"negative ceiling", func(db *DB) { db.Entries[0].Ceilings.GemmTFLOPs = -780 }, []string{e0 + ": ceilings: gemm_tflops -780, want a finite non-negative rate"}},
		{"negative bandwidth", func(db *DB) { db.Entries[1].Ceilings.CopyGBs = -1 }, []string{"entry 1 (bwd_dswiglu|sm_90a|bf16|8192,4096,14336|", "): ceilings: copy_gbs -1"}},
		{"null entry", func(db *DB) { db.Entries = append(db.Entries, nil) }, []string{"entry 2: null entry"}},
		{"several problems", func(db *DB) {
			res(0)(db).US = -3
			key(db).DType = "fp8"
		}, []string{"2 problems:\n\t" + "entry 0 (bwd_dswiglu|sm_90a|fp8|", `key: tiling: parse dtype "fp8"`, "\n\tentry 0 (", "): result 0 (" + nameA + "): status ok with us -3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := sampleDB()
			tt.mutate(db)
			path := filepath.Join(t.TempDir(), "tune.json")
			if err := os.WriteFile(path, mustMarshal(t, db), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadDB(path)
			if err == nil {
				t.Fatal("LoadDB accepted it")
			}
			if !errors.Is(err, ErrInvalidDB) {
				t.Errorf("LoadDB = %v, which does not wrap ErrInvalidDB", err)
			}
			for _, w := range append([]string{path + ": "}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("LoadDB = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestCheckNonFinite: JSON has no NaN or infinity (a number too large
// for a float64 fails to decode), so check is the one place that can
// meet them; it rejects them all.
func TestCheckNonFinite(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tt := range []struct {
		name   string
		mutate func(e *Entry)
		want   string
	}{
		{"ok with NaN us", func(e *Entry) { e.Results[0].US = nan }, "result 0 (" + nameA + "): status ok with us NaN"},
		{"ok with infinite us", func(e *Entry) { e.Results[0].US = inf }, "status ok with us +Inf"},
		{"failed with infinite us", func(e *Entry) { e.Results[3].US = inf }, "result 3 (" + nameC + "): us +Inf, want a finite"},
		{"NaN p20", func(e *Entry) { e.Results[0].P20US = nan }, "p20_us NaN"},
		{"infinite p80", func(e *Entry) { e.Results[0].P80US = inf }, "p80_us +Inf"},
		{"NaN baseline", func(e *Entry) { e.Results[0].BaselineUS = nan }, "baseline_us NaN"},
		{"infinite rel_err", func(e *Entry) { e.Results[0].RelErr = inf }, "rel_err +Inf"},
		{"NaN verify_rel_err", func(e *Entry) { e.Results[1].VerifyErr = nan }, "verify_rel_err NaN"},
		{"infinite wall_s", func(e *Entry) { e.Results[1].WallS = inf }, "wall_s +Inf"},
		{"NaN ceiling", func(e *Entry) { e.Ceilings.GemmTFLOPs = nan }, "ceilings: gemm_tflops NaN"},
		{"infinite bandwidth", func(e *Entry) { e.Ceilings.CopyGBs = inf }, "ceilings: copy_gbs +Inf"},
	} {
		db := sampleDB()
		tt.mutate(db.Entries[0])
		if err := db.check(); err == nil || !strings.Contains(err.Error(), "entry 0 (") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: check = %v, want %q", tt.name, err, tt.want)
		}
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	os.WriteFile(path, []byte(`{"format":"swigen-tune-v1","entries":[{"key":{},"ceilings":{"gemm_tflops":1e999,"copy_gbs":1},"results":[]}]}`), 0o644)
	if _, err := LoadDB(path); !errors.Is(err, ErrInvalidDB) {
		t.Errorf("LoadDB(1e999) = %v, want an error wrapping ErrInvalidDB", err)
	}
}

// TestCheckLimitsProblems: a badly damaged DB's error lists the first
// maxProblems problems and counts the rest.
func TestCheckLimitsProblems(t *testing.T) {
	t.Parallel()
	db := sampleDB()
	e := db.Upsert(testKey())
	e.Results = nil
	for i := range maxProblems + 3 {
		e.Results = append(e.Results, Result{Config: fmt.Sprintf("r%02d", i), Status: StatusOK})
	}
	err := db.check()
	if err == nil {
		t.Fatal("check accepted it")
	}
	lines := strings.Split(err.Error(), "\n\t")
	want := []string{fmt.Sprintf("%d problems:", maxProblems+1)}
	for i := range maxProblems {
		want = append(want, fmt.Sprintf("entry 0 (%s): result %d (r%02d): status ok with us 0, want a finite positive time", testKey(), i, i))
	}
	want = append(want, "and 3 more")
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestLoadDBAccepts: what a DB may hold that looks odd but is no error
// loads, unchanged.
func TestLoadDBAccepts(t *testing.T) {
	t.Parallel()
	ko := testKey()
	ko.StoreOut = true
	for _, tt := range []struct {
		name string
		db   func() *DB
	}{
		{"empty", NewDB},
		{"entry without results", func() *DB { db := NewDB(); db.Upsert(testKey()); return db }},
		// Old DBs keep records of configs since removed; winners skip them.
		{"config name that does not parse", func() *DB {
			db := NewDB()
			db.Upsert(testKey()).Set(Result{Config: "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_removed", Status: StatusOK, US: 1})
			return db
		}},
		{"probed kernel", func() *DB {
			db := NewDB()
			db.Upsert(testKey()).Set(Result{Config: nameH, Status: StatusOK, US: 2})
			return db
		}},
		// Older tunes recorded both modes under one key; winners skip
		// the other mode's.
		{"config of the other mode", func() *DB {
			db := NewDB()
			db.Upsert(ko).Set(Result{Config: nameA, Status: StatusOK, US: 3})
			return db
		}},
		{"failed records with zeros", func() *DB {
			db := NewDB()
			e := db.Upsert(testKey())
			for i, st := range []Status{StatusWrong, StatusCompile, StatusFault, StatusTimeout, StatusSlow} {
				e.Set(Result{Config: fmt.Sprintf("c%d", i), Status: st})
			}
			return db
		}},
		{"unmeasured ceilings", func() *DB {
			db := NewDB()
			db.Upsert(testKey()).Ceilings = Ceilings{GemmTFLOPs: 0, CopyGBs: 4000}
			return db
		}},
		{"sample", sampleDB},
	} {
		want := tt.db()
		path := filepath.Join(t.TempDir(), "tune.json")
		if err := want.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		got, err := LoadDB(path)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCommittedDBsLoad: every results DB committed under
// bench/results/tune loads (the suite DBs feed tiling/measured.json; the
// others are documented sweeps users read with emit --tuned).
func TestCommittedDBsLoad(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../bench/results/tune/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		if filepath.Base(p) == "index.json" {
			continue // the index of the sweeps, not a DB
		}
		n++
		db, err := ReadDB(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(db.Entries) == 0 {
			t.Errorf("%s: no entries", p)
		}
	}
	if n == 0 {
		t.Fatal("no DBs under bench/results/tune")
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

// TestUpdateDBRefusesInvalid: an update that leaves a record LoadDB
// would refuse writes nothing, so the DB stays readable, and the error is
// not ErrInvalidDB: the file was fine, the caller's record was not.
func TestUpdateDBRefusesInvalid(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := sampleDB().WriteFile(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	_, err := UpdateDB(path, func(db *DB) error {
		db.Upsert(testKey()).Set(Result{Config: nameA, Status: StatusOK})
		return nil
	})
	if err == nil || errors.Is(err, ErrInvalidDB) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "result 0 ("+nameA+"): status ok with us 0") {
		t.Errorf("UpdateDB = %v, want an error naming %s and the record, not ErrInvalidDB", err, path)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refused update changed the DB")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("a refused update left %d files, want the DB alone", len(ents))
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

// TestKeyStringCollision: distinct keys may share a String (a GPU name
// with a "|"), so the sort by String has ties; they stay distinct
// entries, and a DB read and written again keeps its order and bytes.
func TestKeyStringCollision(t *testing.T) {
	t.Parallel()
	db := NewDB()
	for m := 1; m <= 12; m++ {
		for _, v := range []struct {
			gpu      string
			driver   int
			compiler string
		}{{"x|1|2", 3, "c"}, {"x|1", 2, "3|c"}, {"x", 1, "2|3|c"}} {
			k := testKey()
			k.Shape.M = m
			k.GPU, k.Driver, k.Compiler = v.gpu, v.driver, v.compiler
			db.Entries = append(db.Entries, &Entry{Key: k, Results: []Result{{Config: nameA, Status: StatusOK, US: float64(len(db.Entries) + 1)}}})
		}
	}
	if a, b := db.Entries[0].Key, db.Entries[1].Key; a.String() != b.String() || a == b {
		t.Fatalf("keys %v and %v: want distinct keys with one String", a, b)
	}
	// Any file order: each loads to an order that loads to itself.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rng.Shuffle(len(db.Entries), func(i, j int) { db.Entries[i], db.Entries[j] = db.Entries[j], db.Entries[i] })
		got, err := ParseDB(mustMarshal(t, db))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Entries) != len(db.Entries) {
			t.Fatalf("%d entries, want %d", len(got.Entries), len(db.Entries))
		}
		b1 := mustMarshal(t, got)
		again, err := ParseDB(b1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("round trip (-loaded +reloaded):\n%s", diff)
		}
		if b2 := mustMarshal(t, again); string(b1) != string(b2) {
			t.Fatal("re-encoding changed the bytes")
		}
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

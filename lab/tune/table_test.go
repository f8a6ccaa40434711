package tune

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestMeasuredTableUpToDate: the table swigen embeds is exactly what
// `swigen tune table` builds from the committed suite DBs.
func TestMeasuredTableUpToDate(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../bench/results/tune/suite-*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no suite DBs: %v", err)
	}
	var dbs []*DB
	var rel []string // as the command is run from the repository's root
	for _, p := range paths {
		db, err := ReadDB(p)
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
		rel = append(rel, strings.TrimPrefix(p, "../../"))
	}
	planDirs, err := filepath.Glob("../../bench/results/plan/*")
	if err != nil {
		t.Fatal(err)
	}
	plans, err := ReadPlanRecords(planDirs)
	if err != nil {
		t.Fatal(err)
	}
	var relPlans []string
	for _, d := range planDirs {
		relPlans = append(relPlans, strings.TrimPrefix(d, "../../"))
	}
	cmd := TableCommand(rel, relPlans, "tiling/measured.json")
	tab, err := Table(dbs, plans, cmd)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../tiling/measured.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tiling/measured.json is not what the suite DBs give; regenerate it: %s\n%s", cmd, cmp.Diff(string(want), string(got)))
	}
}

// TestTable: one row per key with a full winner, sorted; screened-only
// keys are skipped; two winners for one shape, or two GPUs for one arch,
// are errors.
func TestTable(t *testing.T) {
	t.Parallel()
	k1, k2 := testKey(), testKey()
	k2.Shape = tiling.Shape{M: 128, K: 768, I: 4608}
	cands := testCands(3)
	mk := func(k Key, rs ...Result) *DB {
		db := NewDB()
		e := db.Upsert(k)
		for _, r := range rs {
			e.Set(r)
		}
		return db
	}
	ok := func(i int, us float64, screened bool) Result {
		return Result{Config: cands[i].Name(), Status: StatusOK, US: us, BaselineUS: 300, Screened: screened}
	}
	screenedOnly := k1
	screenedOnly.Shape = tiling.Shape{M: 64, K: 64, I: 64}
	tab, err := Table([]*DB{mk(k1, ok(0, 250, false), ok(1, 200, true), ok(2, 240, false)), mk(k2, ok(1, 90, false)),
		mk(screenedOnly, ok(0, 1, true))}, nil, "src")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Rows {
		got = append(got, r.Shape.String()+" "+r.Config)
	}
	want := []string{k2.Shape.String() + " " + cands[1].Name(), k1.Shape.String() + " " + cands[2].Name()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if _, err := Table([]*DB{mk(k1, ok(0, 250, false)), mk(k1, ok(1, 240, false))}, nil, ""); err != nil {
		t.Errorf("one key in two DBs merges into one entry? got %v", err)
	}
	other := k1
	other.Driver = 12000
	if _, err := Table([]*DB{mk(k1, ok(0, 250, false)), mk(other, ok(1, 240, false))}, nil, ""); err == nil || !strings.Contains(err.Error(), "two winners") {
		t.Errorf("two winners for one shape: %v", err)
	}
	gpu := k2
	gpu.GPU = "NVIDIA H100"
	if _, err := Table([]*DB{mk(k1, ok(0, 250, false)), mk(gpu, ok(1, 240, false))}, nil, ""); err == nil || !strings.Contains(err.Error(), "one table per GPU kind") {
		t.Errorf("two GPUs: %v", err)
	}
}

// TestTableGemmMajors: a gemm shape tuned in two pairs of operand majors
// (two keys) gives two rows, ordered by majors; a key's string names its
// majors.
func TestTableGemmMajors(t *testing.T) {
	t.Parallel()
	sh := tiling.Shape{M: 4096, K: 4096, I: 7168}
	var dbs []*DB
	var want []string
	for _, m := range [][2]tiling.Major{{tiling.MNMajor, tiling.MNMajor}, {tiling.KMajor, tiling.KMajor}} {
		k := testKey()
		k.Kernel, k.Shape, k.MajorA, k.MajorB = tiling.KernelGEMM, sh, m[0], m[1]
		c := tiling.WithMajors(tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, tiling.BF16), m[0], m[1])[0]
		db := NewDB()
		db.Upsert(k).Set(Result{Config: c.Name(), Status: StatusOK, US: 100, BaselineUS: 101})
		dbs = append(dbs, db)
		want = append([]string{c.Name()}, want...)
	}
	tab, err := Table(dbs, nil, "src")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Rows {
		got = append(got, r.Config)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if k := (Key{Kernel: tiling.KernelGEMM, MajorA: tiling.KMajor, MajorB: tiling.MNMajor}); !strings.HasSuffix(k.String(), "|a=k,b=mn") {
		t.Errorf("key %s: the majors are not in its string", k)
	}
}

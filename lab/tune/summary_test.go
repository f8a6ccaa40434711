package tune

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or with -update rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestWriteSummary: a one-shape tune's summary, a suite's, and the lines
// a tune stopped while screening prints instead of a winner.
func TestWriteSummary(t *testing.T) {
	t.Parallel()
	db := sampleDB()
	en := db.Entry(testKey())
	var b bytes.Buffer
	WriteSummary(&b, &SweepResult{Entry: en, Ran: 3, Plan: Plan{Skipped: []string{nameA}}}, "tune.json", 95*time.Second)

	scr := &Entry{Key: testKey()}
	scr.Set(Result{Config: nameA, Status: StatusOK, US: 260, BaselineUS: 347, Screened: true})
	WriteSummary(&b, &SweepResult{Entry: scr}, "tune.json", time.Second)
	none := &Entry{Key: testKey()}
	none.Set(Result{Config: nameA, Status: StatusWrong, Error: "mismatch"})

	k2 := testKey()
	k2.Shape = tiling.Shape{M: 8192, K: 4096, I: 14336}
	done := []*SweepResult{{Entry: en}, {Entry: db.Entry(k2)}, {Entry: scr}, {Entry: none}}
	sp := WriteSuiteSummary(&b, done, 3*time.Minute)
	golden(t, "summary.golden", b.Bytes())
	if want := []ShapeSpeedup{{Shape: testKey().Shape, Speedup: 347.0 / 250, Kernel: testKey().Kernel}}; !cmp.Equal(want, sp) {
		t.Errorf("speedups %+v, want %+v: only winners timed against the baseline", sp, want)
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Progress
		want string
	}{
		{Progress{Done: 1, Total: 4, Result: Result{Config: nameA, Status: StatusOK, US: 250, BaselineUS: 500, Device: 1, WallS: 2.5}},
			"[1/4, ETA 30s] " + nameA + "  ok    250.0 us  2.00x baseline  dev 1, 2.5s"},
		{Progress{Done: 2, Total: 4, Result: Result{Config: nameC, Status: StatusSlow, US: 900}, Best: Result{Status: StatusOK, US: 250}},
			"[2/4, ETA 20s] " + nameC + "  slow (900.0 us, stopped early)  (best 250.0 us)  dev 0, 0.0s"},
		{Progress{Done: 4, Total: 4, Result: Result{Config: nameH, Status: StatusTimeout, Error: "no result\n  within 2m"}},
			"[4/4, ETA 0s] " + nameH + "  timeout: no result within 2m  dev 0, 0.0s"},
		{Progress{Done: 1, Total: 1, Result: Result{Config: nameA, Status: StatusFault, Error: strings.Repeat("x", 200)}},
			"[1/1, ETA 0s] " + nameA + "  fault: " + strings.Repeat("x", 152) + "…  dev 0, 0.0s"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ProgressLine(tt.p, time.Duration(tt.p.Done)*10*time.Second)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

func TestNotes(t *testing.T) {
	t.Parallel()
	s := tiling.Shape{M: 1, K: 2, I: 3}
	got := []string{ModeNote(tiling.KernelFwdGateUp, true, "; "), ModeNote(tiling.KernelFwdGateUp, false, "; "),
		ModeNote(tiling.KernelBwdDSwiGLU, true, ", "), ModeNote(tiling.KernelBwdDSwiGLU, false, ", "),
		StoreOutFlag(true), StoreOutFlag(false), ShapeDims(tiling.KernelGEMM, s), ShapeDims(tiling.KernelBwdDSwiGLU, s)}
	want := []string{"; training: de and out stored (--store-out)", "; inference: only out stored (--store-out for training)",
		", the recomputed out also stored (--store-out)", "", " --store-out", "", "M=1 N=3 K=2", "M=1 K=2 I=3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteSummaryGemmShape: the summary's emit line gives a gemm's shape
// in the order emit and tune read it (M,N,K), so pasting it tunes nothing
// else.
func TestWriteSummaryGemmShape(t *testing.T) {
	t.Parallel()
	k := testKey()
	k.Kernel = tiling.KernelGEMM
	k.Shape = tiling.Shape{M: 4096, K: 2048, I: 7168} // N = 7168
	en := &Entry{Key: k}
	en.Set(Result{Config: "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative", Status: StatusOK, US: 100, BaselineUS: 110})
	var b bytes.Buffer
	WriteSummary(&b, &SweepResult{Entry: en}, "tune.json", time.Second)
	if want := "--kernel gemm --arch " + string(k.Arch) + " --dtype " + string(k.DType) + " --shape 4096,7168,2048)"; !strings.Contains(b.String(), want) {
		t.Errorf("summary does not say %q:\n%s", want, b.String())
	}
}

// TestSuiteRowOrder: a suite row writes its shape in the kind's --shape
// order, M,N,K for gemm (Shape.I is N), so it reads back as the tuned shape.
func TestSuiteRowOrder(t *testing.T) {
	t.Parallel()
	for _, k := range []tiling.Kernel{tiling.KernelBwdDSwiGLU, tiling.KernelGEMM} {
		key := testKey()
		key.Kernel, key.Shape = k, tiling.Shape{M: 4096, K: 768, I: 4608}
		row := SuiteRow(&Entry{Key: key})
		dims := strings.Join(strings.Fields(strings.Split(row, "  winner")[0]), "")
		got, err := tiling.ParseKindShape(k, dims)
		if err != nil || got != key.Shape {
			t.Errorf("%s: row %q reads back as %v (%v), want %v", k, row, got, err, key.Shape)
		}
	}
}

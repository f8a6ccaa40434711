package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestNewRecord: the record's times come from the report's rows in order
// (swigen, baseline, its GEMM, its elementwise kernel); the plan's fields
// only when the unfused path was timed; an infinite error is -1.
func TestNewRecord(t *testing.T) {
	t.Parallel()
	row := func(us float64, n int) Row {
		return Row{T: Stats{Median: us, P20: us - 1, P80: us + 1, N: n}, PctFloor: 50}
	}
	rep := &BwdReport{Shape: tiling.Shape{M: 128, K: 64, I: 256}, FloorUS: 120, Speedup: 1.25, RelErr: 1e-3, Sets: 3,
		Ceil: Ceilings{GemmTFLOPs: 800, CopyGBs: 4000}, Rows: []Row{row(240, 40), row(300, 40), row(200, 40), row(90, 40)}}
	h := Header{Kernel: "bwd_dswiglu", Config: "c"}
	pl := tiling.Plan{Path: tiling.PathFused, Why: "w"}
	want := Record{Header: h, US: 240, P20US: 239, P80US: 241, BaselineUS: 300, GemmUS: 200, EwUS: 90, FloorUS: 120,
		Speedup: 1.25, PctFloor: 50, RelErr: 1e-3, GemmTFLOPs: 800, CopyGBs: 4000, Reps: 40, Sets: 3}
	if d := cmp.Diff(want, NewRecord(h, rep, NewPlanOutcome(pl, rep))); d != "" {
		t.Errorf("fused only (-want +got):\n%s", d)
	}
	rep.Unfused = &Unfused{Gemm: "g", US: 200, GemmUS: 150, RelErr: math.Inf(1)}
	pl.Path = tiling.PathUnfused
	want.UnfusedUS, want.UnfusedGemmUS, want.UnfusedGemm, want.UnfusedRelErr = 200, 150, "g", -1
	want.Plan, want.PlanWhy, want.PlanUS, want.PlanSpeedup = tiling.PathUnfused, "w", 200, 1.5
	if d := cmp.Diff(want, NewRecord(h, rep, NewPlanOutcome(pl, rep))); d != "" {
		t.Errorf("with the unfused path (-want +got):\n%s", d)
	}
}

// TestWriteRecord: the file is indented JSON with a final newline under
// the time-first name, in a directory created for it.
func TestWriteRecord(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	name := RecordName(now, "k+trace", tiling.Shape{M: 1, K: 2, I: 3})
	if name != "20261201T100000_k+trace_1x2x3.json" {
		t.Errorf("RecordName = %s", name)
	}
	b, err := MarshalRecord(Record{Header: Header{Kernel: "gemm"}, US: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "new")
	p, err := WriteRecord(dir, name, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	if err := json.Unmarshal(got, &r); err != nil || r.Kernel != "gemm" || r.US != 1 || got[len(got)-1] != '\n' || got[1] != '\n' {
		t.Errorf("record file %q (err %v)", got, err)
	}
}

package tune

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
)

// writeRecord writes a bench record of the fields ReadPlanRecords reads.
func writeRecord(t *testing.T, dir, file string, rec map[string]any) {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// with is r with key set to v.
func with(r map[string]any, key string, v any) map[string]any {
	r[key] = v
	return r
}

// TestTablePlans: records that timed the unfused path land in their
// shape's row; others are skipped; a record with no tuned row, two for
// one row, or one of a probed kernel are errors.
func TestTablePlans(t *testing.T) {
	t.Parallel()
	k := testKey()
	c := testCands(1)[0]
	db := NewDB()
	db.Upsert(k).Set(Result{Config: c.Name(), Status: StatusOK, US: 250, BaselineUS: 300})
	const gemm = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"
	rec := func(shape tiling.Shape, unfused float64) map[string]any {
		return map[string]any{"kernel": k.Kernel, "arch": k.Arch, "dtype": k.DType, "shape": shape, "config": c.Name(),
			"us": 240.0, "baseline_us": 300.0, "unfused_us": unfused, "unfused_gemm": gemm, "unfused_rel_err": 3e-3, "gpu": k.GPU}
	}
	dir := t.TempDir()
	writeRecord(t, dir, "a.json", rec(k.Shape, 235))
	writeRecord(t, dir, "b.json", rec(tiling.Shape{M: 1, K: 8, I: 8}, 0)) // no unfused path timed
	plans, err := ReadPlanRecords([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Table([]*DB{db}, plans, "src")
	if err != nil {
		t.Fatal(err)
	}
	want := &tiling.PlanMeasure{FusedUS: 240, UnfusedUS: 235, BaselineUS: 300, Fused: c.Name(), Gemm: gemm}
	if d := cmp.Diff(want, tab.Rows[0].Plan); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	g, err := tiling.ParseName(gemm)
	if err != nil {
		t.Fatal(err)
	}
	// 235 us against 240 is 2.1% for the unfused path: within the run-to-run
	// noise (tiling.RequiredMargin), so the point keeps the fused kernel.
	if got := tab.PlanPoints(c, g); len(got) != 1 || got[0].Path != tiling.PathFused || got[0].UnfusedSpeedup != 240.0/235 {
		t.Errorf("plan points %v, want one, fused, speedup 240/235", got)
	}

	for _, tt := range []struct {
		name    string
		recs    []map[string]any
		wantErr string
	}{
		{"no row", []map[string]any{rec(tiling.Shape{M: 64, K: 64, I: 64}, 10)}, "no tuned row"},
		{"twice", []map[string]any{rec(k.Shape, 235), rec(k.Shape, 236)}, "two plan records"},
		{"probed", []map[string]any{with(rec(k.Shape, 235), "probe", "trace")}, "probe trace"},
		{"wrong unfused output", []map[string]any{with(rec(k.Shape, 235), "unfused_rel_err", -1.0)}, "unfused_rel_err -1"},
		{"other GPU", []map[string]any{with(rec(k.Shape, 235), "gpu", "NVIDIA H100")}, "measured on NVIDIA H100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, r := range tt.recs {
				writeRecord(t, dir, string(rune('a'+i))+".json", r)
			}
			plans, err := ReadPlanRecords([]string{dir})
			if err == nil {
				_, err = Table([]*DB{db}, plans, "src")
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestPlanReadsBenchRecords: a record written as swigen bench writes it
// (bench.NewRecord, MarshalRecord, WriteRecord) is a plan point, so the
// reader and the writer share one type.
func TestPlanReadsBenchRecords(t *testing.T) {
	t.Parallel()
	k := testKey()
	c := testCands(1)[0]
	const gemm = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"
	row := func(us float64) bench.Row { return bench.Row{T: bench.Stats{Median: us}} }
	rep := &bench.BwdReport{Shape: k.Shape, Rows: []bench.Row{row(240), row(300), row(200), row(90)},
		Unfused: &bench.Unfused{Gemm: gemm, US: 235, GemmUS: 150}}
	pl := tiling.Plan{Path: tiling.PathUnfused, Why: "measured"}
	h := bench.Header{Kernel: string(k.Kernel), Arch: string(k.Arch), DType: string(k.DType), Shape: k.Shape, Config: c.Name()}
	b, err := bench.MarshalRecord(bench.NewRecord(h, rep, bench.NewPlanOutcome(pl, rep)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := bench.WriteRecord(dir, "a.json", b); err != nil {
		t.Fatal(err)
	}
	plans, err := ReadPlanRecords([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []PlanRecord{{Kernel: k.Kernel, Arch: k.Arch, DType: k.DType, StoreOut: c.StoreOut, Shape: k.Shape,
		Measure: tiling.PlanMeasure{FusedUS: 240, UnfusedUS: 235, BaselineUS: 300, Fused: c.Name(), Gemm: gemm}}}
	if d := cmp.Diff(want, plans); d != "" {
		t.Errorf("plan records (-want +got):\n%s", d)
	}
}

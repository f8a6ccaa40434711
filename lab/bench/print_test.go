package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestReportTextGolden pins the text of a bwd_dswiglu and a fwd_gateup
// report, the plan line (taken and measured paths equal and not), the
// summary line and a gemm report.
// go test ./lab/bench -run ReportTextGolden -update rewrites the file.
func TestReportTextGolden(t *testing.T) {
	t.Parallel()
	var out, log bytes.Buffer
	bwd, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	rep := sampleReport()
	rep.Warnings = []string{"outputs differ"}
	rep.Write(&out, &log, bwd)
	pr := NewPlanOutcome(tiling.Plan{Path: tiling.PathFused, Why: "measured"}, rep)
	pr.WritePlan(&out, rep)
	forced := NewPlanOutcome(tiling.Plan{Path: tiling.PathUnfused, Why: "forced"}, rep)
	forced.Measured = tiling.PathFused
	forced.WritePlan(&out, rep)
	out.WriteString(summaryLine(bwd, rep.Shape, rep, pr) + "\n")
	gu := bwd
	gu.Kernel, gu.StoreOut = tiling.KernelFwdGateUp, true
	rep.Unfused, rep.Warnings = nil, nil
	rep.Write(&out, &log, gu)
	out.WriteString(summaryLine(gu, rep.Shape, rep, pr) + "\n")
	WriteCeilings(&out, tiling.BF16, rep.Ceil)
	g := &GemmReport{M: 8192, N: 8192, K: 8192, Config: "gemm_" + strings.Repeat("x", 70), Ceil: rep.Ceil, FloorUS: 1400, Rows: []Row{rep.Rows[0], {Name: "cuBLAS " + strings.Repeat("y", 70), T: rep.Rows[1].T}}, Ratio: 0.98, RelErr: 1e-4, Sets: 2, Grid: 132}
	g.Write(&out)
	if log.String() != "warning: outputs differ\n" {
		t.Errorf("log %q", log.String())
	}
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), out.String()); d != "" {
		t.Errorf("report text (-want +got):\n%s", d)
	}
}

// TestWriteSpeedupStats: nothing for fewer than two; else the minimum,
// named by its suite model, and the geometric mean.
func TestWriteSpeedupStats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		xs   []ShapeSpeedup
		want string
	}{
		{nil, ""},
		{[]ShapeSpeedup{{Shape: tiling.Shape{M: 1, K: 8, I: 8}, Speedup: 2}}, ""},
		{[]ShapeSpeedup{{Shape: tiling.Shape{M: 16384, K: 768, I: 4608}, Speedup: 1.5}, {Shape: tiling.Shape{M: 8192, K: 8192, I: 3584}, Speedup: 0.96}, {Shape: tiling.Shape{M: 1, K: 8, I: 8}, Speedup: 1.25}},
			"fused kernel speedup over 3 measurements (config and shape): min 0.96x (8192,8192,3584, LLaMA-3 70B, TP 8), geomean 1.22x\n"},
		{[]ShapeSpeedup{{Shape: tiling.Shape{M: 1, K: 8, I: 8}, Speedup: 1}, {Shape: tiling.Shape{M: 2, K: 8, I: 8}, Speedup: 4}},
			"fused kernel speedup over 2 measurements (config and shape): min 1.00x (1,8,8), geomean 2.00x\n"},
		// gemm names its shape M,N,K (Shape.I is N), as its --shape reads it.
		{[]ShapeSpeedup{{Shape: tiling.Shape{M: 4096, K: 768, I: 4608}, Speedup: 0.5, Kernel: tiling.KernelGEMM}, {Shape: tiling.Shape{M: 1, K: 8, I: 8}, Speedup: 2, Kernel: tiling.KernelGEMM}},
			"fused kernel speedup over 2 measurements (config and shape): min 0.50x (4096,4608,768), geomean 1.00x\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		WriteSpeedupStats(&b, "fused kernel", tt.xs)
		if d := cmp.Diff(tt.want, b.String()); d != "" {
			t.Errorf("%v (-want +got):\n%s", tt.xs, d)
		}
	}
}

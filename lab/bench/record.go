package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/swigen/swigen/tiling"
)

// Header is what every bench/results record starts with: what ran,
// where, when and how (docs/DESIGN.md#bench-result-records). The fields
// are strings, not tiling's kinds, because a record may describe more
// than one kernel (bench mlp's kernel is "mlp_step").
type Header struct {
	Kernel   string       `json:"kernel"`
	Arch     string       `json:"arch"`
	DType    string       `json:"dtype"`
	Shape    tiling.Shape `json:"shape"`
	Config   string       `json:"config"`
	Probe    string       `json:"probe,omitempty"` // the probe the kernel was built with
	GPU      string       `json:"gpu"`
	Driver   int          `json:"driver"`
	Revision string       `json:"revision"`
	Date     string       `json:"date"`
	Command  string       `json:"command"`
}

// Record is the bench/results record of one kernel at one shape
// (docs/DESIGN.md#bench-result-records); lab/tune reads the plan
// points back from it.
type Record struct {
	Header
	US         float64 `json:"us"`
	P20US      float64 `json:"p20_us"`
	P80US      float64 `json:"p80_us"`
	BaselineUS float64 `json:"baseline_us"`
	GemmUS     float64 `json:"baseline_gemm_us"`
	EwUS       float64 `json:"baseline_elementwise_us"`
	FloorUS    float64 `json:"floor_us"`
	Speedup    float64 `json:"speedup"`
	PctFloor   float64 `json:"pct_of_floor"`
	RelErr     float64 `json:"rel_err"`
	GemmTFLOPs float64 `json:"ceiling_gemm_tflops"`
	CopyGBs    float64 `json:"ceiling_copy_gbs"`
	Reps       int     `json:"reps"`
	Sets       int     `json:"rotated_sets"`
	// The dispatch plan, for kinds with an unfused path: that path's
	// time (swigen gemm, then the elementwise kernel) and its gemm's,
	// in the same run, and the path the plan took with its time.
	UnfusedUS     float64     `json:"unfused_us,omitempty"`
	UnfusedGemmUS float64     `json:"unfused_gemm_us,omitempty"`
	UnfusedGemm   string      `json:"unfused_gemm,omitempty"`
	UnfusedRelErr float64     `json:"unfused_rel_err,omitempty"`
	Plan          tiling.Path `json:"plan,omitempty"`
	PlanWhy       string      `json:"plan_why,omitempty"`
	PlanUS        float64     `json:"plan_us,omitempty"`
	PlanSpeedup   float64     `json:"plan_speedup,omitempty"`
}

// PlanOutcome is what the dispatch plan took at one shape and how fast
// that was.
type PlanOutcome struct {
	Path     tiling.Path
	Why      string
	US       float64 // the taken path's median
	Speedup  float64 // the baseline's median over US
	Measured tiling.Path
}

// NewPlanOutcome is the plan pl's outcome in rep: the taken path's time
// (the fused kernel's when the unfused path was not timed) against the
// same run's baseline, and the path this run's measurement alone would
// take.
func NewPlanOutcome(pl tiling.Plan, rep *BwdReport) PlanOutcome {
	r := PlanOutcome{Path: pl.Path, Why: pl.Why, US: rep.Rows[0].T.Median}
	if rep.Unfused != nil {
		r.Measured = rep.Unfused.Path(rep.Rows[0].T.Median)
		if pl.Path == tiling.PathUnfused {
			r.US = rep.Unfused.US
		}
	}
	if r.US > 0 {
		r.Speedup = rep.Rows[1].T.Median / r.US
	}
	return r
}

// NewRecord is rep's record under header h; the plan's fields are filled
// only when rep timed the unfused path.
func NewRecord(h Header, rep *BwdReport, pr PlanOutcome) Record {
	r := Record{Header: h,
		US: rep.Rows[0].T.Median, P20US: rep.Rows[0].T.P20, P80US: rep.Rows[0].T.P80,
		BaselineUS: rep.Rows[1].T.Median, GemmUS: rep.Rows[2].T.Median, EwUS: rep.Rows[3].T.Median,
		FloorUS: rep.FloorUS, Speedup: rep.Speedup, PctFloor: rep.Rows[0].PctFloor, RelErr: rep.RelErr,
		GemmTFLOPs: rep.Ceil.GemmTFLOPs, CopyGBs: rep.Ceil.CopyGBs, Reps: rep.Rows[0].T.N, Sets: rep.Sets,
	}
	if u := rep.Unfused; u != nil {
		r.UnfusedUS, r.UnfusedGemmUS, r.UnfusedGemm, r.UnfusedRelErr = u.US, u.GemmUS, u.Gemm, FiniteOr(u.RelErr)
		r.Plan, r.PlanWhy, r.PlanUS, r.PlanSpeedup = pr.Path, pr.Why, pr.US, pr.Speedup
	}
	return r
}

// RecordName is the file name of a record of the kernel probedName at
// sh written at now: time first, so a directory lists in run order.
func RecordName(now time.Time, probedName string, sh tiling.Shape) string {
	return fmt.Sprintf("%s_%s_%dx%dx%d.json", now.Format("20060102T150405"), probedName, sh.M, sh.K, sh.I)
}

// MarshalRecord is v as a record file's bytes: indented JSON and a
// final newline.
func MarshalRecord(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteRecord writes b to dir/name, creating dir.
func WriteRecord(dir, name string, b []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, b, 0o644)
}

// FiniteOr maps a non-finite error (JSON has no Inf) to -1.
func FiniteOr(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return -1
	}
	return x
}

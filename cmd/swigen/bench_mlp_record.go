package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/tiling"
)

// mlpSegmentRecord is one segment's choice in the JSON record.
type mlpSegmentRecord struct {
	Segment      string  `json:"segment"`
	Chosen       string  `json:"chosen"`
	SwigenConfig string  `json:"swigen_config,omitempty"`
	SwigenNote   string  `json:"swigen_note,omitempty"`
	RelErr       float64 `json:"rel_err_vs_baseline"` // -1: not compared
	FloorUS      float64 `json:"floor_us"`
}

// mlpCheckRecord is one checked step in the JSON record.
type mlpCheckRecord struct {
	Mode   string       `json:"mode"`
	Shape  tiling.Shape `json:"shape"`
	Pass   bool         `json:"pass"`
	RelErr float64      `json:"rel_err"` // worst output; -1 when infinite (NaN or poison)
	Used   []string     `json:"segments"`
}

// benchMLPResult is the bench/results record of one `bench mlp` shape:
// The docs/DESIGN.md#bench-result-records fields for the whole step (us: end to end with
// the chosen implementations; baseline_us: all-baseline end to end;
// floor_us: the sum of the segment floors), plus the ledger.
type benchMLPResult struct {
	recordHeader
	US           float64            `json:"us"`
	P20US        float64            `json:"p20_us"`
	P80US        float64            `json:"p80_us"`
	BaselineUS   float64            `json:"baseline_us"`
	FloorUS      float64            `json:"floor_us"`
	Speedup      float64            `json:"speedup"`
	PctFloor     float64            `json:"pct_of_floor"`
	RelErr       float64            `json:"rel_err"`
	GemmTFLOPs   float64            `json:"ceiling_gemm_tflops"`
	CopyGBs      float64            `json:"ceiling_copy_gbs"`
	Reps         int                `json:"reps"`
	Sets         int                `json:"rotated_sets"`
	RecomputeOut bool               `json:"recompute_out"`
	ActBytes     float64            `json:"activation_bytes"`
	ActSaved     float64            `json:"activation_bytes_saved"`
	Segments     []mlpSegmentRecord `json:"segments"`
	Rows         []mlp.Row          `json:"ledger"`
	Checks       []mlpCheckRecord   `json:"checks,omitempty"`
}

// finiteOr maps a non-finite error (JSON has no Inf) to -1.
func finiteOr(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return -1
	}
	return x
}

func mlpRecord(o *benchMLPOptions, gpu string, driver int, arch string, led *mlp.Ledger, checks []mlp.CheckResult, now time.Time) benchMLPResult {
	tot := led.Totals()[2]
	kept, saved := perfmodel.Activations(led.Shape, led.RecomputeOut)
	r := benchMLPResult{
		recordHeader: recordHeader{Kernel: "mlp_step", Arch: arch, DType: string(led.DType), Shape: led.Shape, GPU: gpu, Driver: driver,
			Revision: revision(), Date: now.Format(time.RFC3339), Command: o.Command},
		US: led.StepChosen.Median, P20US: led.StepChosen.P20, P80US: led.StepChosen.P80, BaselineUS: led.StepBaseline.Median,
		FloorUS: tot.FloorUS, Speedup: led.Speedup(), GemmTFLOPs: led.Ceil.GemmTFLOPs, CopyGBs: led.Ceil.CopyGBs,
		Reps: led.StepChosen.N, Sets: led.Sets, RecomputeOut: led.RecomputeOut, ActBytes: kept, ActSaved: saved,
		Rows: led.Rows(),
	}
	if r.US > 0 {
		r.PctFloor = 100 * r.FloorUS / r.US
	}
	var cfgs []string
	for _, s := range led.Segs {
		c := string(s.Chosen)
		if s.Chosen == mlp.ImplSwigen {
			c = s.SwigenConfig
			r.RelErr = math.Max(r.RelErr, s.RelErr)
		}
		cfgs = append(cfgs, fmt.Sprintf("%s=%s", s.Seg, c))
		r.Segments = append(r.Segments, mlpSegmentRecord{Segment: s.Seg.String(), Chosen: string(s.Chosen),
			SwigenConfig: s.SwigenConfig, SwigenNote: s.SwigenNote, RelErr: finiteOr(s.RelErr), FloorUS: s.FloorUS})
	}
	r.Config = strings.Join(cfgs, "; ")
	r.RelErr = finiteOr(r.RelErr)
	for _, c := range checks {
		r.Checks = append(r.Checks, mlpCheckRecord{Mode: c.Mode, Shape: c.Shape, Pass: c.Pass, RelErr: finiteOr(c.WorstRelErr()), Used: c.Used})
	}
	return r
}

func writeMLPJSON(o *benchMLPOptions, gpu string, driver int, arch string, led *mlp.Ledger, checks []mlp.CheckResult, now time.Time) (string, error) {
	b, err := json.MarshalIndent(mlpRecord(o, gpu, driver, arch, led, checks, now), "", "  ")
	if err != nil {
		return "", fmt.Errorf("bench mlp: encode record: %w", err)
	}
	if err := os.MkdirAll(o.JSONDir, 0o755); err != nil {
		return "", fmt.Errorf("bench mlp: %w", err)
	}
	suffix := ""
	if led.RecomputeOut {
		suffix = "_recompute-out"
	}
	name := filepath.Join(o.JSONDir, fmt.Sprintf("%s_mlp_step_%s_%s_%dx%dx%d%s.json", now.Format("20060102T150405"), arch, led.DType,
		led.Shape.M, led.Shape.K, led.Shape.I, suffix))
	if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("bench mlp: %w", err)
	}
	return name, nil
}

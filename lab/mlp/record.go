package mlp

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// SegmentRecord is one segment's choice in a StepRecord.
type SegmentRecord struct {
	Segment      string  `json:"segment"`
	Chosen       string  `json:"chosen"`
	SwigenConfig string  `json:"swigen_config,omitempty"`
	SwigenNote   string  `json:"swigen_note,omitempty"`
	RelErr       float64 `json:"rel_err_vs_baseline"` // -1: not compared
	FloorUS      float64 `json:"floor_us"`
}

// CheckRecord is one checked step in a StepRecord.
type CheckRecord struct {
	Mode   string       `json:"mode"`
	Shape  tiling.Shape `json:"shape"`
	Pass   bool         `json:"pass"`
	RelErr float64      `json:"rel_err"` // worst output; -1 when infinite (NaN or poison)
	Used   []string     `json:"segments"`
}

// StepRecord is the bench/results record of one `bench mlp` shape: the
// docs/DESIGN.md#bench-result-records fields for the whole step (us: end
// to end with the chosen implementations; baseline_us: all-baseline end
// to end; floor_us: the sum of the segment floors), plus the ledger.
type StepRecord struct {
	bench.Header
	US           float64         `json:"us"`
	P20US        float64         `json:"p20_us"`
	P80US        float64         `json:"p80_us"`
	BaselineUS   float64         `json:"baseline_us"`
	FloorUS      float64         `json:"floor_us"`
	Speedup      float64         `json:"speedup"`
	PctFloor     float64         `json:"pct_of_floor"`
	RelErr       float64         `json:"rel_err"`
	GemmTFLOPs   float64         `json:"ceiling_gemm_tflops"`
	CopyGBs      float64         `json:"ceiling_copy_gbs"`
	Reps         int             `json:"reps"`
	Sets         int             `json:"rotated_sets"`
	RecomputeOut bool            `json:"recompute_out"`
	ActBytes     float64         `json:"activation_bytes"`
	ActSaved     float64         `json:"activation_bytes_saved"`
	Segments     []SegmentRecord `json:"segments"`
	Rows         []Row           `json:"ledger"`
	Checks       []CheckRecord   `json:"checks,omitempty"`
}

// NewStepRecord is led's record under header h (whose Kernel, DType,
// Shape and Config it sets) with the checked steps checks.
func NewStepRecord(h bench.Header, led *Ledger, checks []CheckResult) StepRecord {
	tot := led.Totals()[2]
	kept, saved := perfmodel.Activations(led.Shape, led.RecomputeOut)
	h.Kernel, h.DType, h.Shape = "mlp_step", string(led.DType), led.Shape
	r := StepRecord{Header: h,
		US: led.StepChosen.Median, P20US: led.StepChosen.P20, P80US: led.StepChosen.P80, BaselineUS: led.StepBaseline.Median,
		FloorUS: tot.FloorUS, Speedup: led.Speedup(), GemmTFLOPs: led.Ceil.GemmTFLOPs, CopyGBs: led.Ceil.CopyGBs,
		Reps: led.StepChosen.N, Sets: led.Sets, RecomputeOut: led.RecomputeOut, ActBytes: kept, ActSaved: saved,
		Rows: led.Rows(),
	}
	if r.US > 0 {
		r.PctFloor = perfmodel.PctOfFloor(r.FloorUS, r.US)
	}
	var cfgs []string
	for _, s := range led.Segs {
		c := string(s.Chosen)
		if s.Chosen == ImplSwigen {
			c = s.SwigenConfig
			r.RelErr = math.Max(r.RelErr, s.RelErr)
		}
		cfgs = append(cfgs, fmt.Sprintf("%s=%s", s.Seg, c))
		r.Segments = append(r.Segments, SegmentRecord{Segment: s.Seg.String(), Chosen: string(s.Chosen),
			SwigenConfig: s.SwigenConfig, SwigenNote: s.SwigenNote, RelErr: bench.FiniteOr(s.RelErr), FloorUS: s.FloorUS})
	}
	r.Config = strings.Join(cfgs, "; ")
	r.RelErr = bench.FiniteOr(r.RelErr)
	for _, c := range checks {
		r.Checks = append(r.Checks, CheckRecord{Mode: c.Mode, Shape: c.Shape, Pass: c.Pass, RelErr: bench.FiniteOr(c.WorstRelErr()), Used: c.Used})
	}
	return r
}

// StepRecordName is the file name of led's record written at now on
// arch: time first, then the step, arch, dtype, shape and mode.
func StepRecordName(now time.Time, arch string, led *Ledger) string {
	suffix := ""
	if led.RecomputeOut {
		suffix = "_recompute-out"
	}
	return fmt.Sprintf("%s_mlp_step_%s_%s_%dx%dx%d%s.json", now.Format("20060102T150405"), arch, led.DType,
		led.Shape.M, led.Shape.K, led.Shape.I, suffix)
}

// WriteStepRecord writes led's record under header h with the checked
// steps checks into dir (StepRecordName at now; h's Date is set to now)
// and returns its path.
func WriteStepRecord(dir string, h bench.Header, led *Ledger, checks []CheckResult, now time.Time) (string, error) {
	h.Date = now.Format(time.RFC3339)
	b, err := bench.MarshalRecord(NewStepRecord(h, led, checks))
	if err != nil {
		return "", fmt.Errorf("encode record: %w", err)
	}
	return bench.WriteRecord(dir, StepRecordName(now, h.Arch, led), b)
}

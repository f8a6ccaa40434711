package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/tiling"
)

// recordHeader is what every bench/results record starts with: what ran,
// where, when and how (docs/DESIGN.md#bench-result-records).
type recordHeader struct {
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

// benchResult is the bench/results record (docs/DESIGN.md#bench-result-records).
type benchResult struct {
	recordHeader
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

// gitRevision is set with -ldflags "-X main.gitRevision=..." by
// bench/build.sh, for binaries built outside a VCS-stamped build.
var gitRevision string

func revision() string {
	if gitRevision != "" {
		return gitRevision
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

func writeBenchJSON(o *benchOptions, s *gpuSession, cfg tiling.Config, r *bench.BwdReport, pr planResult) error {
	now := time.Now().UTC()
	res := benchResult{
		recordHeader: recordHeader{Kernel: string(cfg.Kernel), Arch: string(cfg.Arch), DType: string(cfg.DType), Shape: r.Shape,
			Config: cfg.Name(), Probe: o.Probe, GPU: s.name, Driver: s.driver, Revision: revision(), Date: now.Format(time.RFC3339),
			Command: o.Command},
		US: r.Rows[0].T.Median, P20US: r.Rows[0].T.P20, P80US: r.Rows[0].T.P80,
		BaselineUS: r.Rows[1].T.Median, GemmUS: r.Rows[2].T.Median, EwUS: r.Rows[3].T.Median,
		FloorUS: r.FloorUS, Speedup: r.Speedup, PctFloor: r.Rows[0].PctFloor, RelErr: r.RelErr,
		GemmTFLOPs: r.Ceil.GemmTFLOPs, CopyGBs: r.Ceil.CopyGBs, Reps: r.Rows[0].T.N, Sets: r.Sets,
	}
	if u := r.Unfused; u != nil {
		res.UnfusedUS, res.UnfusedGemmUS, res.UnfusedGemm, res.UnfusedRelErr = u.US, u.GemmUS, u.Gemm, finiteOr(u.RelErr)
		res.Plan, res.PlanWhy, res.PlanUS, res.PlanSpeedup = pr.Path, pr.Why, pr.US, pr.Speedup
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.JSONDir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%s/%s_%s_%dx%dx%d.json", o.JSONDir, now.Format("20060102T150405"), manifest.ProbedName(cfg, o.Probe), r.Shape.M, r.Shape.K, r.Shape.I)
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

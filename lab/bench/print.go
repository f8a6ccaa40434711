package bench

import (
	"fmt"
	"io"
	"math"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Write prints r, cfg's bench at one shape: its rows, floor and speedup
// to w, its warnings to log.
func (r *BwdReport) Write(w, log io.Writer, cfg tiling.Config) {
	mode := cfg.Kernel.Mode(cfg.StoreOut)
	if mode != "" {
		mode = "  " + mode
	}
	fmt.Fprintf(w, "\n%s M=%d K=%d I=%d  config %s  (grid %d CTAs, %d rotated input sets)%s\n", cfg.Kernel, r.Shape.M, r.Shape.K, r.Shape.I, r.Config, r.Grid, r.Sets, mode)
	fmt.Fprintf(w, "floor %.1f us = max(FLOPs / %.0f TFLOP/s, bytes / %.0f GB/s)\n", r.FloorUS, r.Ceil.GemmTFLOPs, r.Ceil.CopyGBs)
	fmt.Fprintf(w, "%-36s %9s %9s %10s %18s %9s %8s %7s\n", "segment", "GFLOP", "MB", "us", "p20-p80", "TFLOP/s", "GB/s", "%floor")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-36s %9.1f %9.1f %10.1f %8.1f-%-9.1f %9.1f %8.0f %6.0f%%\n",
			truncate(row.Name, 36), row.FLOPs/1e9, row.Bytes/1e6, row.T.Median, row.T.P20, row.T.P80, row.TFLOPs, row.GBs, row.PctFloor)
	}
	fmt.Fprintf(w, "speedup vs baseline %.2fx; fused vs baseline output rel err %.2e\n", r.Speedup, r.RelErr)
	for _, x := range r.Warnings {
		fmt.Fprintf(log, "warning: %s\n", x)
	}
}

// WritePlan prints the dispatch plan's line of r, rep's outcome: both
// paths' times and the taken one's speedup. Nothing when rep did not
// time the unfused path.
func (r PlanOutcome) WritePlan(w io.Writer, rep *BwdReport) {
	if rep.Unfused == nil {
		return
	}
	u := rep.Unfused
	fmt.Fprintf(w, "plan %s (%s): fused %.1f us, unfused %.1f us (gemm %.1f us, %s; rel err %.2e); the plan's path %.2fx the baseline",
		r.Path, r.Why, rep.Rows[0].T.Median, u.US, u.GemmUS, u.Gemm, u.RelErr, r.Speedup)
	if r.Measured != r.Path {
		fmt.Fprintf(w, " (this run alone would take %s)", r.Measured)
	}
	fmt.Fprintln(w)
}

// summaryLine is rep's line in Run's closing summary.
func summaryLine(cfg tiling.Config, sh tiling.Shape, rep *BwdReport, pr PlanOutcome) string {
	line := fmt.Sprintf("%-60s %6d,%5d,%6d  %8.1f us  base %8.1f us  %5.2fx  floor %6.1f us (%3.0f%%)  grid %d",
		cfg.Name(), sh.M, sh.K, sh.I, rep.Rows[0].T.Median, rep.Rows[1].T.Median, rep.Speedup, rep.FloorUS, rep.Rows[0].PctFloor, rep.Grid)
	if rep.Unfused != nil {
		line += fmt.Sprintf("  unfused %8.1f us  plan %-7s %5.2fx", rep.Unfused.US, pr.Path, pr.Speedup)
	}
	return line
}

// Write prints r, one gemm config's bench at one shape: its rows, the
// ratio to cuBLAS and the outputs' error.
func (r *GemmReport) Write(w io.Writer) {
	fmt.Fprintf(w, "\ngemm M=%d N=%d K=%d  config %s  (grid %d, %d rotated sets; floor %.1f us)\n", r.M, r.N, r.K, r.Config, r.Grid, r.Sets, r.FloorUS)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "  %-64s %9.1f us (p20-p80 %.1f-%.1f)  %6.1f TFLOP/s  %4.0f%% of floor\n",
			truncate(row.Name, 64), row.T.Median, row.T.P20, row.T.P80, row.TFLOPs, row.PctFloor)
	}
	fmt.Fprintf(w, "  swigen / cuBLAS speed: %.2fx; output vs cuBLAS rel err %.2e\n", r.Ratio, r.RelErr)
}

// WriteCeilings prints the ceilings of dtype dt.
func WriteCeilings(w io.Writer, dt tiling.DType, c Ceilings) {
	fmt.Fprintf(w, "ceilings %s: cuBLAS 8192^3 %.0f TFLOP/s, device copy %.0f GB/s\n", dt, c.GemmTFLOPs, c.CopyGBs)
}

// truncate shortens s to n bytes, the last an ellipsis.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// WriteTrace reads the trace probe's records from k after its runs and
// prints their per-tile summary.
func WriteTrace(w io.Writer, k *launch.Kernel) error {
	words, err := k.Trace()
	if err != nil {
		return err
	}
	if k.Man.Trace == nil {
		return fmt.Errorf("bench: %s: its manifest has no trace layout (not built with the trace probe)", k.Man.Name)
	}
	recs, err := ParseTrace(words, *k.Man.Trace)
	if err != nil {
		return err
	}
	SummarizeTrace(recs).Print(w)
	return nil
}

// ShapeSpeedup is one measured shape's speedup over the baseline.
type ShapeSpeedup struct {
	Shape   tiling.Shape
	Speedup float64
	Kernel  tiling.Kernel // the kind whose --shape order names Shape (tiling.ShapeOrder)
}

// WriteSpeedupStats prints the minimum and the geometric mean of the
// speedups xs of what when there are several: the suite's verdict is its
// slowest shape (never below 1.00x) and its typical one.
func WriteSpeedupStats(w io.Writer, what string, xs []ShapeSpeedup) {
	if len(xs) < 2 {
		return
	}
	lo, logSum := xs[0], 0.0
	for _, x := range xs {
		if x.Speedup < lo.Speedup {
			lo = x
		}
		logSum += math.Log(x.Speedup)
	}
	model := ""
	if m := SuiteModel(lo.Shape); m != "" {
		model = ", " + m
	}
	fmt.Fprintf(w, "%s speedup over %d measurements (config and shape): min %.2fx (%s%s), geomean %.2fx\n",
		what, len(xs), lo.Speedup, tiling.FormatKindShape(lo.Kernel, lo.Shape), model, math.Exp(logSum/float64(len(xs))))
}

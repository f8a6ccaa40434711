package main

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/tiling"
)

// gateupReport is a fwd_gateup result in bench's report form: the same
// rows (swigen, baseline, its GEMM, its elementwise kernel) and fields.
func gateupReport(r *mlp.FwdGateUpReport) *bench.BwdReport {
	return &bench.BwdReport{Shape: r.Shape, Config: r.Config, Ceil: r.Ceil, FloorUS: r.FloorUS, Rows: r.Rows, Speedup: r.Speedup,
		RelErr: r.RelErr, Sets: r.Sets, Grid: r.Grid, Unfused: r.Unfused, Warnings: r.Warnings}
}

// printReport prints one config's bench at one shape: its rows, floor and
// speedup.
func printReport(e *env, cfg tiling.Config, r *bench.BwdReport) {
	w := e.stdout
	mode := ""
	if cfg.Kernel == tiling.KernelFwdGateUp {
		mode = "  inference: out stored"
		if cfg.StoreOut {
			mode = "  training: de and out stored"
		}
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
		fmt.Fprintf(e.stderr, "warning: %s\n", x)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// printTrace reads the trace probe's records after its runs and prints
// their per-tile summary.
func printTrace(e *env, k *launch.Kernel) error {
	w, err := k.Trace()
	if err != nil {
		return err
	}
	if k.Man.Trace == nil {
		return fmt.Errorf("bench: %s: its manifest has no trace layout (not built with the trace probe)", k.Man.Name)
	}
	recs, err := bench.ParseTrace(w, *k.Man.Trace)
	if err != nil {
		return err
	}
	bench.SummarizeTrace(recs).Print(e.stdout)
	return nil
}

// shapeSpeedup is one measured shape's speedup over the baseline.
type shapeSpeedup struct {
	shape   tiling.Shape
	speedup float64
}

// printSpeedupStats prints the minimum and the geometric mean of the
// speedups when there are several: the suite's verdict is its slowest
// shape (never below 1.00x) and its typical one.
func printSpeedupStats(e *env, what string, xs []shapeSpeedup) {
	if len(xs) < 2 {
		return
	}
	lo, logSum := xs[0], 0.0
	for _, x := range xs {
		if x.speedup < lo.speedup {
			lo = x
		}
		logSum += math.Log(x.speedup)
	}
	model := ""
	if m := bench.SuiteModel(lo.shape); m != "" {
		model = ", " + m
	}
	fmt.Fprintf(e.stdout, "%s speedup over %d measurements (config and shape): min %.2fx (%d,%d,%d%s), geomean %.2fx\n",
		what, len(xs), lo.speedup, lo.shape.M, lo.shape.K, lo.shape.I, model, math.Exp(logSum/float64(len(xs))))
}

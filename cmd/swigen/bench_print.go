package main

import (
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
)

// shapeSpeedup is one measured shape's speedup over the baseline.
type shapeSpeedup struct {
	shape   tiling.Shape
	speedup float64
	kernel  tiling.Kernel
}

// printSpeedupStats prints the speedups' minimum and geometric mean
// (bench.WriteSpeedupStats).
func printSpeedupStats(e *env, what string, xs []shapeSpeedup) {
	ys := make([]bench.ShapeSpeedup, len(xs))
	for i, x := range xs {
		ys[i] = bench.ShapeSpeedup{Shape: x.shape, Speedup: x.speedup, Kernel: x.kernel}
	}
	bench.WriteSpeedupStats(e.stdout, what, ys)
}

package tune

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/swigen/swigen/tiling"
)

// SuiteRow is one tuned shape of a suite: its winner (or the provisional
// best, or none) against the baseline. The shape is written in the kind's
// --shape order (tiling.ShapeOrder: M,N,K for gemm), so a row can be
// pasted into emit --tuned.
func SuiteRow(en *Entry) string {
	v := tiling.KindShapeSizes(en.Key.Kernel, en.Key.Shape)
	cols := make([]string, 3)
	for j, name := range strings.Split(tiling.ShapeOrder(en.Key.Kernel), ",") {
		w := 6
		if name == "K" { // the hidden size: at most 5 digits in the suite
			w = 5
		}
		cols[j] = fmt.Sprintf("%*d", w, v[j])
	}
	dims := strings.Join(cols, ",")
	best, ok := en.Best()
	label := ""
	if !ok {
		if best, ok = en.Provisional(); !ok {
			return fmt.Sprintf("%s  winner: none (no candidate passed)", dims)
		}
		label = " (provisional: screened only)"
	}
	speedup := 0.0
	if best.BaselineUS > 0 {
		speedup = best.BaselineUS / best.US
	}
	return fmt.Sprintf("%s  %-62s %8.1f us  base %8.1f us  %5.2fx%s", dims, best.Config, best.US, best.BaselineUS, speedup, label)
}

// ShapeSpeedup is one tuned shape's winner's speedup over the baseline.
type ShapeSpeedup struct {
	Shape   tiling.Shape
	Speedup float64
	Kernel  tiling.Kernel // the tuned kind, whose --shape order names Shape
}

// WriteSuiteSummary writes the head of a suite's summary: how many shapes
// were tuned in took and every shape's row (SuiteRow). It returns the
// winners' speedups, for the shapes with a winner timed against the
// baseline.
func WriteSuiteSummary(w io.Writer, done []*SweepResult, took time.Duration) []ShapeSpeedup {
	fmt.Fprintf(w, "\nsuite: %d shapes tuned in %v (winners; speedup = baseline / winner, same run)\n", len(done), took.Round(time.Second))
	var sp []ShapeSpeedup
	for _, res := range done {
		fmt.Fprintln(w, SuiteRow(res.Entry))
		if best, ok := res.Entry.Best(); ok && best.BaselineUS > 0 {
			sp = append(sp, ShapeSpeedup{Shape: res.Entry.Key.Shape, Speedup: best.BaselineUS / best.US, Kernel: res.Entry.Key.Kernel})
		}
	}
	return sp
}

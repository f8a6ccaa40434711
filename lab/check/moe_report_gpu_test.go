//go:build gpu

package check

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// moeTestRoutings is MoERoutings(tileM), cut to the first
// SWIGEN_MOE_ROUTINGS routings when that is set (a short run under
// compute-sanitizer).
func moeTestRoutings(tileM int) []Routing {
	routings := MoERoutings(tileM)
	if n, err := strconv.Atoi(os.Getenv("SWIGEN_MOE_ROUTINGS")); err == nil && n < len(routings) {
		routings = routings[:n]
	}
	return routings
}

// reportMoERoutings fails t for every routing whose result failed and logs
// a PASS line with each output's error statistics for the others. nName
// names the shape's third size (I, or N for moe_gemm). The lines are the
// caller's (t.Helper): bench/moe_check.sh picks them out by test file.
func reportMoERoutings(t *testing.T, routings []Routing, rs []ShapeResult, nName string) {
	t.Helper()
	for i, r := range rs {
		rt := routings[i]
		if r.Err != nil || !r.Pass {
			t.Errorf("%s T=%d K=%d %s=%d counts %v: pass %v, err %v, %v", rt.Name, r.Shape.M, r.Shape.K, nName, r.Shape.I, rt.Counts, r.Pass, r.Err, r.Outputs)
			continue
		}
		var stats []string
		for _, o := range r.Outputs {
			stats = append(stats, o.Name+" "+o.Stats.String())
		}
		t.Logf("PASS %s T=%d K=%d %s=%d E=%d: %s", rt.Name, r.Shape.M, r.Shape.K, nName, r.Shape.I, len(rt.Counts), strings.Join(stats, "; "))
	}
}

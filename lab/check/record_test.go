package check

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/tiling"
)

// TestVerdict: verify's line and record of a passing shape, a failing
// one with unwritten elements on the unfused path, an error, and a gemm's
// shape named as its command line reads it (M, N, K).
func TestVerdict(t *testing.T) {
	const gemmName = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"
	t.Parallel()
	sh := tiling.Shape{M: 200, K: 136, I: 264}
	ok := ShapeResult{Shape: sh, Ref: "cpu-float64", Pass: true,
		Outputs: []OutputResult{{Name: "grad_de", Stats: num.ErrStats{RelFrobenius: 1e-3, MaxAbs: 2e-2}}}}
	bad := ShapeResult{Shape: sh, Ref: "gpu-naive",
		Outputs: []OutputResult{{Name: "out", Stats: num.ErrStats{RelFrobenius: 1, MaxAbs: 3, NaNs: 1, Poisoned: 7}}}}
	failed := ShapeResult{Shape: sh, Err: errors.New("launch: timed out")}
	for _, tt := range []struct {
		name, path string
		r          ShapeResult
		line       string
		rec        Record
	}{
		{"k", "", ok, "ok   k M=200 K=136 I=264 ref=cpu-float64  grad_de rel=1.00e-03 max=2.00e-02",
			Record{Config: "k", Shape: sh, Ref: "cpu-float64", Pass: true, Out: []OutputRecord{{"grad_de", 1e-3, 2e-2, 0, 0}}}},
		{"k", "unfused", bad, "FAIL k [unfused] M=200 K=136 I=264 ref=gpu-naive  out rel=1.00e+00 max=3.00e+00 nan=1 unwritten=7",
			Record{Config: "k", Path: "unfused", Shape: sh, Ref: "gpu-naive", Out: []OutputRecord{{"out", 1, 3, 1, 7}}}},
		{"k", "", failed, "FAIL k M=200 K=136 I=264: launch: timed out",
			Record{Config: "k", Shape: sh, Error: "launch: timed out"}},
		{gemmName, "", ok, "ok   " + gemmName + " M=200 N=264 K=136 ref=cpu-float64  grad_de rel=1.00e-03 max=2.00e-02",
			Record{Config: gemmName, Shape: sh, Ref: "cpu-float64", Pass: true, Out: []OutputRecord{{"grad_de", 1e-3, 2e-2, 0, 0}}}},
	} {
		line, rec := Verdict(tt.name, tt.path, tt.r)
		if line != tt.line {
			t.Errorf("line %q, want %q", line, tt.line)
		}
		if d := cmp.Diff(tt.rec, rec); d != "" {
			t.Errorf("%s: record (-want +got):\n%s", tt.line, d)
		}
	}
}

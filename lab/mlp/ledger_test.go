package mlp

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleLedger is a ledger with made-up times: swigen has a kernel for the
// backward dSwiGLU segment only (the situation before the forward kernels
// exist), and the forward gate-up segment's kernel is wrong.
func sampleLedger(recompute bool) *Ledger {
	ceil := bench.Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}
	st := func(med float64) bench.Stats {
		return bench.Stats{Median: med, P20: med * 0.99, P80: med * 1.02, N: 40}
	}
	base := map[Segment][]float64{
		FwdGateUp: {330, 250, 80}, FwdDown: {170}, BwdDSwiGLU: {347.5, 180, 167.5},
		DWDown: {175}, DX: {330}, DW: {340},
	}
	l := &Ledger{Shape: s1, DType: tiling.BF16, RecomputeOut: recompute, Ceil: ceil, Sets: 2}
	for _, s := range perfmodel.Segments() {
		cost := perfmodel.Cost(s, s1, recompute)
		r := SegmentResult{Seg: s, Cost: cost, FloorUS: FloorUS(cost, ceil), RelErr: -1}
		parts := perfmodel.BaselineParts(s, s1, recompute)
		name := "baseline (cuBLAS)"
		if len(parts) > 1 {
			name = "baseline (cuBLAS + elementwise)"
		}
		r.Baseline = Timing{Name: name, Part: Part{Name: name, FLOPs: cost.FLOPs}, T: st(base[s][0])}
		for i, p := range parts {
			r.Baseline.Bytes += p.Bytes
			if len(parts) > 1 {
				r.Parts = append(r.Parts, Timing{Name: p.Name, Part: p, T: st(base[s][i+1])})
			}
		}
		switch s {
		case BwdDSwiGLU:
			r.SwigenConfig = "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"
			r.Swigen = &Timing{Name: r.SwigenConfig, Part: cost, T: st(269.4)}
			r.RelErr = 1.6e-3
		case FwdGateUp:
			r.SwigenConfig = "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
			r.Swigen = &Timing{Name: r.SwigenConfig, Part: cost, T: st(300)}
			r.RelErr = math.Inf(1)
			r.SwigenNote = "swigen output differs from the baseline (not chosen): [out rel_frob=1 max_abs=9 nans=0 poisoned=12 worst=3]"
		default:
			r.SwigenNote = "swigen: none, baseline used (no swigen kernel for " + s.String() + ": kernel gemm has no template yet)"
		}
		r.Choose(DefaultTol)
		l.Segs = append(l.Segs, r)
	}
	l.StepChosen, l.StepBaseline = st(1600), st(1700)
	return l
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lab/mlp -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test ./lab/mlp -update rewrites it):\n%s", path, d)
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tt := range []struct {
		name      string
		recompute bool
	}{{"ledger_s1.golden", false}, {"ledger_s1_recompute_out.golden", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := sampleLedger(tt.recompute).Render(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestLedgerTotalsAndRows(t *testing.T) {
	t.Parallel()
	l := sampleLedger(false)
	tot := l.Totals()
	// forward: baseline 330 + 170; chosen the same (fwd gate-up's swigen
	// kernel is wrong, so not chosen). backward: chosen 269.4 for dSwiGLU.
	want := []float64{500, 500, 347.5 + 175 + 330 + 340, 269.4 + 175 + 330 + 340}
	got := []float64{tot[0].Baseline.Median, tot[0].Chosen.Median, tot[1].Baseline.Median, tot[1].Chosen.Median}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	if math.Round(tot[2].FLOPs/1e9) != 348+696 {
		t.Errorf("step FLOPs %g GF, want 1044", tot[2].FLOPs/1e9)
	}
	if s := l.Speedup(); math.Abs(s-1700.0/1600) > 1e-12 {
		t.Errorf("speedup %g: want the end-to-end ratio", s)
	}
	rows := l.Rows()
	// Rows must survive JSON (no Inf or NaN anywhere).
	if _, err := json.Marshal(rows); err != nil {
		t.Fatal(err)
	}
	var chosenSegs int
	for _, r := range rows {
		if r.Chosen && !strings.HasPrefix(r.Impl, "total") && !strings.HasPrefix(r.Impl, "step") {
			chosenSegs++
		}
		if r.US > 0 && math.Abs(r.PctFloor-100*r.FloorUS/r.US) > 1e-9 {
			t.Errorf("%s %s: %%floor %g", r.Segment, r.Name, r.PctFloor)
		}
	}
	if chosenSegs != len(perfmodel.Segments()) {
		t.Errorf("%d chosen segment rows, want one per segment", chosenSegs)
	}
}

func TestFloorUS(t *testing.T) {
	t.Parallel()
	c := bench.Ceilings{GemmTFLOPs: 1000, CopyGBs: 1000}
	// 1e12 FLOPs at 1000 TFLOP/s and 1e9 bytes at 1000 GB/s: 1 ms each.
	if got := FloorUS(Part{FLOPs: 1e12, Bytes: 1e6}, c); math.Abs(got-1000) > 1e-9 {
		t.Errorf("compute-bound floor %g us, want 1000", got)
	}
	if got := FloorUS(Part{FLOPs: 1, Bytes: 1e9}, c); math.Abs(got-1000) > 1e-9 {
		t.Errorf("memory-bound floor %g us, want 1000", got)
	}
	if got := FloorUS(Part{FLOPs: 1}, bench.Ceilings{}); got != 0 {
		t.Errorf("no ceilings: floor %g, want 0", got)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/mlp"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

func TestBenchMLPFlags(t *testing.T) {
	s1 := tiling.Shape{M: 16384, K: 768, I: 4608}
	chk := tiling.Shape{M: 200, K: 136, I: 264}
	tests := []struct {
		name string
		args []string
		want benchMLPOptions
	}{
		{"defaults", nil, benchMLPOptions{Shapes: []string{seedShape}, DType: "bf16", Reps: 40, Warmup: 300 * time.Millisecond,
			CheckShape: "200,136,264", shapes: []tiling.Shape{s1}, dtype: tiling.BF16, chk: chk}},
		{"lead's command", []string{"--check", "--shape", "16384,768,4608", "--json", "bench/results"},
			benchMLPOptions{Shapes: []string{"16384,768,4608"}, DType: "bf16", Reps: 40, Warmup: 300 * time.Millisecond,
				Check: true, CheckShape: "200,136,264", JSONDir: "bench/results", shapes: []tiling.Shape{s1}, dtype: tiling.BF16, chk: chk}},
		{"everything", []string{"--recompute-out", "--check-only", "--check-shape", "64,8,16", "--dtype", "fp16", "--reps", "25",
			"--warmup", "1s", "--shape", "8192,4096,14336", "--shape", "128,64,64", "--baseline-only", "--device", "1", "--nvcc", "/"},
			benchMLPOptions{Shapes: []string{"8192,4096,14336", "128,64,64"}, DType: "fp16", Reps: 25, Warmup: time.Second,
				RecomputeOut: true, Check: true, CheckOnly: true, CheckShape: "64,8,16", BaselineOnly: true, Device: 1, NVCC: "/",
				shapes: []tiling.Shape{{M: 8192, K: 4096, I: 14336}, {M: 128, K: 64, I: 64}}, dtype: tiling.FP16, chk: tiling.Shape{M: 64, K: 8, I: 16}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *benchMLPOptions
			var out bytes.Buffer
			cmd := newBenchMLPCmd(&env{stdout: &out, stderr: &out}, func(_ context.Context, o *benchMLPOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("runF not called")
			}
			if d := cmp.Diff(tt.want, *got, cmp.AllowUnexported(benchMLPOptions{}), cmpopts.IgnoreFields(benchMLPOptions{}, "Command")); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestBenchMLPDispatch: `swigen bench mlp` reaches the subcommand (its
// help), `bench bwd` stays the positional form, and bad flags are usage
// errors (exit 2) found before any GPU work.
func TestBenchMLPDispatch(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"help", []string{"bench", "mlp", "--help"}, 0, []string{"--recompute-out", "实现账本", "696 GF", "--check-shape"}},
		{"bench help lists mlp", []string{"bench", "--help"}, 0, []string{"mlp", "Ledger of the whole MLP training step"}},
		{"bad shape", []string{"bench", "mlp", "--shape", "16,12,8"}, exitUsage, []string{"K must be a multiple of 8"}},
		{"bad check shape", []string{"bench", "mlp", "--check-shape", "1,2"}, exitUsage, []string{"--check-shape"}},
		{"bad dtype", []string{"bench", "mlp", "--dtype", "fp8"}, exitUsage, []string{"--dtype"}},
		{"few reps", []string{"bench", "mlp", "--reps", "5"}, exitUsage, []string{"--reps 5"}},
		{"stray argument", []string{"bench", "mlp", "bwd"}, exitUsage, []string{"unknown command"}},
		{"unknown segment", []string{"bench", "fwd"}, exitUsage, []string{`bench "fwd"`, "mlp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, errb.String())
			}
			all := out.String() + errb.String()
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

func sampleMLPLedger() *mlp.Ledger {
	s1 := tiling.Shape{M: 16384, K: 768, I: 4608}
	ceil := bench.Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}
	st := func(us float64) bench.Stats { return bench.Stats{Median: us, P20: us - 1, P80: us + 2, N: 40} }
	l := &mlp.Ledger{Shape: s1, DType: tiling.BF16, RecomputeOut: true, Ceil: ceil, Sets: 2,
		StepChosen: st(1600), StepBaseline: st(1700)}
	for _, s := range perfmodel.Segments() {
		c := perfmodel.Cost(s, s1, true)
		r := mlp.SegmentResult{Seg: s, Cost: c, FloorUS: mlp.FloorUS(c, ceil), RelErr: -1,
			Baseline: mlp.Timing{Name: "baseline (cuBLAS)", Part: c, T: st(300)}}
		if s == mlp.BwdDSwiGLU {
			r.SwigenConfig = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"
			r.Swigen = &mlp.Timing{Name: r.SwigenConfig, Part: c, T: st(270)}
			r.RelErr = 2e-3
		}
		if s == mlp.DW {
			r.Swigen = &mlp.Timing{Name: "gemm_x", Part: c, T: st(100)}
			r.RelErr = math.Inf(1) // wrong: must not be chosen, and JSON has no Inf
		}
		r.Choose(mlp.DefaultTol)
		l.Segs = append(l.Segs, r)
	}
	return l
}

func TestMLPRecordJSON(t *testing.T) {
	dir := t.TempDir()
	o := &benchMLPOptions{JSONDir: dir, Command: "swigen bench mlp --recompute-out"}
	checks := []mlp.CheckResult{{Shape: tiling.Shape{M: 200, K: 136, I: 264}, Mode: "baseline", Pass: true,
		Used: []string{"baseline"}, Outputs: []mlp.OutputCheck{{Name: "dx", Pass: true}}}}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	name, err := writeMLPJSON(o, "NVIDIA H200", 13000, "sm_90a", sampleMLPLedger(), checks, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "20261201T100000_mlp_step_sm_90a_bf16_16384x768x4608_recompute-out.json"); name != want {
		t.Errorf("file %s, want %s", name, want)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	// The record's fields (docs/DESIGN.md#bench-result-records) are all there.
	for _, k := range []string{"kernel", "arch", "dtype", "shape", "config", "gpu", "driver", "revision", "date", "command",
		"us", "baseline_us", "floor_us", "speedup", "rel_err", "ledger", "segments", "activation_bytes_saved", "checks"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %q", k)
		}
	}
	var r mlp.StepRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kernel != "mlp_step" || r.US != 1600 || r.BaselineUS != 1700 || math.Abs(r.Speedup-1700.0/1600) > 1e-12 {
		t.Errorf("step fields: %+v", r)
	}
	if r.ActSaved != 2*16384*4608 || !r.RecomputeOut {
		t.Errorf("activation saved %g, recompute %v", r.ActSaved, r.RecomputeOut)
	}
	if !strings.Contains(r.Config, "bwd dout+dSwiGLU=bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out") ||
		!strings.Contains(r.Config, "bwd dW=baseline") {
		t.Errorf("config %q", r.Config)
	}
	if r.RelErr != 2e-3 {
		t.Errorf("rel_err %g: want the chosen swigen segment's", r.RelErr)
	}
	if r.Segments[5].RelErr != -1 || r.Segments[5].Chosen != "baseline" {
		t.Errorf("wrong swigen segment recorded as %+v", r.Segments[5])
	}
	if len(r.Rows) == 0 || len(r.Checks) != 1 {
		t.Errorf("%d ledger rows, %d checks", len(r.Rows), len(r.Checks))
	}
}

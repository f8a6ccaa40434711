package main

import (
	"bytes"
	"flag"
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

// modelShapes are the seed shape and model shapes the B200 projection is
// pinned at: LLaMA-3 8B, LLaMA-3 70B at TP 8, a DeepSeek-V3 routed expert
// and a Qwen3-MoE-sized expert at 16384 tokens.
var modelShapes = []string{"16384,768,4608", "8192,4096,14336", "8192,8192,3584", "4096,7168,2048", "16384,2048,768"}

func shapeArgs(shapes ...string) []string {
	var a []string
	for _, s := range shapes {
		a = append(a, "--shape", s)
	}
	return a
}

// TestBenchModelGolden pins bench --model's output: the roofline and, on
// the B200, the per-tile pipeline projection of the heuristic's configs,
// of named ones (1-CTA, 2-CTA, CLC) and of the store-out config.
// go test ./cmd/swigen -run BenchModelGolden -update rewrites the files.
func TestBenchModelGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"bench_model_b200.golden", append([]string{"bench", "--model", "b200"}, shapeArgs(modelShapes...)...)},
		{"bench_model_b200_names.golden", []string{"bench", "--model", "b200",
			"--name", "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc",
			"--name", "bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x2_1cta_clc",
			"--name", "bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta"}},
		{"bench_model_b200_store_out.golden", []string{"bench", "--model", "b200", "--store-out"}},
		{"bench_model_h200.golden", append([]string{"bench", "--model", "h200"}, shapeArgs(modelShapes[:2]...)...)},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != 0 {
				t.Fatalf("%v: exit %d\n%s", tt.args, code, errb.String())
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run BenchModelGolden -update writes it)", err)
			}
			if d := cmp.Diff(string(want), out.String()); d != "" {
				t.Errorf("%v differs from %s (-golden +now):\n%s", tt.args, path, d)
			}
		})
	}
}

// The header states the datasheet numbers and the formula; every
// projection says it was not measured; the H200 gets no projection.
func TestBenchModelLabels(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "--model", "b200"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	for _, w := range []string{"148 SMs", "2250 TFLOP/s", "HBM 8/148", "not measured; no Blackwell GPU",
		"mainloop = max(MMA", "steady = max(mainloop, epilogue)", "kernel = max(launch + first load"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("bench --model b200 lacks %q:\n%s", w, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"bench", "--model", "h200"}, &out, &errb); code != 0 || strings.Contains(out.String(), "projection (not measured") {
		t.Errorf("bench --model h200: exit %d, want the roofline only:\n%s", code, out.String())
	}
}

func TestBenchModelUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"gateup", []string{"bench", "gateup", "--model", "b200"}, "projects bwd_dswiglu only"},
		{"sm_90a name", []string{"bench", "--model", "b200", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"},
			"targets sm_90a; the b200 pipeline projection models sm_100a configs"},
		{"bad name", []string{"bench", "--model", "b200", "--name", "bogus"}, `parse name "bogus"`},
		{"unknown model", []string{"bench", "--model", "a100"}, `bench --model "a100": want one of b200, h200`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", tt.args, code, errb.String(), exitUsage, tt.want)
			}
		})
	}
}

// Every shape of the model-shape suite projects, at or above its floor.
func TestBenchModelSuite(t *testing.T) {
	g, _ := perfmodel.Lookup("b200")
	for _, e := range bench.Suite {
		c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, g.Arch, tiling.BF16, e.Shape)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		p, err := perfmodel.Project(g, c, e.Shape)
		if err != nil || p.KernelUS < p.FloorUS || p.KernelUS < perfmodel.BwdRoofline(g, e.Shape).FloorUS() {
			t.Errorf("%s: %s: projection %+v, err %v", e, c.Name(), p, err)
		}
	}
}

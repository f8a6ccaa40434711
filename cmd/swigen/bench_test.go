package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

func TestBenchModelProjection(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"b200 seed", []string{"bench", "--model", "b200"}, 0,
			[]string{"PROJECTION", "not a measurement", "fused floor 79.5 us (memory-bound)", "194 us -> fused 175.5 us"}},
		{"h200 two shapes", []string{"bench", "--model", "h200", "--shape", "16384,768,4608", "--shape", "8192,4096,14336"}, 0,
			[]string{"M=16384 K=768 I=4608", "M=8192 K=4096 I=14336"}},
		{"unknown model", []string{"bench", "--model", "a100"}, exitUsage, []string{`"a100"`, "b200"}},
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

func TestGemmShapes(t *testing.T) {
	got, err := gemmShapes("bench gemm", []string{"8192,4096,1024", "M=100,N=64,K=72"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int{{8192, 4096, 1024}, {100, 64, 72}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("gemmShapes = %v, want %v", got, want)
	}
	for _, bad := range []string{"1,2", "8,8,x", "8,12,8"} {
		if _, err := gemmShapes("bench gemm", []string{bad}); err == nil {
			t.Errorf("gemmShapes(%q) accepted", bad)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "gemm", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "swigen bench gemm --shape 8192,8192,8192") {
		t.Errorf("bench gemm --help: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

func TestBenchJobs(t *testing.T) {
	s1 := tiling.Shape{M: 16384, K: 768, I: 4608}
	large := tiling.Shape{M: 8192, K: 4096, I: 14336}
	sel := pick.Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: seedShape}
	type job struct {
		Config string
		Shapes []tiling.Shape
	}
	pp := "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k"
	lg := "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong"
	tests := []struct {
		name   string
		o      benchOptions
		shapes []tiling.Shape
		want   []job
	}{
		{"heuristic per shape", benchOptions{Select: sel, HeuristicPerShape: true}, []tiling.Shape{s1, large, s1},
			[]job{{pp, []tiling.Shape{s1, s1}}, {lg, []tiling.Shape{large}}}},
		{"--heuristic-shape: one config", benchOptions{Select: sel}, []tiling.Shape{s1, large},
			[]job{{pp, []tiling.Shape{s1, large}}}},
		{"names: every shape", benchOptions{Select: pick.Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Names: []string{lg, pp}}, HeuristicPerShape: true},
			[]tiling.Shape{s1, large}, []job{{lg, []tiling.Shape{s1, large}}, {pp, []tiling.Shape{s1, large}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := benchJobs(&tt.o, tiling.ArchSM90a, tt.shapes)
			if err != nil {
				t.Fatal(err)
			}
			var got []job
			for _, j := range jobs {
				got = append(got, job{j.Config.Name(), j.Shapes})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
		})
	}
}

func TestBenchKind(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		kernel  string // --kernel, "" when not given
		want    string // the kernel bench times
		wantErr string
	}{
		{"default", nil, "", "bwd_dswiglu", ""},
		{"bwd", []string{"bwd"}, "", "bwd_dswiglu", ""},
		{"gateup", []string{"gateup"}, "", "fwd_gateup", ""},
		{"--kernel fwd_gateup", nil, "fwd_gateup", "fwd_gateup", ""},
		{"gateup with the same --kernel", []string{"gateup"}, "fwd_gateup", "fwd_gateup", ""},
		{"bwd with --kernel gemm", []string{"bwd"}, "gemm", "", "--kernel gemm"},
		{"--kernel gemm", nil, "gemm", "", "bench gemm"},
		{"unknown kind", []string{"down"}, "", "", `bench "down": want bwd or gateup`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := benchOptions{Select: pick.Request{Kernels: []string{"bwd_dswiglu"}}}
			if tt.kernel != "" {
				o.Select.Kernels = []string{tt.kernel}
			}
			err := o.setKind(tt.args, tt.kernel != "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("setKind(%v, --kernel %q) = %v, want an error containing %q", tt.args, tt.kernel, err, tt.wantErr)
				}
				return
			}
			if err != nil || o.Select.Kernel() != tt.want {
				t.Errorf("setKind(%v, --kernel %q): kernel %q, err %v; want %q", tt.args, tt.kernel, o.Select.Kernel(), err, tt.want)
			}
		})
	}
}

func TestBenchJobsGateUp(t *testing.T) {
	s1 := tiling.Shape{M: 16384, K: 768, I: 4608}
	sel := pick.Request{Kernels: []string{"fwd_gateup"}, DType: "bf16", Shape: seedShape}
	for _, tt := range []struct {
		storeOut bool
		want     string
	}{
		// The measured table's winners at the seed shape.
		{false, "fwd_gateup_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"},
		{true, "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"},
	} {
		o := benchOptions{Select: sel, HeuristicPerShape: true}
		o.Select.HeuristicStoreOut = tt.storeOut
		jobs, err := benchJobs(&o, tiling.ArchSM90a, []tiling.Shape{s1})
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 1 || jobs[0].Config.Name() != tt.want {
			t.Errorf("store-out %v: jobs %v, want one of %s", tt.storeOut, jobs, tt.want)
		}
	}
	// A bwd_dswiglu name under bench gateup is a usage error naming it.
	o := benchOptions{Select: sel}
	o.Select.Names = []string{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"}
	if _, err := benchJobs(&o, tiling.ArchSM90a, []tiling.Shape{s1}); err == nil || !strings.Contains(err.Error(), "is a bwd_dswiglu kernel") {
		t.Errorf("bwd name under bench gateup: err = %v", err)
	}
}

// TestBenchSuite: --suite takes the model-shape suite's shapes and is
// exclusive with --shape; the summary gives min and geomean.
func TestBenchSuite(t *testing.T) {
	t.Parallel()
	o := &benchOptions{Select: pick.Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: seedShape}, Shapes: []string{seedShape}, Suite: true, Reps: 40}
	shapes, err := o.validate()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bench.SuiteShapes(), shapes); diff != "" {
		t.Errorf("shapes (-want +got):\n%s", diff)
	}
	if code, _, _ := runCLI(t, "bench", "bwd", "--suite", "--shape", "1,8,8"); code != exitUsage {
		t.Errorf("--suite with --shape: exit %d, want %d", code, exitUsage)
	}
	var out bytes.Buffer
	printSpeedupStats(&env{stdout: &out}, "fused kernel", []shapeSpeedup{
		{tiling.Shape{M: 16384, K: 768, I: 4608}, 1.5, tiling.KernelBwdDSwiGLU}, {tiling.Shape{M: 8192, K: 8192, I: 3584}, 0.96, tiling.KernelBwdDSwiGLU}, {tiling.Shape{M: 1, K: 8, I: 8}, 1.25, tiling.KernelBwdDSwiGLU}})
	want := "fused kernel speedup over 3 measurements (config and shape): min 0.96x (8192,8192,3584, LLaMA-3 70B, TP 8), geomean 1.22x\n"
	if out.String() != want {
		t.Errorf("stats %q, want %q", out.String(), want)
	}
}

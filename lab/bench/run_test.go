package bench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// TestRunUnbuilt: a config that does not build is skipped and named in
// the summary and in Run's error; the ceilings are measured once per
// dtype, before the dtype's first config.
func TestRunUnbuilt(t *testing.T) {
	t.Parallel()
	var jobs []Job
	for _, n := range []string{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"} {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, Job{Config: c, Shapes: []tiling.Shape{{M: 128, K: 64, I: 128}}})
	}
	var out, log bytes.Buffer
	measured := 0
	o := RunOptions{Out: &out, Log: &log,
		Ceilings: func(tiling.DType) (Ceilings, error) { measured++; return Ceilings{GemmTFLOPs: 700, CopyGBs: 4000}, nil },
		Build:    func(context.Context, tiling.Config) (*launch.Kernel, error) { return nil, errors.New("spills") }}
	err := Run(context.Background(), &Env{}, jobs, o)
	if want := "bench: 2 of 2 configs did not build: " + jobs[0].Config.Name() + ", " + jobs[1].Config.Name(); err == nil || err.Error() != want {
		t.Errorf("Run: err %v, want %s", err, want)
	}
	if measured != 1 {
		t.Errorf("ceilings measured %d times, want 1", measured)
	}
	wantLog := "measuring ceilings (bf16)...\nskipping " + jobs[0].Config.Name() + ": spills\nskipping " + jobs[1].Config.Name() + ": spills\n"
	if d := cmp.Diff(wantLog, log.String()); d != "" {
		t.Errorf("log (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(out.String(), "ceilings bf16: cuBLAS 8192^3 700 TFLOP/s, device copy 4000 GB/s\n\nsummary") ||
		strings.Count(out.String(), "not built (see above)") != 2 {
		t.Errorf("out:\n%s", out.String())
	}
}

// TestRunErrors: no Build function and a ceilings failure are errors.
func TestRunErrors(t *testing.T) {
	t.Parallel()
	c, _ := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")
	jobs := []Job{{Config: c, Shapes: []tiling.Shape{{M: 128, K: 64, I: 128}}}}
	var out bytes.Buffer
	if err := Run(context.Background(), &Env{}, jobs, RunOptions{Out: &out, Log: &out}); err == nil {
		t.Error("Run without Build: no error")
	}
	boom := errors.New("no GPU")
	o := RunOptions{Out: &out, Log: &out,
		Ceilings: func(tiling.DType) (Ceilings, error) { return Ceilings{}, boom },
		Build:    func(context.Context, tiling.Config) (*launch.Kernel, error) { t.Error("built"); return nil, boom }}
	if err := Run(context.Background(), &Env{}, jobs, o); !errors.Is(err, boom) {
		t.Errorf("Run with failing ceilings: err %v", err)
	}
}

// TestRunGemmInputError: a named config of another arch is an
// InputError, found before anything builds; the ceilings come first.
func TestRunGemmInputError(t *testing.T) {
	t.Parallel()
	c, err := tiling.ParseName("gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := GemmRun{Shapes: [][3]int{{256, 256, 256}}, Configs: []tiling.Config{c}, Arch: tiling.ArchSM100a, DType: tiling.BF16, Out: &out,
		Ceilings: func(tiling.DType) (Ceilings, error) { return Ceilings{GemmTFLOPs: 700, CopyGBs: 4000}, nil },
		Build:    func(context.Context, tiling.Config) (*launch.Kernel, error) { t.Error("built"); return nil, nil }}
	err = RunGemm(context.Background(), &Env{}, o)
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != "bench gemm: "+c.Name()+" is not a sm_100a gemm config" {
		t.Errorf("RunGemm: err %v, want an InputError", err)
	}
	if out.String() != "ceilings bf16: cuBLAS 8192^3 700 TFLOP/s, device copy 4000 GB/s\n" {
		t.Errorf("out %q", out.String())
	}
	if err := RunGemm(context.Background(), &Env{}, GemmRun{Out: &out}); err == nil {
		t.Error("RunGemm without Build: no error")
	}
}

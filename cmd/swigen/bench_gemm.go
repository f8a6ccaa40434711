package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
)

type benchGemmOptions struct {
	Names  []string
	Shapes []string
	DType  string
	Reps   int
	Warmup time.Duration
	NVCC   string
	Device int
	MajorA string
	MajorB string
}

func newBenchGemmCmd(e *env, runF func(context.Context, *benchGemmOptions) error) *cobra.Command {
	o := &benchGemmOptions{}
	cmd := &cobra.Command{
		Use:   "gemm",
		Short: "Benchmark swigen's plain gemm against cuBLAS",
		Long:  longHelp("bench_gemm"),
		Example: `  swigen bench gemm --shape 8192,8192,8192
  swigen bench gemm --name gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn --shape 4608,768,16384`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runBenchGemm(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Names, "name", nil, "gemm configs by procedural name (repeatable)")
	f.StringArrayVar(&o.Shapes, "shape", []string{"8192,8192,8192"}, "gemm sizes M,N,K (repeatable)")
	f.StringVar(&o.DType, "dtype", string(tiling.DefaultDType), "operand type for the heuristic config")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 300*time.Millisecond, "warm-up time per variant")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.StringVar(&o.MajorA, "major-a", string(tiling.KMajor), "the heuristic config's A major without --name: k (A stored [M,K]) or mn ([K,M]); the measured gemm winners are per majors")
	f.StringVar(&o.MajorB, "major-b", string(tiling.KMajor), "the heuristic config's B major without --name: k (B stored [N,K]) or mn ([K,N])")
	return cmd
}

// gemmShapes parses gemm shapes M,N,K (tiling.ParseKindShape, the order
// of every command's gemm --shape) for command cmd (named in errors).
func gemmShapes(cmd string, vals []string) ([][3]int, error) {
	var out [][3]int
	for _, v := range vals {
		s, err := tiling.ParseKindShape(tiling.PlainGEMM(), v)
		if err != nil {
			return nil, usageError(fmt.Errorf("%s: --shape %q: %w", cmd, v, err))
		}
		out = append(out, [3]int{s.M, s.I, s.K})
	}
	return out, nil
}

// validate checks every flag that needs no GPU: the shapes, the dtype
// and each --name (a valid, implemented gemm config).
func (o *benchGemmOptions) validate() (shapes [][3]int, d tiling.DType, named []tiling.Config, err error) {
	if shapes, err = gemmShapes("bench gemm", o.Shapes); err != nil {
		return nil, "", nil, err
	}
	if d, err = tiling.ParseDType(o.DType); err != nil {
		return nil, "", nil, usageError(fmt.Errorf("bench gemm: --dtype: %w", err))
	}
	if err := checkTiming("bench gemm", o.Reps, o.Warmup); err != nil {
		return nil, "", nil, err
	}
	if err := checkDevice("bench gemm", o.Device); err != nil {
		return nil, "", nil, err
	}
	if err := checkNVCC("bench gemm", o.NVCC); err != nil {
		return nil, "", nil, err
	}
	for _, m := range []string{o.MajorA, o.MajorB} {
		if m != string(tiling.KMajor) && m != string(tiling.MNMajor) {
			return nil, "", nil, usageError(fmt.Errorf("bench gemm: --major-a/--major-b %q: want k or mn", m))
		}
	}
	for _, n := range o.Names {
		c, err := tiling.ParseName(n)
		if err != nil {
			return nil, "", nil, usageError(fmt.Errorf("bench gemm: %w", err))
		}
		if c.Kernel != tiling.PlainGEMM() {
			return nil, "", nil, usageError(fmt.Errorf("bench gemm: --name %s: a %s config, not a gemm one", n, c.Kernel))
		}
		if _, err := tiling.Check(c); err != nil {
			return nil, "", nil, usageError(fmt.Errorf("bench gemm: --name: %w", err))
		}
		named = append(named, c)
	}
	return shapes, d, named, nil
}

func runBenchGemm(ctx context.Context, e *env, o *benchGemmOptions) error {
	shapes, d, named, err := o.validate()
	if err != nil {
		return err
	}
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return err
	}
	defer s.close()
	s.describe(e.stderr)
	benv, release, err := s.benchEnv(false)
	if err != nil {
		return err
	}
	defer release()
	err = bench.RunGemm(ctx, benv, bench.GemmRun{
		Options: bench.Options{Reps: o.Reps, Warmup: o.Warmup, Seed: uint64(time.Now().UnixNano())},
		Shapes:  shapes, Configs: named, Arch: s.arch, DType: d, MajorA: tiling.Major(o.MajorA), MajorB: tiling.Major(o.MajorB), Build: buildFunc(s.checkEnv(), ""), Out: e.stdout})
	return err
}

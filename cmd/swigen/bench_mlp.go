package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/lab/mlp"
	"github.com/swigen/swigen/tiling"
)

type benchMLPOptions struct {
	Shapes       []string
	DType        string
	Reps         int
	Warmup       time.Duration
	RecomputeOut bool
	Check        bool
	CheckOnly    bool
	CheckShape   string
	BaselineOnly bool
	NVCC         string
	Device       int
	JSONDir      string
	Names        []string
	Command      string

	// Parsed by parse.
	shapes    []tiling.Shape
	dtype     tiling.DType
	chk       tiling.Shape
	overrides []tiling.Config
}

func newBenchMLPCmd(e *env, runF func(context.Context, *benchMLPOptions) error) *cobra.Command {
	o := &benchMLPOptions{}
	cmd := &cobra.Command{
		Use:   "mlp",
		Short: "Ledger of the whole MLP training step, swigen vs cuBLAS + elementwise",
		Long:  longHelp("bench_mlp"),
		Example: `  swigen bench mlp --check --shape 16384,768,4608 --json bench/results
  swigen bench mlp --recompute-out --shape 8192,4096,14336
  swigen bench mlp --check-only`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.parse(); err != nil {
				return err
			}
			o.Command = "swigen " + strings.Join(os.Args[1:], " ")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runBenchMLP(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Shapes, "shape", []string{seedShape}, "shapes M,K,I (repeatable)")
	f.StringVar(&o.DType, "dtype", string(tiling.DefaultDType), "operand type: "+join.Strings(tiling.DTypes()))
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 300*time.Millisecond, "warm-up time per variant")
	f.BoolVar(&o.RecomputeOut, "recompute-out", false, "the backward recomputes out (bwd_dswiglu StoreOut) instead of the forward keeping it")
	f.BoolVar(&o.Check, "check", false, "first check one whole step against the float64 CPU reference")
	f.BoolVar(&o.CheckOnly, "check-only", false, "only the check (implies --check); no timing")
	f.StringVar(&o.CheckShape, "check-shape", "200,136,264", "shape M,K,I of the check (ragged against the tiles)")
	f.BoolVar(&o.BaselineOnly, "baseline-only", false, "do not build swigen kernels; every segment runs the baseline")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.StringVar(&o.JSONDir, "json", "", "write one JSON record per shape into this directory")
	f.StringSliceVar(&o.Names, "name", nil, "use this config (procedural name) for every segment of its kernel kind (repeatable; one per kind)")
	return cmd
}

// parse validates the flags before any GPU work.
func (o *benchMLPOptions) parse() error {
	var err error
	if o.shapes, err = parseShapes(o.Shapes); err != nil {
		return err
	}
	if len(o.shapes) == 0 && !o.CheckOnly {
		return usageError(fmt.Errorf("bench mlp: --shape: no shape given"))
	}
	if o.dtype, err = tiling.ParseDType(o.DType); err != nil {
		return usageError(fmt.Errorf("bench mlp: --dtype: %w", err))
	}
	if o.chk, err = tiling.ParseShape(o.CheckShape); err != nil {
		return usageError(fmt.Errorf("bench mlp: --check-shape: %w", err))
	}
	if err := checkTiming("bench mlp", o.Reps, o.Warmup); err != nil {
		return err
	}
	if err := checkDevice("bench mlp", o.Device); err != nil {
		return err
	}
	if err := checkNVCC("bench mlp", o.NVCC); err != nil {
		return err
	}
	if o.CheckOnly {
		o.Check = true
	}
	if o.overrides, err = mlp.ParseOverrides(o.Names, o.dtype); err != nil {
		return usageError(fmt.Errorf("bench mlp: %w", err))
	}
	return nil
}

func runBenchMLP(ctx context.Context, e *env, o *benchMLPOptions) error {
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return err
	}
	defer s.close()
	s.describe(e.stderr)
	base, release, err := s.baselines(true)
	if err != nil {
		return err
	}
	defer release()
	blas, dsw := base.BLAS, base.EW
	cctx, cancel := compileCtx(ctx)
	sw, err := mlp.NewSwiGLU(cctx, s.ctx, s.build)
	cancel()
	if err != nil {
		return err
	}
	defer sw.Close()
	menv := &mlp.Env{Ctx: s.ctx, Dev: s.dev, BLAS: blas, DSwiGLU: dsw, SwiGLU: sw}
	var kernels *mlp.Swigen
	if !o.BaselineOnly {
		// Compiles happen lazily, one per config, each bounded by buildTimeout.
		bctx, cancel := context.WithTimeout(ctx, 4*buildTimeout)
		defer cancel()
		kernels = mlp.NewSwigen(bctx, s.checkEnv(), s.arch, o.dtype, o.RecomputeOut)
		defer kernels.Close()
		for _, c := range o.overrides {
			if err := kernels.Override(c); err != nil {
				return usageError(fmt.Errorf("bench mlp: --name %s: %w", c.Name(), err))
			}
		}
	}
	lo := mlp.LedgerRun{Options: mlp.Options{DType: o.dtype, RecomputeOut: o.RecomputeOut, Reps: o.Reps, Warmup: o.Warmup,
		Seed: uint64(time.Now().UnixNano()), Progress: e.stderr},
		Shapes: o.shapes, Check: o.Check, CheckOnly: o.CheckOnly, CheckShape: o.chk, Out: e.stdout, Log: e.stderr}
	if o.JSONDir != "" {
		lo.Record = func(led *mlp.Ledger, checks []mlp.CheckResult) (string, error) {
			return writeMLPJSON(o, s.name, s.driver, string(s.arch), led, checks, time.Now().UTC())
		}
	}
	return mlp.RunLedger(menv, kernels, lo)
}

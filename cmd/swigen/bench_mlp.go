package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/mlp"
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

const benchMLPLong = `Time the whole SwiGLU-MLP training step, forward and backward, segment by
segment, swigen against the baseline, in the same run on this GPU: the
seed's implementation ledger (实现账本).

Segments (x [M,K], W [2I,K] as nn.Linear stores it, W_down [I,K], dy [M,K]):
  fwd gate-up       de = x @ W; out = left*silu(gate)     4MKI FLOPs
  fwd down          y = out @ W_down                      2MKI
  bwd dout+dSwiGLU  grad_de = dSwiGLU(dy @ W_down^T, de)  2MKI
  bwd dW_down       dW_down = out^T @ dy                  2MKI
  bwd dx            dx = grad_de @ W^T                    4MKI
  bwd dW            dW = grad_de^T @ x                    4MKI
At the seed's shape (16384,768,4608): forward 232 + 116 = 348 GF,
backward 116 + 116 + 232 + 232 = 696 GF.

The baseline is cuBLAS for every GEMM plus two elementwise kernels (the
forward SwiGLU, the backward dSwiGLU), with de and dout round-tripping
through HBM. swigen's kernel is used for a segment where one exists and
runs here (the ledger says why not otherwise); its output is compared
with the baseline's on the same inputs, and the step uses the faster of
the two that agree. Per segment and in total: FLOPs, minimum bytes,
roofline floor max(FLOPs / GEMM rate, bytes / copy bandwidth) from the two
ceilings measured in the same run, median time (p20-p80), TFLOP/s, GB/s
and % of the floor; then the whole step timed end to end, chosen vs
baseline.

--recompute-out: the backward's dSwiGLU also writes out (bwd_dswiglu with
StoreOut; the baseline's dSwiGLU kernel likewise), so the forward need not
keep out for dW_down: M*I*2 bytes of activation memory saved.

--check first runs one whole step on a small ragged shape (--check-shape)
with fresh random inputs, all-baseline and with swigen's kernels, and
compares y, de, out, grad_de, dW_down, dx and dW with a float64 CPU
reference (relative Frobenius <= 1e-2). A failure of the all-baseline step
stops the run; a failure with swigen's kernels is reported, the timing
still runs (the ledger never picks a kernel whose output differs from the
baseline's) and the exit status is 1.

--name NAME (repeatable) replaces the heuristic config of every segment
of that name's kernel kind (e.g. a gemm name for dW_down, dx and dW): its
tile, schedule, stages, cluster, raster and epilogue are used, while the
segment still sets its operand majors and outputs (the stages drop to the
deepest ring that fits if the segment's epilogue needs more room).

--json DIR writes one record per shape: the fields of
docs/DESIGN.md#bench-result-records for the whole step, plus every ledger
row.`

func newBenchMLPCmd(e *env, runF func(context.Context, *benchMLPOptions) error) *cobra.Command {
	o := &benchMLPOptions{}
	cmd := &cobra.Command{
		Use:   "mlp",
		Short: "Ledger of the whole MLP training step, swigen vs cuBLAS + elementwise",
		Long:  benchMLPLong,
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
	f.StringVar(&o.DType, "dtype", string(tiling.BF16), "operand type: bf16 or fp16")
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
		kernels = mlp.NewSwigen(bctx, &check.Env{Ctx: s.ctx, Dev: s.dev, Builder: s.build}, s.arch, o.dtype, o.RecomputeOut)
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

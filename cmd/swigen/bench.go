package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

type benchOptions struct {
	Select  pick.Request
	Shapes  []string
	Reps    int
	Warmup  time.Duration
	NVCC    string
	Device  int
	JSONDir string
	Command string
	Model   string
	// Suite times every shape of the model-shape suite (bench.Suite)
	// instead of --shape.
	Suite bool
	// Probe builds every kernel with this probe (gen.Probes); "" is the
	// product kernel.
	Probe string
	// HeuristicPerShape: without --name, --catalog, --space or
	// --heuristic-shape, each --shape runs the heuristic's config for
	// that shape (tiling.Heuristic depends on the shape: tile width,
	// tile order and L2 policy follow M, I and W_down's size).
	HeuristicPerShape bool
	// Path is --path: auto (the dispatch plan decides), fused or
	// unfused; the report's plan line and the suite's plan speedups
	// follow it.
	Path string
	path tiling.Path
}

// benchJobs pairs configs with shapes (pick.Request.Jobs): every selected
// config with every shape, or, for the default selection with
// HeuristicPerShape, each shape with the heuristic's config for it, or
// --tuned's winner (shapes that share a config share its build).
func benchJobs(o *benchOptions, arch tiling.Arch, shapes []tiling.Shape) ([]bench.Job, error) {
	if err := o.checkTuned(); err != nil {
		return nil, err
	}
	fixed := o.fixedSelection()
	sel := o.Select
	sel.TunedConfig = tunedConfig
	pj, err := sel.Jobs("bench", arch, shapes, fixed)
	if err != nil {
		return nil, err
	}
	jobs := make([]bench.Job, len(pj))
	for i, j := range pj {
		if fixed {
			if err := o.checkKind(j.Config); err != nil {
				return nil, err
			}
		}
		jobs[i] = bench.Job{Config: j.Config, Shapes: j.Shapes, Notes: j.Notes}
	}
	return jobs, nil
}

func newBenchCmd(e *env, runF func(context.Context, *benchOptions) error) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [bwd|gateup]",
		Short: "Benchmark kernels against cuBLAS + elementwise, with the roofline floor",
		Long:  longHelp("bench"),
		Example: `  swigen bench bwd --shape 16384,768,4608 --shape 8192,4096,14336 --json bench/results
  swigen bench bwd --name bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong --reps 50
  swigen bench gateup --store-out --shape 16384,768,4608   # fused forward, training`,
		GroupID: groupGPU,
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.setKind(args, cmd.Flags().Changed("kernel")); err != nil {
				return err
			}
			if cmd.Flags().Changed("path") && strings.TrimSpace(o.Path) == "" {
				return usageError(errors.New("bench: --path is empty; want auto, fused or unfused"))
			}
			o.Command = "swigen " + strings.Join(os.Args[1:], " ")
			o.HeuristicPerShape = !cmd.Flags().Changed("heuristic-shape")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			if o.Model != "" {
				return runModel(e, o)
			}
			return runBench(cmd.Context(), e, o)
		},
	}
	cmd.AddCommand(newBenchMLPCmd(e, nil))  // bench mlp: the whole step (bench_mlp.go)
	cmd.AddCommand(newBenchGemmCmd(e, nil)) // bench gemm: plain gemm vs cuBLAS (bench_gemm.go)
	f := cmd.Flags()
	addSelectFlags(cmd, &o.Select)
	f.Lookup("heuristic-shape").Usage = "shape the heuristic config is picked for, M,K,I or M,N,K for gemm (default: each --shape gets the heuristic's config for it)"
	f.StringArrayVar(&o.Shapes, "shape", []string{seedShape}, "shapes M,K,I, or M,N,K for gemm (repeatable)")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 300*time.Millisecond, "warm-up time per variant")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.StringVar(&o.JSONDir, "json", "", "write one JSON result per config and shape into this directory")
	f.StringVar(&o.Probe, "probe", "", "build each kernel with this probe: "+strings.Join(gen.ProbeNames(), ", ")+" (trace prints per-tile timings)")
	f.BoolVar(&o.Suite, "suite", false, "time every shape of the model-shape suite (public model MLPs, M 128 to 32768) and print the speedups' min and geomean")
	cmd.MarkFlagsMutuallyExclusive("suite", "shape")
	f.StringVar(&o.Select.Tuned, "tuned", "", "results DB of swigen tune: each shape runs its tuned winner (the heuristic's config where the DB has none)")
	f.StringVar(&o.Model, "model", "", "print a roofline projection for a GPU model ("+strings.Join(perfmodel.Names(), ", ")+") instead of measuring, on b200 with a per-tile pipeline projection of each shape's sm_100a config; needs no GPU")
	f.StringVar(&o.Path, "path", "auto", "dispatch path whose time the plan line and the suite's plan speedups report: auto (the dispatch plan decides), fused, or unfused (swigen gemm + elementwise); both are always timed")
	f.BoolVar(&o.Select.HeuristicStoreOut, "store-out", false, "without --name: the heuristic's StoreOut config (bench gateup: training, de stored as well; bench bwd: out recomputed and stored)")
	return cmd
}

// setKind applies the positional kind and --kernel (bench.ParseKind).
func (o *benchOptions) setKind(args []string, kernelSet bool) error {
	k, err := bench.ParseKind(args, o.Select.Kernel(), kernelSet)
	if err != nil {
		return usageError(err)
	}
	o.Select.Kernels = []string{string(k)}
	return nil
}

// validate checks every flag that needs no GPU and returns the shapes.
func (o *benchOptions) validate() ([]tiling.Shape, error) {
	shapes, err := o.Select.ParseShapes(o.Shapes)
	if err != nil {
		return nil, err
	}
	if err := checkTiming("bench", o.Reps, o.Warmup); err != nil {
		return nil, err
	}
	if err := checkDevice("bench", o.Device); err != nil {
		return nil, err
	}
	if err := checkNVCC("bench", o.NVCC); err != nil {
		return nil, err
	}
	if err := o.checkNamesAndTuned(); err != nil {
		return nil, err
	}
	if o.Suite {
		shapes = bench.SuiteShapes()
	}
	if len(shapes) == 0 {
		return nil, usageError(fmt.Errorf("bench: --shape: no shape given"))
	}
	if err := o.Select.Check(); err != nil {
		return nil, err
	}
	if o.Model != "" {
		if _, err := modelGPU(o.Model); err != nil {
			return nil, err
		}
	}
	if err := checkProbeNames(o.Probe, o.Select.Names); err != nil {
		return nil, err
	}
	if o.path, err = tiling.ParsePath(o.Path); err != nil {
		return nil, usageError(fmt.Errorf("bench: --%w", err))
	}
	if o.path == tiling.PathUnfused && o.Probe != "" {
		return nil, usageError(fmt.Errorf("bench: --path unfused with --probe %s: probes instrument the fused kernel", o.Probe))
	}
	for _, n := range o.Select.Names {
		if c, err := tiling.ParseName(n); err == nil {
			if err := o.checkKind(c); err != nil {
				return nil, err
			}
		}
	}
	if err := o.checkTuned(); err != nil {
		return nil, err
	}
	return shapes, nil
}

// checkNamesAndTuned checks, for the measured run and the projection
// alike, that every --name parses and that --path and --tuned are
// usable: a DB that is no results DB is bad input before any work.
func (o *benchOptions) checkNamesAndTuned() error {
	for _, n := range o.Select.Names {
		if _, err := tiling.ParseName(n); err != nil {
			return usageError(fmt.Errorf("bench: --name: %w", err))
		}
	}
	if o.Select.Tuned == "" {
		return nil
	}
	if _, err := os.Stat(o.Select.Tuned); err != nil {
		return usageError(fmt.Errorf("bench: --tuned: %w", err))
	}
	if _, err := tune.ReadDB(o.Select.Tuned); err != nil {
		return usageError(fmt.Errorf("bench: --tuned: %w", err))
	}
	return nil
}

// fixedSelection reports whether the flags fix the configs (--name,
// --catalog, --space, --heuristic-shape) instead of the heuristic's per
// shape.
func (o *benchOptions) fixedSelection() bool {
	sel := o.Select
	return len(sel.Names) > 0 || sel.Catalog || sel.Space || !o.HeuristicPerShape
}

// checkTuned rejects --tuned with a fixed selection: both pick the configs.
func (o *benchOptions) checkTuned() error {
	if o.Select.Tuned != "" && o.fixedSelection() {
		return usageError(errors.New("bench: --tuned picks each shape's config; it cannot be combined with --name, --catalog, --space or --heuristic-shape"))
	}
	return nil
}

// checkKind rejects a config of another kind than the command times.
func (o *benchOptions) checkKind(c tiling.Config) error {
	if err := bench.CheckKind(tiling.Kernel(o.Select.Kernel()), c); err != nil {
		return usageError(err)
	}
	return nil
}

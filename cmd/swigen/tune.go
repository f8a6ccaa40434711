package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// tuneOptions are the parsed flags of `swigen tune` (their help says
// what each does).
type tuneOptions struct {
	Kernel string
	Arch   string
	DType  string
	Shape  string
	// Routing is a grouped kind's routing ("": uniform).
	Routing string

	StoreOut bool

	Filters []string
	Max     int
	Shard   string
	Retry   bool

	DB     string
	Report string

	Devices     []int
	Jobs        int
	Timeout     time.Duration
	SyncTimeout time.Duration
	SlowFactor  float64
	Reps        int
	Warmup      time.Duration
	NVCC        string
	Verbose     bool

	Suite bool // every shape of bench.Suite, with the same workers

	IncludeHangTest bool // hidden: the hang probe after the last candidate
	Exhaustive      bool
	ScreenKeep      int
}

func newTuneCmd(e *env, runF func(context.Context, *tuneOptions) error) *cobra.Command {
	o := &tuneOptions{}
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Autotune a kernel on the GPU: sweep configs, record results, pick the winner",
		Long:  longHelp("tune"),
		Example: `  swigen tune --shape 16384,768,4608 --db tune.json --report tune.svg
  swigen tune --kernel moe_fwd_gateup --shape 65536,2048,768,128 --routing zipf --db moe.json
  swigen tune merge a.json b.json -o tune.json`,
		GroupID: groupGPU,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runTune(cmd.Context(), e, o, defaultTuneDeps())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Kernel, "kernel", string(tiling.DefaultKernel()), "kernel kind: "+join.Strings(tiling.TunableKinds())+" (gemm: --shape is M,N,K, as every command reads a gemm shape; a grouped kind: its sizes then E, see --shape)")
	f.StringVar(&o.Arch, "arch", "auto", "target: auto (the GPU's), "+join.Strings(tiling.Arches()))
	f.StringVar(&o.DType, "dtype", string(tiling.DefaultDType), "operand type: "+join.Strings(tiling.DTypes()))
	f.BoolVar(&o.Suite, "suite", false, "tune every shape of the model-shape suite in turn (public model MLPs; for gemm the training step's GEMMs on swigen's gemm at each: gate-up, dout, dx, dW, dW_down, in their operand majors) into --db; swigen tune table turns such DBs into the heuristic's table")
	f.StringVar(&o.Shape, "shape", seedShape, "problem size to tune for: M,K,I (bwd_dswiglu, fwd_gateup) or M,N,K (gemm), as emit --tuned reads it; a grouped kind's is M,K,I,E (moe_fwd_gateup, moe_bwd_dswiglu) or M,N,K,E (moe_gemm): M tokens over all E experts")
	f.StringVar(&o.Routing, "routing", "", "grouped kinds: how the T tokens are spread over the E experts, "+join.Strings(tune.Routings())+" (default uniform; zipf: expert j gets ~1/(j+1)^1.2 of them), part of the DB key")
	f.BoolVar(&o.StoreOut, "store-out", false, "set StoreOut on every candidate: fwd_gateup also stores de (training; default: inference, only out), bwd_dswiglu also stores the recomputed out; recorded under its own DB key, never mixed with runs without it")
	f.StringArrayVar(&o.Filters, "filter", nil, "keep candidates whose name contains this (repeatable: all must match)")
	f.IntVar(&o.Max, "max", 0, "keep at most this many candidates (0: all)")
	f.StringVar(&o.Shard, "shard", "0/1", "run shard i of n: the candidates (of those the prune model keeps) with index%n == i; swigen tune merge joins the shards' DBs")
	f.BoolVar(&o.Exhaustive, "exhaustive", false, "measure every candidate fully; by default those a static model of operand traffic and GPU fill says cannot win are left out (tune.Prune), the rest screened briefly and the best --screen-keep measured fully")
	f.IntVar(&o.ScreenKeep, "screen-keep", 4, "candidates measured fully after the screening (0: no screening)")
	f.BoolVar(&o.Retry, "retry", false, "run candidates recorded as failed again (passing ones are always kept)")
	f.StringVar(&o.DB, "db", "swigen-tune.json", "results DB (JSON; created if missing, shared safely by concurrent tuners)")
	f.StringVar(&o.Report, "report", "", "write an SVG plot of the results to this file")
	f.IntSliceVar(&o.Devices, "devices", []int{0}, "GPU ordinals; one worker process runs per device")
	f.IntVar(&o.Jobs, "jobs", runtime.GOMAXPROCS(0), "parallel compiles")
	f.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "per-candidate limit; the worker is killed after it and the next candidate gets a new one")
	f.DurationVar(&o.SyncTimeout, "sync-timeout", 20*time.Second, "per-GPU-wait limit inside the child (a hung kernel is reported, not waited on)")
	f.Float64Var(&o.SlowFactor, "slow-factor", tune.DefaultSlowFactor, "stop a candidate whose first launches take this many times the best so far (0: never)")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 200*time.Millisecond, "warm-up time per variant")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "pass the children's output through to stderr")
	f.BoolVar(&o.IncludeHangTest, "include-hang-test", false, "append a deliberately deadlocking config (test of the isolation)")
	f.MarkHidden("include-hang-test")
	cmd.MarkFlagsMutuallyExclusive("suite", "shape")
	cmd.AddCommand(newTuneMergeCmd(e, nil))
	cmd.AddCommand(newTuneTableCmd(e, nil))
	return cmd
}

func runTune(ctx context.Context, e *env, o *tuneOptions, d tuneDeps) error {
	ro, err := o.validate()
	if err != nil {
		return err
	}
	// The DB is read before the GPU is probed: a corrupt one is bad input
	// (exit 2) and must not wait for the probe.
	if _, err := tune.ReadDB(o.DB); err != nil {
		return fmt.Errorf("tune: --db: %w", err)
	}
	g, err := d.probe(o.Devices)
	if err != nil {
		return err
	}
	if err := g.CheckArch(o.Arch); err != nil {
		return err
	}
	tc, err := d.toolchain(o.NVCC)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if ro.Templates, err = templates.Hash(); err != nil {
		return err
	}
	ro.Arch, ro.GPU, ro.Compiler, ro.Prepare, ro.Now = g.Arch, g, "nvcc "+tc.Version, d.prepare(tc), d.now
	ro.NewRunner = func() (tune.Runner, error) { return d.runner(o, tc, e.stderr) }
	ro.Reporter = &tune.TextReporter{Out: e.stdout, Log: e.stderr, Run: &ro, Timeout: o.Timeout, Report: o.Report,
		NewBar: tune.NewTermBar, Speedups: func(what string, xs []tune.ShapeSpeedup) { printSpeedupStats(e, what, shapeSpeedups(xs)) }}
	_, err = tune.Run(ctx, ro)
	return err
}

// validate checks every flag that needs no GPU (a bad value is exit 2
// before anything is probed or compiled) and returns the tune they ask
// for, less what the GPU and the compiler say.
func (o *tuneOptions) validate() (tune.RunOptions, error) {
	ro := tune.RunOptions{StoreOut: o.StoreOut, Filter: o.Filters, Max: o.Max, ShardFlag: o.Shard, DBPath: o.DB,
		Devices: o.Devices, PrepareWorkers: o.Jobs, SlowFactor: o.SlowFactor, Retry: o.Retry,
		Exhaustive: o.Exhaustive, ScreenKeep: o.ScreenKeep, HangTest: o.IncludeHangTest}
	var err error
	if ro.Kernel, err = tiling.ParseKernel(o.Kernel); err != nil {
		return ro, usageError(fmt.Errorf("tune: %w", err))
	}
	if err := tune.CheckKernel(ro.Kernel, o.StoreOut); err != nil {
		return ro, usageError(err)
	}
	if ro.DType, err = tiling.ParseDType(o.DType); err != nil {
		return ro, usageError(fmt.Errorf("tune: %w", err))
	}
	if ro.Shapes, ro.Majors, err = o.tuneShapes(ro.Kernel); err != nil {
		return ro, err
	}
	if ro.Experts, ro.Routing, err = o.grouped(ro.Kernel); err != nil {
		return ro, err
	}
	if ro.Shard, ro.Shards, err = tune.ParseShard(o.Shard); err != nil {
		return ro, usageError(err)
	}
	if err := ro.CheckLimits(); err != nil {
		return ro, usageError(err)
	}
	if err := checkTiming("tune", o.Reps, o.Warmup); err != nil {
		return ro, err
	}
	if err := checkNVCC("tune", o.NVCC); err != nil {
		return ro, err
	}
	if o.SyncTimeout <= 0 || o.Timeout <= 0 {
		return ro, usageError(fmt.Errorf("tune: --sync-timeout %v, --timeout %v: want positive limits", o.SyncTimeout, o.Timeout))
	}
	if o.Jobs < 1 {
		return ro, usageError(fmt.Errorf("tune: --jobs %d: want at least 1 parallel compile", o.Jobs))
	}
	if err := checkWritableFile(o.Report); err != nil {
		return ro, usageError(fmt.Errorf("tune: --report: %w", err))
	}
	arches, err := tune.TargetArches(o.Arch)
	if err != nil {
		return ro, usageError(err)
	}
	if err := ro.CheckSelection(arches); err != nil {
		return ro, usageError(err)
	}
	if o.Suite && o.Report != "" {
		return ro, usageError(errors.New("tune: --report with --suite: the report plots one shape; run tune --shape for it"))
	}
	return ro, nil
}

// tuneShapes is the shape --shape names, in kind k's order
// (tiling.ShapeOrder: M,N,K for gemm, as swigen bench gemm and emit read
// it, M,K,I otherwise), or with --suite every shape of the model-shape
// suite: M,K,I for the fused kinds; for gemm the training step's GEMMs
// that run on swigen's gemm at every suite shape (bench.SuiteGemms), each
// with its operand majors (majors, one per shape; nil otherwise), kept as
// the DB keeps a gemm shape, {M, K, I=N}.
func (o *tuneOptions) tuneShapes(k tiling.Kernel) (shapes []tiling.Shape, majors [][2]tiling.Major, err error) {
	if o.Suite && k == tiling.PlainGEMM() {
		for _, g := range bench.SuiteGemms() {
			shapes = append(shapes, g.Shape())
			majors = append(majors, [2]tiling.Major{g.MajorA, g.MajorB})
		}
		return shapes, majors, nil
	}
	if o.Suite && k.Grouped() {
		return nil, nil, usageError(fmt.Errorf("tune: --suite with --kernel %s: the model-shape suite has no grouped shapes; tune each with --shape %s,E", k, tiling.ShapeOrder(k)))
	}
	if o.Suite {
		return bench.SuiteShapes(), nil, nil
	}
	if k.Grouped() {
		s, _, err := tune.ParseGroupedShape(k, o.Shape)
		if err != nil {
			return nil, nil, usageError(err)
		}
		return []tiling.Shape{s}, nil, nil
	}
	s, err := tiling.ParseKindShape(k, o.Shape)
	if err != nil {
		return nil, nil, usageError(fmt.Errorf("tune: %w", err))
	}
	return []tiling.Shape{s}, nil, nil
}

// grouped is a grouped kind's expert count (the last size of --shape) and
// routing (--routing, uniform by default); a --routing for another kind
// is a usage error.
func (o *tuneOptions) grouped(k tiling.Kernel) (experts int, routing string, err error) {
	if !k.Grouped() {
		if o.Routing != "" {
			return 0, "", usageError(fmt.Errorf("tune: --routing %s with --kernel %s: only the grouped kinds (%s) route tokens to experts", o.Routing, k, tiling.Words(tiling.GroupedKernels())))
		}
		return 0, "", nil
	}
	routing = tune.RoutingUniform
	if o.Routing != "" {
		if routing, err = tune.ParseRouting(o.Routing); err != nil {
			return 0, "", usageError(err)
		}
	}
	if _, experts, err = tune.ParseGroupedShape(k, o.Shape); err != nil {
		return 0, "", usageError(err)
	}
	return experts, routing, nil
}

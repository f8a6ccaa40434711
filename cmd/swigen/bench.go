package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/tiling"
)

type benchOptions struct {
	Select  configSelect
	Shapes  []string
	Reps    int
	Warmup  time.Duration
	NVCC    string
	Device  int
	JSONDir string
	Command string
	Model   string
	// Probe builds every kernel with this probe (gen.Probes); "" is the
	// product kernel.
	Probe string
	// HeuristicPerShape: without --name, --catalog, --space or
	// --heuristic-shape, each --shape runs the heuristic's config for
	// that shape (tiling.Heuristic depends on the shape: tile width,
	// tile order and L2 policy follow M, I and W_down's size).
	HeuristicPerShape bool
}

// benchJob is one config and the shapes it is timed at.
type benchJob struct {
	cfg    tiling.Config
	shapes []tiling.Shape
}

// benchJobs pairs configs with shapes: every selected config with every
// shape, or, for the default selection with HeuristicPerShape, each shape
// with the heuristic's config for it (shapes that share a config share
// its build).
func benchJobs(o *benchOptions, arch tiling.Arch, shapes []tiling.Shape) ([]benchJob, error) {
	sel := o.Select
	if len(sel.Names) > 0 || sel.Catalog || sel.Space || !o.HeuristicPerShape {
		cfgs, err := sel.resolve(arch)
		if err != nil {
			return nil, err
		}
		jobs := make([]benchJob, len(cfgs))
		for i, c := range cfgs {
			if string(c.Kernel) != sel.Kernel {
				return nil, usageError(fmt.Errorf("bench %s: config %s is a %s kernel (bench bwd times bwd_dswiglu, bench gateup fwd_gateup)",
					kindArg(tiling.Kernel(sel.Kernel)), c.Name(), c.Kernel))
			}
			jobs[i] = benchJob{c, shapes}
		}
		return jobs, nil
	}
	var jobs []benchJob
	idx := map[string]int{}
	for _, sh := range shapes {
		one := sel
		one.Shape = sh.String()
		cfgs, err := one.resolve(arch)
		if err != nil {
			return nil, err
		}
		c := cfgs[0]
		if i, ok := idx[c.Name()]; ok {
			jobs[i].shapes = append(jobs[i].shapes, sh)
			continue
		}
		idx[c.Name()] = len(jobs)
		jobs = append(jobs, benchJob{c, []tiling.Shape{sh}})
	}
	return jobs, nil
}

const benchLong = `Time kernels against the baseline, in the same run, on this GPU.

bench bwd times bwd_dswiglu (the fused dout GEMM + dSwiGLU epilogue)
against the seed's baseline: cuBLAS for dout = dy @ W_down^T, then one
vectorized elementwise dSwiGLU kernel. It also measures the two ceilings
(cuBLAS 8192^3 GEMM rate and device copy bandwidth) and reports, per
segment, FLOPs, bytes, median time (p20-p80), TFLOP/s, GB/s and the share
of the roofline floor max(FLOPs/GEMM rate, bytes/copy bandwidth). Inputs
rotate over enough sets to keep L2 cold; each variant is warmed up by time
and timed with CUDA events, at least 20 repetitions, interleaved.

bench gateup times fwd_gateup (the gate-up GEMM with out = left*silu(gate)
in the epilogue) the same way, against cuBLAS for de = x @ W and the SwiGLU
elementwise kernel: inference (only out stored) by default, training (de
stored as well) for configs with StoreOut (--store-out picks the heuristic's).

Without --name, --catalog or --space, each --shape runs the heuristic's
config for that shape (--heuristic-shape picks one config for all shapes).

--json DIR writes one result record per (config, shape): the fields are in
docs/DESIGN.md#bench-result-records.

--probe NAME builds each kernel with a probe (docs/PERFORMANCE.md#probes):
trace prints each consumer's per-tile timings after the runs; noepi and
nomma split the kernel's time between its mainloop and its epilogue;
hang deadlocks on purpose (the launch is reported as trapped).`

func newBenchCmd(e *env, runF func(context.Context, *benchOptions) error) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [bwd|gateup]",
		Short: "Benchmark kernels against cuBLAS + elementwise, with the roofline floor",
		Long:  benchLong,
		Example: `  swigen bench bwd --shape 16384,768,4608 --shape 8192,4096,14336 --json bench/results
  swigen bench bwd --name bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong --reps 50
  swigen bench gateup --store-out --shape 16384,768,4608   # fused forward, training`,
		GroupID: groupGPU,
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.setKind(args, cmd.Flags().Changed("kernel")); err != nil {
				return err
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
	f.Lookup("heuristic-shape").Usage = "shape M,K,I the heuristic config is picked for (default: each --shape gets the heuristic's config for it)"
	f.StringArrayVar(&o.Shapes, "shape", []string{seedShape}, "shapes M,K,I (repeatable)")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 300*time.Millisecond, "warm-up time per variant")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.StringVar(&o.JSONDir, "json", "", "write one JSON result per config and shape into this directory")
	f.StringVar(&o.Probe, "probe", "", "build each kernel with this probe: "+strings.Join(gen.ProbeNames(), ", ")+" (trace prints per-tile timings)")
	f.StringVar(&o.Model, "model", "", "print a roofline projection for a GPU model ("+strings.Join(modelNames(), ", ")+") instead of measuring; needs no GPU")
	f.BoolVar(&o.Select.StoreOut, "store-out", false, "without --name: the heuristic's StoreOut config (bench gateup: training, de stored as well; bench bwd: out recomputed and stored)")
	return cmd
}

// setKind applies the positional kind: bwd (bwd_dswiglu, the default) or
// gateup (fwd_gateup, timed against cuBLAS + the SwiGLU elementwise
// kernel). --kernel may name either kind, or the positional one; other
// kinds have their own commands.
func (o *benchOptions) setKind(args []string, kernelSet bool) error {
	kind := tiling.KernelBwdDSwiGLU
	if kernelSet {
		kind = tiling.Kernel(o.Select.Kernel)
	}
	if len(args) == 1 {
		pos := tiling.KernelBwdDSwiGLU
		switch args[0] {
		case "bwd":
		case "gateup":
			pos = tiling.KernelFwdGateUp
		default:
			return usageError(fmt.Errorf("bench %q: want bwd or gateup, or the mlp or gemm subcommand", args[0]))
		}
		if kernelSet && kind != pos {
			return usageError(fmt.Errorf("bench %s: --kernel %s names another kind", args[0], o.Select.Kernel))
		}
		kind = pos
	}
	if kind != tiling.KernelBwdDSwiGLU && kind != tiling.KernelFwdGateUp {
		return usageError(fmt.Errorf("bench: --kernel %s: bench times bwd_dswiglu (bench bwd) and fwd_gateup (bench gateup); gemm has bench gemm", o.Select.Kernel))
	}
	o.Select.Kernel = string(kind)
	return nil
}

func kindArg(k tiling.Kernel) string {
	if k == tiling.KernelFwdGateUp {
		return "gateup"
	}
	return "bwd"
}

// recordHeader is what every bench/results record starts with: what ran,
// where, when and how (docs/DESIGN.md#bench-result-records).
type recordHeader struct {
	Kernel   string       `json:"kernel"`
	Arch     string       `json:"arch"`
	DType    string       `json:"dtype"`
	Shape    tiling.Shape `json:"shape"`
	Config   string       `json:"config"`
	Probe    string       `json:"probe,omitempty"` // the probe the kernel was built with
	GPU      string       `json:"gpu"`
	Driver   int          `json:"driver"`
	Revision string       `json:"revision"`
	Date     string       `json:"date"`
	Command  string       `json:"command"`
}

// benchResult is the bench/results record (docs/DESIGN.md#bench-result-records).
type benchResult struct {
	recordHeader
	US         float64 `json:"us"`
	P20US      float64 `json:"p20_us"`
	P80US      float64 `json:"p80_us"`
	BaselineUS float64 `json:"baseline_us"`
	GemmUS     float64 `json:"baseline_gemm_us"`
	EwUS       float64 `json:"baseline_elementwise_us"`
	FloorUS    float64 `json:"floor_us"`
	Speedup    float64 `json:"speedup"`
	PctFloor   float64 `json:"pct_of_floor"`
	RelErr     float64 `json:"rel_err"`
	GemmTFLOPs float64 `json:"ceiling_gemm_tflops"`
	CopyGBs    float64 `json:"ceiling_copy_gbs"`
	Reps       int     `json:"reps"`
	Sets       int     `json:"rotated_sets"`
}

// gitRevision is set with -ldflags "-X main.gitRevision=..." by
// bench/build.sh, for binaries built outside a VCS-stamped build.
var gitRevision string

func revision() string {
	if gitRevision != "" {
		return gitRevision
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

// validate checks every flag that needs no GPU and returns the shapes.
func (o *benchOptions) validate() ([]tiling.Shape, error) {
	shapes, err := parseShapes(o.Shapes)
	if err != nil {
		return nil, err
	}
	if len(shapes) == 0 {
		return nil, usageError(fmt.Errorf("bench: --shape: no shape given"))
	}
	if err := o.Select.check(); err != nil {
		return nil, err
	}
	if o.Model != "" {
		if _, ok := gpuModels[strings.ToLower(o.Model)]; !ok {
			return nil, usageError(fmt.Errorf("bench --model %q: want one of %s", o.Model, strings.Join(modelNames(), ", ")))
		}
	}
	if o.Probe != "" {
		if _, err := gen.LookupProbe(o.Probe); err != nil {
			return nil, usageError(fmt.Errorf("bench: --probe: %w", err))
		}
	}
	return shapes, nil
}

func runBench(ctx context.Context, e *env, o *benchOptions) error {
	shapes, err := o.validate()
	if err != nil {
		return err
	}
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return err
	}
	defer s.close()
	jobs, err := benchJobs(o, s.arch, shapes)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := checkProbe(o.Probe, []tiling.Config{j.cfg}); err != nil {
			return err
		}
	}
	s.describe(e.stderr)
	gateup := o.Select.Kernel == string(tiling.KernelFwdGateUp)
	base, release, err := s.baselines(!gateup) // bwd: the dSwiGLU elementwise kernel
	if err != nil {
		return err
	}
	defer release()
	benv := &bench.Env{Ctx: s.ctx, Dev: s.dev, Base: base}
	menv := &mlp.Env{Ctx: s.ctx, Dev: s.dev, BLAS: base.BLAS}
	if gateup {
		// fwd_gateup's baseline: the cuBLAS GEMM, then the SwiGLU
		// elementwise kernel.
		cctx, cancel := compileCtx(ctx)
		menv.SwiGLU, err = mlp.NewSwiGLU(cctx, s.ctx, s.build)
		cancel()
		if err != nil {
			return err
		}
		defer menv.SwiGLU.Close()
	}
	opts := bench.Options{Reps: o.Reps, Warmup: o.Warmup, Seed: uint64(time.Now().UnixNano())}
	ceilings := map[tiling.DType]bench.Ceilings{}
	cenv := &check.Env{Ctx: s.ctx, Dev: s.dev, Builder: s.build}
	var summary []string
	var unbuilt []string
	for _, job := range jobs {
		cfg := job.cfg
		c, ok := ceilings[cfg.DType]
		if !ok {
			fmt.Fprintf(e.stderr, "measuring ceilings (%s)...\n", cfg.DType)
			if c, err = bench.MeasureCeilings(benv, cfg.DType, opts); err != nil {
				return err
			}
			ceilings[cfg.DType] = c
			fmt.Fprintf(e.stdout, "ceilings %s: cuBLAS 8192^3 %.0f TFLOP/s, device copy %.0f GB/s\n", cfg.DType, c.GemmTFLOPs, c.CopyGBs)
		}
		cctx, cancel := compileCtx(ctx)
		k, _, err := check.BuildAndLoadProbe(cctx, cenv, cfg, o.Probe)
		cancel()
		if err != nil {
			// One config that does not build (a spill the build check
			// rejects, say) must not cost the others their run.
			fmt.Fprintf(e.stderr, "skipping %s: %v\n", cfg.Name(), err)
			summary = append(summary, fmt.Sprintf("%-60s not built (see above)", cfg.Name()))
			unbuilt = append(unbuilt, cfg.Name())
			continue
		}
		trace := o.Probe == "trace"
		for _, sh := range job.shapes {
			if trace {
				if err := k.ClearTrace(); err != nil {
					k.Close()
					return err
				}
			}
			var rep *bench.BwdReport
			if gateup {
				var r *mlp.FwdGateUpReport
				if r, err = mlp.BenchFwdGateUp(menv, k, sh, c, opts); err == nil {
					rep = gateupReport(r)
				}
			} else {
				rep, err = bench.BenchBwd(benv, k, sh, c, opts)
			}
			if err != nil {
				k.Close()
				return err
			}
			printReport(e, cfg, rep)
			if trace {
				// Every timed launch wrote the same records; the buffer holds
				// the last one's.
				if err := printTrace(e, k); err != nil {
					k.Close()
					return err
				}
			}
			summary = append(summary, fmt.Sprintf("%-60s %6d,%5d,%6d  %8.1f us  base %8.1f us  %5.2fx  floor %6.1f us (%3.0f%%)  grid %d",
				cfg.Name(), sh.M, sh.K, sh.I, rep.Rows[0].T.Median, rep.Rows[1].T.Median, rep.Speedup, rep.FloorUS, rep.Rows[0].PctFloor, rep.Grid))
			if o.JSONDir != "" {
				if err := writeBenchJSON(o, s, cfg, rep); err != nil {
					k.Close()
					return err
				}
			}
		}
		k.Close()
	}
	fmt.Fprintln(e.stdout, "\nsummary (median; speedup = baseline / swigen):")
	for _, l := range summary {
		fmt.Fprintln(e.stdout, l)
	}
	if len(unbuilt) > 0 {
		return fmt.Errorf("bench: %d of %d configs did not build: %s", len(unbuilt), len(jobs), strings.Join(unbuilt, ", "))
	}
	return nil
}

// gateupReport is a fwd_gateup result in bench's report form: the same
// rows (swigen, baseline, its GEMM, its elementwise kernel) and fields.
func gateupReport(r *mlp.FwdGateUpReport) *bench.BwdReport {
	return &bench.BwdReport{Shape: r.Shape, Config: r.Config, Ceil: r.Ceil, FloorUS: r.FloorUS, Rows: r.Rows, Speedup: r.Speedup,
		RelErr: r.RelErr, Sets: r.Sets, Grid: r.Grid, Warnings: r.Warnings}
}

// printReport prints one config's bench at one shape: its rows, floor and
// speedup.
func printReport(e *env, cfg tiling.Config, r *bench.BwdReport) {
	w := e.stdout
	mode := ""
	if cfg.Kernel == tiling.KernelFwdGateUp {
		mode = "  inference: out stored"
		if cfg.StoreOut {
			mode = "  training: de and out stored"
		}
	}
	fmt.Fprintf(w, "\n%s M=%d K=%d I=%d  config %s  (grid %d CTAs, %d rotated input sets)%s\n", cfg.Kernel, r.Shape.M, r.Shape.K, r.Shape.I, r.Config, r.Grid, r.Sets, mode)
	fmt.Fprintf(w, "floor %.1f us = max(FLOPs / %.0f TFLOP/s, bytes / %.0f GB/s)\n", r.FloorUS, r.Ceil.GemmTFLOPs, r.Ceil.CopyGBs)
	fmt.Fprintf(w, "%-36s %9s %9s %10s %18s %9s %8s %7s\n", "segment", "GFLOP", "MB", "us", "p20-p80", "TFLOP/s", "GB/s", "%floor")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-36s %9.1f %9.1f %10.1f %8.1f-%-9.1f %9.1f %8.0f %6.0f%%\n",
			truncate(row.Name, 36), row.FLOPs/1e9, row.Bytes/1e6, row.T.Median, row.T.P20, row.T.P80, row.TFLOPs, row.GBs, row.PctFloor)
	}
	fmt.Fprintf(w, "speedup vs baseline %.2fx; fused vs baseline output rel err %.2e\n", r.Speedup, r.RelErr)
	for _, x := range r.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", x)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func writeBenchJSON(o *benchOptions, s *gpuSession, cfg tiling.Config, r *bench.BwdReport) error {
	now := time.Now().UTC()
	res := benchResult{
		recordHeader: recordHeader{Kernel: string(cfg.Kernel), Arch: string(cfg.Arch), DType: string(cfg.DType), Shape: r.Shape,
			Config: cfg.Name(), Probe: o.Probe, GPU: s.name, Driver: s.driver, Revision: revision(), Date: now.Format(time.RFC3339),
			Command: o.Command},
		US: r.Rows[0].T.Median, P20US: r.Rows[0].T.P20, P80US: r.Rows[0].T.P80,
		BaselineUS: r.Rows[1].T.Median, GemmUS: r.Rows[2].T.Median, EwUS: r.Rows[3].T.Median,
		FloorUS: r.FloorUS, Speedup: r.Speedup, PctFloor: r.Rows[0].PctFloor, RelErr: r.RelErr,
		GemmTFLOPs: r.Ceil.GemmTFLOPs, CopyGBs: r.Ceil.CopyGBs, Reps: r.Rows[0].T.N, Sets: r.Sets,
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.JSONDir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%s/%s_%s_%dx%dx%d.json", o.JSONDir, now.Format("20060102T150405"), probedName(cfg, o.Probe), r.Shape.M, r.Shape.K, r.Shape.I)
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// gpuModel is a datasheet roofline: a projection, never a measurement.
type gpuModel struct {
	name    string
	tflops  float64 // dense bf16
	tbs     float64 // HBM
	sms     int
	seedRef string // what the seed reported on this card, if anything
}

var gpuModels = map[string]gpuModel{
	"b200": {name: "B200 (datasheet: 148 SMs, dense bf16 ~2250 TFLOP/s, HBM ~8 TB/s)", tflops: 2250, tbs: 8, sms: 148,
		seedRef: "seed's measured B200 numbers: unfused 194 us -> fused 175.5 us"},
	"h200": {name: "H200 (datasheet: 132 SMs, dense bf16 ~990 TFLOP/s, HBM ~4.8 TB/s)", tflops: 990, tbs: 4.8, sms: 132},
}

func modelNames() []string { return []string{"b200", "h200"} }

// runModel prints the roofline floor of bwd_dswiglu for the shapes on a
// datasheet GPU, with the unfused baseline's floor (dout written and read
// back) beside it. It is labelled a projection: nothing runs.
func runModel(e *env, o *benchOptions) error {
	m, ok := gpuModels[strings.ToLower(o.Model)]
	if !ok {
		return usageError(fmt.Errorf("bench --model %q: want one of %s", o.Model, strings.Join(modelNames(), ", ")))
	}
	shapes, err := parseShapes(o.Shapes)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "PROJECTION (roofline from datasheet numbers, not a measurement): %s\n", m.name)
	for _, s := range shapes {
		flops, bytes := bench.BwdCost(s, false)
		comp := flops / (m.tflops * 1e12) * 1e6
		mem := bytes / (m.tbs * 1e12) * 1e6
		bound := "compute"
		if mem > comp {
			bound = "memory"
		}
		fmt.Fprintf(w, "bwd_dswiglu M=%d K=%d I=%d: %.0f GFLOP, %.0f MB minimum traffic\n", s.M, s.K, s.I, flops/1e9, bytes/1e6)
		fmt.Fprintf(w, "  compute %.1f us, memory %.1f us -> fused floor %.1f us (%s-bound)\n", comp, mem, math.Max(comp, mem), bound)
		bw := m.tbs * 1e12
		M, K, I := float64(s.M), float64(s.K), float64(s.I)
		gemm := math.Max(comp, 2*(M*K+I*K+M*I)/bw*1e6) // writes dout
		ew := 2 * (M*I + 2*M*I + 2*M*I) / bw * 1e6     // reads dout and de, writes grad_de
		fmt.Fprintf(w, "  unfused floor: GEMM %.1f us + elementwise %.1f us = %.1f us\n", gemm, ew, gemm+ew)
	}
	if m.seedRef != "" {
		fmt.Fprintf(w, "for comparison, %s\n", m.seedRef)
	}
	return nil
}

// printTrace reads the trace probe's records after its runs and prints
// their per-tile summary.
func printTrace(e *env, k *launch.Kernel) error {
	w, err := k.Trace()
	if err != nil {
		return err
	}
	recs, err := bench.ParseTrace(w, manifest.DefaultTraceLayout.Ctas, manifest.DefaultTraceLayout.Tiles)
	if err != nil {
		return err
	}
	bench.SummarizeTrace(recs).Print(e.stdout)
	return nil
}

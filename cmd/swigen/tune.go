package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/baseline"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// tuneOptions are the parsed flags of `swigen tune`.
type tuneOptions struct {
	Kernel string
	Arch   string
	DType  string
	Shape  string

	// StoreOut sets StoreOut on every candidate (fwd_gateup: also store
	// de, training; bwd_dswiglu: also store out).
	StoreOut bool

	Filters []string
	Max     int
	Shard   string
	Retry   bool

	DB     string
	Report string

	Devices    []int
	Jobs       int
	Timeout    time.Duration
	SyncTimout time.Duration
	SlowFactor float64
	Reps       int
	Warmup     time.Duration
	NVCC       string
	Verbose    bool

	// IncludeHangTest runs the last candidate once more with the hang
	// probe (hidden flag; shows isolation working on a GPU).
	IncludeHangTest bool
}

const tuneLong = `Sweep the tuning space of a kernel on this machine's GPU and record the
fastest correct config.

--kernel picks the kind and with it the baseline: bwd_dswiglu (the
default; cuBLAS dout GEMM + the dSwiGLU elementwise kernel), fwd_gateup
(cuBLAS de GEMM + the SwiGLU elementwise kernel; --shape M,K,I as for
bwd_dswiglu) or gemm (cuBLAS on the same layouts; --shape M,N,K).

--store-out sets StoreOut on every candidate: fwd_gateup then also stores
de (training; without it the inference kernel, which writes only out, is
tuned), bwd_dswiglu also stores the recomputed out. The candidates are
then tiling.SpaceStoreOut: the second output takes epilogue shared memory,
so each tile gets the two deepest operand rings that fit with it. The
two modes do
different work and are tuned apart: the DB key records the mode, so
results with and without --store-out never compete for one winner (their
names differ by _out), and swigen emit --tuned takes the winner of the
mode its own --store-out asks for.

The candidates are tiling.Space(kernel, arch, dtype) (see swigen list
--space), narrowed by --filter (name substrings, all must match), --max and
--shard i/n (every n-th candidate from the i-th, for splitting a sweep
across machines). They are compiled in parallel (--jobs) ahead of their
turn while earlier ones are timed; the build cache makes repeats free.

Each candidate runs in its own child process (swigen re-executed) with a
time limit (--timeout), so a hang, a fault or a dead CUDA context costs
only that candidate: the child is killed with its process group and the
candidate recorded as "timeout" or "fault". In the child, the candidate is
first checked against the float64 reference on a small ragged shape, then
timed at --shape against the kind's baseline in the same run, with the
output compared to the baseline's; a wrong one is rejected ("wrong"). A
candidate whose first launches take at least --slow-factor times the best
so far is stopped early ("slow"). --devices 0,1 runs one child per GPU at
a time.

Every result goes into the results DB (--db, JSON) as soon as it is known,
written atomically under a file lock, so concurrent tuners can share it
and a sweep stopped at any point resumes where it was: candidates already
recorded for the same key (kernel, arch, dtype, shape, GPU, driver,
compiler, templates, --store-out) are skipped (--retry runs failed ones
again).

At the end, tune prints a table (time, TFLOP/s, % of the roofline floor,
speedup vs the baseline, status) and the winner, and --report writes an
SVG plot. swigen emit --tuned DB uses the winner.`

func newTuneCmd(e *env, runF func(context.Context, *tuneOptions) error) *cobra.Command {
	o := &tuneOptions{}
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Autotune a kernel on the GPU: sweep configs, record results, pick the winner",
		Long:  tuneLong,
		Example: `  swigen tune --shape 16384,768,4608 --db tune.json --report tune.svg
  swigen tune --kernel fwd_gateup --store-out --filter pingpong --max 8 --devices 0,1 --db tune.json
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
	f.StringVar(&o.Kernel, "kernel", string(tiling.KernelBwdDSwiGLU), "kernel kind: bwd_dswiglu, fwd_gateup, or gemm (then --shape is M,N,K, as for swigen bench gemm)")
	f.StringVar(&o.Arch, "arch", "auto", "target: auto (the GPU's), "+joinStrings(tiling.Arches()))
	f.StringVar(&o.DType, "dtype", string(tiling.BF16), "operand type: "+joinStrings(tiling.DTypes()))
	f.StringVar(&o.Shape, "shape", seedShape, "problem size to tune for: M,K,I (bwd_dswiglu, fwd_gateup) or M,N,K (gemm)")
	f.BoolVar(&o.StoreOut, "store-out", false, "set StoreOut on every candidate: fwd_gateup also stores de (training; default: inference, only out), bwd_dswiglu also stores the recomputed out; recorded under its own DB key, never mixed with runs without it")
	f.StringArrayVar(&o.Filters, "filter", nil, "keep candidates whose name contains this (repeatable: all must match)")
	f.IntVar(&o.Max, "max", 0, "keep at most this many candidates (0: all)")
	f.StringVar(&o.Shard, "shard", "0/1", "run shard i of n: candidates with index%n == i")
	f.BoolVar(&o.Retry, "retry", false, "run candidates recorded as failed again (passing ones are always kept)")
	f.StringVar(&o.DB, "db", "swigen-tune.json", "results DB (JSON; created if missing, shared safely by concurrent tuners)")
	f.StringVar(&o.Report, "report", "", "write an SVG plot of the results to this file")
	f.IntSliceVar(&o.Devices, "devices", []int{0}, "GPU ordinals; one child process runs per device at a time")
	f.IntVar(&o.Jobs, "jobs", runtime.GOMAXPROCS(0), "parallel compiles")
	f.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "per-candidate limit; the child is killed after it")
	f.DurationVar(&o.SyncTimout, "sync-timeout", 20*time.Second, "per-GPU-wait limit inside the child (a hung kernel is reported, not waited on)")
	f.Float64Var(&o.SlowFactor, "slow-factor", tune.DefaultSlowFactor, "stop a candidate whose first launches take this many times the best so far (0: never)")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions per variant (at least 20)")
	f.DurationVar(&o.Warmup, "warmup", 200*time.Millisecond, "warm-up time per variant")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "pass the children's output through to stderr")
	f.BoolVar(&o.IncludeHangTest, "include-hang-test", false, "append a deliberately deadlocking config (test of the isolation)")
	f.MarkHidden("include-hang-test")
	cmd.AddCommand(newTuneMergeCmd(e, nil))
	return cmd
}

// tuneGPU is what the parent needs to know about the GPU; it creates no
// CUDA context, so the children have the GPU to themselves.
type tuneGPU struct {
	Name   string
	Driver int
	Arch   tiling.Arch
	CC     string
}

// tuneDeps are the parts of runTune that touch the machine, replaced in
// tests.
type tuneDeps struct {
	probe     func(devices []int) (tuneGPU, error)
	toolchain func(nvcc string) (*toolchain.Toolchain, error)
	prepare   func(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error
	runner    func(o *tuneOptions, tc *toolchain.Toolchain, dir string, log io.Writer) (tune.Runner, error)
	now       func() time.Time
}

func defaultTuneDeps() tuneDeps {
	return tuneDeps{
		probe: probeGPU,
		toolchain: func(nvcc string) (*toolchain.Toolchain, error) {
			return toolchain.Find(toolchain.FindOptions{NVCC: nvcc})
		},
		prepare: compileCandidate,
		runner:  execRunner,
		now:     time.Now,
	}
}

func probeGPU(devices []int) (tuneGPU, error) {
	var g tuneGPU
	if err := cu.Init(); err != nil {
		return g, fmt.Errorf("tune: %w (swigen tune needs an NVIDIA driver and GPU)", err)
	}
	n, err := cu.DeviceCount()
	if err != nil {
		return g, fmt.Errorf("tune: %w", err)
	}
	for i, d := range devices {
		if d < 0 || d >= n {
			return g, usageError(fmt.Errorf("tune: --devices %d: this machine has %d GPUs (0..%d)", d, n, n-1))
		}
		dev, err := cu.GetDevice(d)
		if err != nil {
			return g, err
		}
		name, err := dev.Name()
		if err != nil {
			return g, err
		}
		major, minor, err := dev.ComputeCapability()
		if err != nil {
			return g, err
		}
		if i == 0 {
			g.Name, g.CC = name, fmt.Sprintf("sm_%d%d", major, minor)
			switch major {
			case 9:
				g.Arch = tiling.ArchSM90a
			case 10:
				g.Arch = tiling.ArchSM100a
			default:
				return g, fmt.Errorf("tune: %s has compute capability %d.%d: swigen kernels need 9.0 (sm_90a) or 10.0 (sm_100a)", name, major, minor)
			}
		} else if name != g.Name {
			// Results are keyed by one GPU name; mixed GPUs would record
			// one's times under the other's key.
			return g, usageError(fmt.Errorf("tune: --devices mixes %s (device %d) and %s (device %d); tune one kind at a time", g.Name, devices[0], name, d))
		}
	}
	if g.Driver, err = cu.DriverVersion(); err != nil {
		return g, err
	}
	return g, nil
}

// compileCandidate renders and compiles a config exactly as the worker's
// check.BuildAndLoad does, so the worker's build is a cache hit.
func compileCandidate(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error {
	return func(ctx context.Context, c tiling.Config) error {
		art, err := gen.Render(c)
		if err != nil {
			return err
		}
		cctx, cancel := compileCtx(ctx)
		defer cancel()
		_, err = tc.Compile(cctx, art.Name, art.Source, toolchain.CompileOptions{Arch: string(c.Arch)})
		return err
	}
}

// execRunner re-executes this binary as `swigen tune-worker` per candidate.
func execRunner(o *tuneOptions, tc *toolchain.Toolchain, dir string, log io.Writer) (tune.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("tune: find own executable for the workers: %w", err)
	}
	r := &tune.ExecRunner{
		Path:    exe,
		Args:    func(j tune.Job, out string) []string { return workerArgs(o, tc, j, out) },
		Timeout: o.Timeout,
		Dir:     dir,
	}
	if o.Verbose {
		r.Log = log
	}
	return r, nil
}

// workerArgs is the command line of one child.
func workerArgs(o *tuneOptions, tc *toolchain.Toolchain, j tune.Job, out string) []string {
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	args := []string{"tune-worker",
		"--name", j.Config.Name(),
		"--probe", j.Probe,
		"--shape", fmt.Sprintf("%d,%d,%d", j.Shape.M, j.Shape.K, j.Shape.I),
		"--device", strconv.Itoa(j.Device),
		"--json-out", out,
		"--best-us", ff(j.BestUS),
		"--slow-factor", ff(j.SlowFactor),
		"--gemm-tflops", ff(j.Ceilings.GemmTFLOPs),
		"--copy-gbs", ff(j.Ceilings.CopyGBs),
		"--reps", strconv.Itoa(o.Reps),
		"--warmup", o.Warmup.String(),
		"--sync-timeout", o.SyncTimout.String(),
	}
	if tc != nil && tc.NVCC != "" {
		// The same compiler as the parent's compile, so the build is a hit.
		args = append(args, "--nvcc", tc.NVCC)
	}
	return args
}

func runTune(ctx context.Context, e *env, o *tuneOptions, d tuneDeps) error {
	k, err := tiling.ParseKernel(o.Kernel)
	if err != nil {
		return usageError(fmt.Errorf("tune: %w", err))
	}
	if !tune.Measurable(k) {
		return usageError(fmt.Errorf("tune: --kernel %s: only bwd_dswiglu, fwd_gateup and gemm can be measured so far", k))
	}
	if o.StoreOut && k != tiling.KernelBwdDSwiGLU && k != tiling.KernelFwdGateUp {
		return usageError(fmt.Errorf("tune: --store-out with --kernel %s: only bwd_dswiglu (out) and fwd_gateup (de, training) have a second output to store", k))
	}
	dt, err := tiling.ParseDType(o.DType)
	if err != nil {
		return usageError(fmt.Errorf("tune: %w", err))
	}
	var shape tiling.Shape
	if k == tiling.KernelGEMM {
		// M,N,K as swigen bench gemm takes it; the DB keeps {M, K, I=N}.
		g, err := gemmShapes("tune", []string{o.Shape})
		if err != nil {
			return err
		}
		shape = tiling.Shape{M: g[0][0], K: g[0][2], I: g[0][1]}
	} else if shape, err = tiling.ParseShape(o.Shape); err != nil {
		return usageError(fmt.Errorf("tune: %w", err))
	}
	si, sn, err := tune.ParseShard(o.Shard)
	if err != nil {
		return usageError(err)
	}
	if len(o.Devices) == 0 {
		return usageError(errors.New("tune: --devices: no GPU given"))
	}
	for i, dev := range o.Devices {
		if slices.Contains(o.Devices[:i], dev) {
			return usageError(fmt.Errorf("tune: --devices lists %d twice", dev))
		}
	}
	if o.Max < 0 {
		return usageError(fmt.Errorf("tune: --max %d: must not be negative", o.Max))
	}
	if o.SlowFactor != 0 && o.SlowFactor <= 1 {
		return usageError(fmt.Errorf("tune: --slow-factor %g: must be above 1 (or 0 to disable)", o.SlowFactor))
	}

	// The DB is read before the GPU is probed: a corrupt one is bad input
	// (exit 2) and must not wait for the probe.
	db, err := tune.ReadDB(o.DB)
	if err != nil {
		return fmt.Errorf("tune: --db: %w", err)
	}

	g, err := d.probe(o.Devices)
	if err != nil {
		return err
	}
	arch := g.Arch
	if o.Arch != "auto" {
		a, err := tiling.ParseArch(o.Arch)
		if err != nil {
			return usageError(fmt.Errorf("tune: %w", err))
		}
		if a != g.Arch {
			return usageError(fmt.Errorf("tune: --arch %s: the GPU (%s, %s) runs %s kernels; tuning needs the target's GPU", a, g.Name, g.CC, g.Arch))
		}
	}
	tc, err := d.toolchain(o.NVCC)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	th, err := tune.TemplatesHash()
	if err != nil {
		return err
	}
	key := tune.Key{Kernel: k, Arch: arch, DType: dt, Shape: shape, GPU: g.Name, Driver: g.Driver,
		Compiler: "nvcc " + tc.Version, Templates: th, StoreOut: o.StoreOut}

	space := tiling.Space(k, arch, dt)
	without := len(space)
	if o.StoreOut {
		space = tiling.SpaceStoreOut(k, arch, dt)
	}
	if len(space) == 0 {
		return fmt.Errorf("tune: the tuning space of %s %s %s%s is empty (nothing implemented?)", k, arch, dt, storeOutFlag(o.StoreOut))
	}
	cands, err := tune.Select(space, tune.Selection{Filter: o.Filters, Max: o.Max, Shard: si, Shards: sn})
	if err != nil {
		return usageError(err)
	}
	if len(cands) == 0 {
		return usageError(fmt.Errorf("tune: no candidate left of %d after --filter %q --max %d --shard %s", len(space), o.Filters, o.Max, o.Shard))
	}

	w := e.stderr
	fmt.Fprintf(w, "tune: %s %s %s at %s on %s (%s), driver %d, nvcc %s, templates %.12s%s\n",
		k, arch, dt, shapeDims(k, shape), g.Name, g.CC, g.Driver, tc.Version, th, modeNote(k, o.StoreOut, "; "))
	plan := tune.PlanSweep(db.Entry(key), cands, o.Retry)
	fmt.Fprintf(w, "tune: %d candidates of %d in the space (filter %q, max %d, shard %s%s%s); %d already in %s, %d to run on device(s) %s; child limit %v\n",
		len(cands), len(space), o.Filters, o.Max, o.Shard, storeOutNote(o, without), hangNote(o), len(plan.Skipped), o.DB, len(plan.Run), joinInts(o.Devices), o.Timeout)

	dir, err := os.MkdirTemp("", "swigen-tune-")
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	defer os.RemoveAll(dir)
	runner, err := d.runner(o, tc, dir, w)
	if err != nil {
		return err
	}
	slow := o.SlowFactor
	if slow == 0 {
		slow = 1 // tune.Sweep reads 0 as the default; a factor of 1 never stops
	}
	bar := newTuneBar(w, len(plan.Run))
	start := d.now()
	res, sweepErr := tune.Sweep(ctx, tune.SweepOptions{
		DBPath: o.DB, Key: key, Candidates: cands, Devices: o.Devices,
		Prepare: d.prepare(tc), PrepareWorkers: max(1, o.Jobs),
		Runner: runner, SlowFactor: slow, Retry: o.Retry, HangTest: o.IncludeHangTest,
		Progress: func(p tune.Progress) {
			bar.line(progressLine(p, d.now().Sub(start)))
		},
	})
	bar.finish()
	if res == nil {
		return sweepErr
	}
	printTuneSummary(e, o, g, tc, res, shape, d.now().Sub(start))
	if o.Report != "" && len(res.Entry.Results) > 0 {
		title := fmt.Sprintf("swigen tune: %s %s %s, M=%d K=%d I=%d%s", k, arch, dt, shape.M, shape.K, shape.I, modeNote(k, o.StoreOut, ", "))
		if err := os.WriteFile(o.Report, tune.SVG(res.Entry, title), 0o644); err != nil {
			return fmt.Errorf("tune: write report: %w", err)
		}
		fmt.Fprintf(e.stdout, "report: %s\n", o.Report)
	}
	if sweepErr != nil {
		return sweepErr
	}
	if _, ok := res.Entry.Best(); !ok {
		return fmt.Errorf("tune: no candidate passed (see the status column)")
	}
	return nil
}

func checkConfig(c tiling.Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if ok, why := tiling.Implemented(c); !ok {
		return errors.New(why)
	}
	return nil
}

// heuristicFor is the heuristic config of the key's problem, with the
// key's StoreOut (so it is comparable with the key's candidates).
func heuristicFor(k tune.Key) (tiling.Config, error) {
	if !k.StoreOut {
		return tiling.Heuristic(k.Kernel, k.Arch, k.DType, k.Shape)
	}
	h, err := tiling.HeuristicStoreOut(k.Kernel, k.Arch, k.DType, k.Shape)
	if err != nil {
		return h, err
	}
	return h, checkConfig(h)
}

// modeNote says what a kind's kernels store in this mode, after sep, or
// nothing for kinds whose mode needs no word (bwd_dswiglu and gemm without
// --store-out). fwd_gateup always says, since its default is inference.
func modeNote(k tiling.Kernel, storeOut bool, sep string) string {
	switch {
	case k == tiling.KernelFwdGateUp && storeOut:
		return sep + "training: de and out stored (--store-out)"
	case k == tiling.KernelFwdGateUp:
		return sep + "inference: only out stored (--store-out for training)"
	case storeOut:
		return sep + "the recomputed out also stored (--store-out)"
	}
	return ""
}

func storeOutFlag(storeOut bool) string {
	if storeOut {
		return " --store-out"
	}
	return ""
}

// storeOutNote tells how --store-out changed the space: its re-fitted
// operand rings can merge or add candidates.
func storeOutNote(o *tuneOptions, without int) string {
	if !o.StoreOut {
		return ""
	}
	return fmt.Sprintf(", --store-out; %d without it", without)
}

func hangNote(o *tuneOptions) string {
	if o.IncludeHangTest {
		return ", + the hang test"
	}
	return ""
}

// progressLine describes one finished candidate, with an ETA from the
// mean time per candidate so far (which includes their compiles).
func progressLine(p tune.Progress, elapsed time.Duration) string {
	r := p.Result
	var what string
	switch r.Status {
	case tune.StatusOK:
		what = fmt.Sprintf("ok %8.1f us", r.US)
		if r.BaselineUS > 0 {
			what += fmt.Sprintf("  %.2fx baseline", r.BaselineUS/r.US)
		}
	case tune.StatusSlow:
		what = fmt.Sprintf("slow (%.1f us, stopped early)", r.US)
	default:
		what = string(r.Status) + ": " + strings.Join(strings.Fields(r.Error), " ")
		if r := []rune(what); len(r) > 160 {
			what = string(r[:159]) + "…"
		}
	}
	eta := time.Duration(float64(elapsed) / float64(p.Done) * float64(p.Total-p.Done)).Round(time.Second)
	best := ""
	if p.Best.Status == tune.StatusOK {
		best = fmt.Sprintf("  (best %.1f us)", p.Best.US)
	}
	return fmt.Sprintf("[%d/%d, ETA %v] %s  %s%s  dev %d, %.1fs", p.Done, p.Total, eta, r.Config, what, best, r.Device, r.WallS)
}

// tuneBar is the progress bar on a terminal; elsewhere (a log file) only
// the per-candidate lines, which carry the ETA themselves.
type tuneBar struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newTuneBar(w io.Writer, n int) *tuneBar {
	t := &tuneBar{w: w}
	if f, ok := w.(*os.File); ok && n > 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
			t.bar = progressbar.NewOptions(n,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("tuning"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionClearOnFinish())
			t.bar.RenderBlank()
		}
	}
	return t
}

func (t *tuneBar) line(s string) {
	if t.bar != nil {
		t.bar.Clear()
	}
	fmt.Fprintln(t.w, s)
	if t.bar != nil {
		t.bar.Add(1)
	}
}

func (t *tuneBar) finish() {
	if t.bar != nil {
		t.bar.Finish()
	}
}

// shapeDims names a tuned shape's sizes as the kernel kind's command line
// takes them: M,K,I, or M,N,K for a gemm (whose N is kept in I's place).
func shapeDims(k tiling.Kernel, s tiling.Shape) string {
	if k == tiling.KernelGEMM {
		return fmt.Sprintf("M=%d N=%d K=%d", s.M, s.I, s.K)
	}
	return fmt.Sprintf("M=%d K=%d I=%d", s.M, s.K, s.I)
}

func printTuneSummary(e *env, o *tuneOptions, g tuneGPU, tc *toolchain.Toolchain, res *tune.SweepResult, shape tiling.Shape, took time.Duration) {
	w := e.stdout
	en := res.Entry
	k := en.Key
	base := "cuBLAS GEMM + elementwise"
	switch k.Kernel {
	case tiling.KernelGEMM:
		base = "cuBLAS GEMM on the same layouts"
	case tiling.KernelFwdGateUp:
		base = "cuBLAS GEMM + SwiGLU elementwise"
	}
	fmt.Fprintf(w, "\n%s %s %s %s on %s, driver %d, %s, templates %.12s%s\n",
		k.Kernel, k.Arch, k.DType, shapeDims(k.Kernel, shape), g.Name, g.Driver, k.Compiler, k.Templates, modeNote(k.Kernel, k.StoreOut, "; "))
	if en.Ceilings.Known() {
		fmt.Fprintf(w, "ceilings: cuBLAS 8192^3 %.0f TFLOP/s, device copy %.0f GB/s; roofline floor %.1f us\n",
			en.Ceilings.GemmTFLOPs, en.Ceilings.CopyGBs, en.FloorUS(""))
	}
	if b := en.BaselineUS(); b > 0 {
		fmt.Fprintf(w, "baseline (%s, timed in each candidate's run): median %.1f us\n", base, b)
	}
	fmt.Fprintln(w)
	tune.WriteTable(w, en)
	fmt.Fprintln(w)

	counts := map[tune.Status]int{}
	for _, r := range en.Results {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []tune.Status{tune.StatusOK, tune.StatusSlow, tune.StatusWrong, tune.StatusCompile, tune.StatusFault, tune.StatusTimeout} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(w, "this run: %d candidates measured in %v, %d skipped (already in the DB); the DB holds %d for this key: %s\n",
		res.Ran, took.Round(time.Second), len(res.Plan.Skipped), len(en.Results), strings.Join(parts, ", "))
	best, ok := en.Best()
	if !ok {
		fmt.Fprintln(w, "winner: none (no candidate passed)")
	} else {
		line := fmt.Sprintf("winner: %s  %.1f us", best.Config, best.US)
		if best.BaselineUS > 0 {
			line += fmt.Sprintf(", %.2fx the baseline", best.BaselineUS/best.US)
		}
		if f := en.FloorUS(best.Config); f > 0 {
			line += fmt.Sprintf(", %.0f%% of the roofline floor", 100*f/best.US)
		}
		fmt.Fprintln(w, line)
		if h, err := heuristicFor(k); err == nil {
			r, ok := en.Result(h.Name())
			switch {
			case ok && r.Status == tune.StatusOK:
				fmt.Fprintf(w, "heuristic: %s  %.1f us (the winner is %.2fx faster)\n", h.Name(), r.US, r.US/best.US)
			case ok:
				fmt.Fprintf(w, "heuristic: %s (%s)\n", h.Name(), r.Status)
			default:
				fmt.Fprintf(w, "heuristic: %s (not among the candidates)\n", h.Name())
			}
		}
	}
	// emit's --shape is M,K,I for every kind (a gemm's N in I's place).
	kind := ""
	if k.Kernel != tiling.KernelBwdDSwiGLU {
		kind = " --kernel " + string(k.Kernel)
	}
	fmt.Fprintf(w, "DB: %s  (use it: swigen emit --tuned %s%s --arch %s --dtype %s --shape %d,%d,%d%s)\n",
		o.DB, o.DB, kind, k.Arch, k.DType, shape.M, shape.K, shape.I, storeOutFlag(k.StoreOut))
}

// newTuneMergeCmd is `swigen tune merge`; runF, when non-nil, replaces
// the merge once the arguments are checked (tests).
func newTuneMergeCmd(e *env, runF func(inputs []string, out string) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DB... -o OUT",
		Short: "Merge results DBs (e.g. of shards run on several machines)",
		Long: `Merge results DBs into one. Entries with the same key are joined; for a
config recorded in several DBs, a passing record wins over a failed one,
then the newer one. OUT is written atomically under its lock and may be one
of the inputs.`,
		Example: `  swigen tune merge shard0.json shard1.json -o tune.json
  swigen tune merge tune.json other-machine.json -o tune.json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError(errors.New("tune merge: -o OUT is required"))
			}
			if runF != nil {
				return runF(args, out)
			}
			return runTuneMerge(e, args, out)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged DB to write")
	return cmd
}

func runTuneMerge(e *env, inputs []string, out string) error {
	var dbs []*tune.DB
	n := 0
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			// An input that is not there is a bad argument, not an empty DB
			// (ReadDB's reading of a missing file).
			return usageError(fmt.Errorf("tune merge: input %w", err))
		}
		db, err := tune.ReadDB(p)
		if err != nil {
			return fmt.Errorf("tune merge: %w", err)
		}
		for _, en := range db.Entries {
			n += len(en.Results)
		}
		dbs = append(dbs, db)
	}
	merged := tune.Merge(dbs...)
	if _, err := tune.UpdateDB(out, func(db *tune.DB) error { *db = *merged; return nil }); err != nil {
		return fmt.Errorf("tune merge: %w", err)
	}
	m := 0
	for _, en := range merged.Entries {
		m += len(en.Results)
	}
	fmt.Fprintf(e.stdout, "merged %d DBs (%d records) into %s: %d keys, %d records\n", len(inputs), n, out, len(merged.Entries), m)
	return nil
}

// workerOptions are the flags of the hidden `swigen tune-worker`.
type workerOptions struct {
	Name        string
	Probe       string
	Shape       string
	Device      int
	JSONOut     string
	BestUS      float64
	SlowFactor  float64
	GemmTFLOPs  float64
	CopyGBs     float64
	Reps        int
	Warmup      time.Duration
	SyncTimeout time.Duration
	NVCC        string
}

func newTuneWorkerCmd(e *env, runF func(context.Context, *workerOptions) error) *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:    "tune-worker",
		Short:  "Measure one config for swigen tune (internal; run by tune in a child process)",
		Long:   "Load, verify and time one config and write the result as JSON to --json-out. swigen tune runs it.",
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runTuneWorker(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Name, "name", "", "config (procedural name)")
	f.StringVar(&o.Probe, "probe", "", "build the kernel with this probe")
	f.StringVar(&o.Shape, "shape", seedShape, "shape M,K,I to time")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.StringVar(&o.JSONOut, "json-out", "", "result file")
	f.Float64Var(&o.BestUS, "best-us", 0, "best time so far (early stop)")
	f.Float64Var(&o.SlowFactor, "slow-factor", tune.DefaultSlowFactor, "early-stop ratio")
	f.Float64Var(&o.GemmTFLOPs, "gemm-tflops", 0, "measured GEMM ceiling (0: measure)")
	f.Float64Var(&o.CopyGBs, "copy-gbs", 0, "measured copy ceiling (0: measure)")
	f.IntVar(&o.Reps, "reps", 40, "timed repetitions")
	f.DurationVar(&o.Warmup, "warmup", 200*time.Millisecond, "warm-up time per variant")
	f.DurationVar(&o.SyncTimeout, "sync-timeout", 20*time.Second, "per-GPU-wait limit")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use")
	return cmd
}

// workerExit ends a worker whose CUDA context may be dead or still running
// a hung kernel: tearing it down could block, and the result is written.
var workerExit = os.Exit

func runTuneWorker(ctx context.Context, e *env, o *workerOptions) error {
	if o.JSONOut == "" {
		return usageError(errors.New("tune-worker: --json-out is required"))
	}
	cfg, err := tiling.ParseName(o.Name)
	if err != nil {
		return usageError(fmt.Errorf("tune-worker: %w", err))
	}
	shape, err := tiling.ParseShape(o.Shape)
	if err != nil {
		return usageError(fmt.Errorf("tune-worker: %w", err))
	}
	job := tune.Job{Config: cfg, Probe: o.Probe, Shape: shape, Device: o.Device, BestUS: o.BestUS, SlowFactor: o.SlowFactor,
		Ceilings: tune.Ceilings{GemmTFLOPs: o.GemmTFLOPs, CopyGBs: o.CopyGBs}}
	start := time.Now()
	fail := func(st tune.Status, err error) error {
		out := tune.Output{Result: tune.Result{Config: job.Name(), Status: st, Error: err.Error(), Device: o.Device,
			WallS: time.Since(start).Seconds()}}
		if werr := tune.WriteOutput(o.JSONOut, out); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return fail(tune.StatusFault, err)
	}
	blas, err := baseline.OpenCuBLAS(s.ctx)
	if err != nil {
		return fail(tune.StatusFault, fmt.Errorf("open cuBLAS: %w", err))
	}
	ew, err := baseline.NewElementwise(s.ctx, s.build)
	if err != nil {
		return fail(tune.Classify(err), fmt.Errorf("baseline elementwise kernel: %w", err))
	}
	env := &tune.MeasureEnv{
		Check: &check.Env{Ctx: s.ctx, Dev: s.dev, Builder: s.build},
		Bench: &bench.Env{Ctx: s.ctx, Dev: s.dev, Base: baseline.Bwd{BLAS: blas, EW: ew}},
	}
	if cfg.Kernel == tiling.KernelFwdGateUp {
		// fwd_gateup's baseline ends in the forward SwiGLU elementwise
		// kernel (a build cache hit after the first worker).
		cctx, cancel := compileCtx(ctx)
		env.SwiGLU, err = mlp.NewSwiGLU(cctx, s.ctx, s.build)
		cancel()
		if err != nil {
			return fail(tune.Classify(err), fmt.Errorf("baseline SwiGLU elementwise kernel: %w", err))
		}
	}
	out := tune.Measure(ctx, env, job, tune.MeasureOptions{
		Bench:       bench.Options{Reps: o.Reps, Warmup: o.Warmup, Timeout: o.SyncTimeout, Seed: uint64(time.Now().UnixNano())},
		SyncTimeout: o.SyncTimeout,
	})
	out.WallS = time.Since(start).Seconds()
	if err := tune.WriteOutput(o.JSONOut, out); err != nil {
		return err
	}
	msg := fmt.Sprintf("tune-worker: %s on device %d: %s", job.Name(), o.Device, out.Status)
	if out.Status == tune.StatusOK || out.Status == tune.StatusSlow {
		msg += fmt.Sprintf(" %.1f us", out.US)
	}
	if out.Error != "" {
		msg += ": " + out.Error
	}
	fmt.Fprintln(e.stderr, msg)
	if out.Status == tune.StatusFault || out.Status == tune.StatusTimeout {
		workerExit(0)
	}
	env.SwiGLU.Close()
	ew.Close()
	blas.Close()
	s.close()
	return nil
}

// tunedConfig is `swigen emit --tuned`: the winner recorded in the DB at
// path for the heuristic config's kernel, arch and dtype at shape, tuned
// with storeOut as emit's --store-out asks (swigen tune --store-out
// records that mode under its own key), or the heuristic config itself
// when the DB has none; the note says which.
func tunedConfig(path string, heur tiling.Config, shape tiling.Shape, storeOut bool) (tiling.Config, string, error) {
	if _, err := os.Stat(path); err != nil {
		return heur, "", fmt.Errorf("--tuned: %w", err)
	}
	db, err := tune.ReadDB(path)
	if err != nil {
		return heur, "", fmt.Errorf("--tuned: %w", err)
	}
	th, err := tune.TemplatesHash()
	if err != nil {
		return heur, "", err
	}
	what := fmt.Sprintf("%s %s %s M=%d K=%d I=%d%s", heur.Kernel, heur.Arch, heur.DType, shape.M, shape.K, shape.I, storeOutFlag(storeOut))
	w, ok := db.Lookup(heur.Kernel, heur.Arch, heur.DType, shape, storeOut, th)
	if !ok {
		return heur, fmt.Sprintf("--tuned %s has no passing result for %s; using the heuristic config %s", path, what, heur.Name()), nil
	}
	note := fmt.Sprintf("--tuned %s: using the tuned winner for %s: %s (%.1f us", path, what, w.Config.Name(), w.Result.US)
	if w.Result.BaselineUS > 0 {
		note += fmt.Sprintf(", %.2fx the baseline", w.Result.BaselineUS/w.Result.US)
	}
	note += fmt.Sprintf(", on %s)", w.Key.GPU)
	if w.StaleTemplates {
		note += fmt.Sprintf("; it was tuned with other templates (%.12s, now %.12s): re-run swigen tune to confirm", w.Key.Templates, th)
	}
	return w.Config, note, nil
}

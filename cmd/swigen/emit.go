package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

// seedShape is the seed's problem S1 (M, K, I), the default --shape.
const seedShape = "16384,768,4608"

// sm100Note is printed whenever sm_100a kernels were compiled: they cannot
// run on any GPU swigen has.
const sm100Note = "sm_100a: compile-verified only (no Blackwell GPU here); not executed"

// emitOptions are the parsed flags of `swigen emit`. Field flags are kept
// raw; configs turns them into tiling.Configs so the rules live in one
// place and tests can check them without running anything.
type emitOptions struct {
	Kernels []string // --kernel, repeatable or comma-separated
	Arches  []string
	DType   string
	Shape   string
	Name    string
	Catalog bool
	Tuned   string // --tuned: a swigen tune results DB whose winners replace the heuristic

	Tile         string
	Stages       int
	Cluster      string
	Schedules    []string
	Scheduler    string
	Raster       string
	SwizzleGroup int
	Epi          string
	EpiStages    int
	MajorA       string
	MajorB       string
	StoreOut     bool
	L2Keep       bool
	CLCStages    int

	Out         string
	NVCC        string
	NoCompile   bool
	AllowSpills bool
	GoPackage   string // --go-package: also write Go bindings of this package name

	// DryRun, when set, makes runEmit lay out every file in memory, write
	// nothing and hand the result to DryRun instead (swigen diff; no flag).
	DryRun func(res *gen.EmitResult, tc *gen.Toolchain) error

	// Changed holds the names of the flags given on the command line; only
	// those override the heuristic.
	Changed map[string]bool
}

// fieldFlags are the flags that set Config fields directly.
var fieldFlags = []string{
	"tile", "stages", "cluster", "schedule", "scheduler", "raster", "swizzle-group",
	"epi", "epi-stages", "major-a", "major-b", "store-out", "l2k", "clc-stages",
}

const emitLong = `Render kernels to CUDA C++ and compile them to cubins.

Without flags, emit writes the seed kernel (bwd_dswiglu, bf16) for sm_100a
and sm_90a with heuristic tiles for the shape --shape (M,K,I) into out/.
Flags that set a config field (--tile, --stages, --cluster, --schedule, ...)
override only that field of the heuristic choice. --schedule takes the
schedule of each arch: cooperative, pingpong or overlap (bwd_dswiglu) on sm_90a, 1cta or 2cta on
sm_100a; a value is applied to the selected arch where it is legal, so
--schedule pingpong,2cta sets both. --name emits one config by its
procedural name (see swigen list); --catalog emits the whole catalog.

Every config is validated and rendered, and compiled when a CUDA compiler
is found, before anything is written: an invalid config lists every
problem, exits 2 and writes nothing. Per kernel, the output directory gets
<name>.cu, <name>.json (launch manifest), <name>.<arch>.cubin and
<name>.report.json (ptxas report), plus manifest.json indexing them all.
Files whose bytes did not change are not rewritten.

Without a CUDA compiler, emit still writes the sources and manifests and
says how to install one. sm_100a kernels are compile-verified only: no
Blackwell GPU is available to run them.`

func newEmitCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	o := &emitOptions{}
	cmd := &cobra.Command{
		Use:   "emit",
		Short: "Render, compile and write kernels (default: the seed kernel for both archs)",
		Long:  emitLong,
		Example: `  swigen emit
  swigen emit --arch sm_90a --tile 128x256x64 --stages 4 --schedule pingpong -o out/
  swigen emit --catalog --no-compile -o /tmp/swigen-src`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Changed = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { o.Changed[f.Name] = true })
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runEmit(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Kernels, "kernel", []string{string(tiling.KernelBwdDSwiGLU)}, "kernel kinds, repeatable or comma-separated: "+joinStrings(tiling.Kernels()))
	f.StringSliceVar(&o.Arches, "arch", []string{string(tiling.ArchSM100a), string(tiling.ArchSM90a)}, "targets, repeatable or comma-separated: "+joinStrings(tiling.Arches()))
	f.StringVar(&o.DType, "dtype", string(tiling.BF16), "operand type: "+joinStrings(tiling.DTypes()))
	f.StringVar(&o.Shape, "shape", seedShape, "problem size M,K,I the heuristic picks tiles for")
	f.StringVar(&o.Name, "name", "", "emit the config with this procedural name (from swigen list)")
	f.BoolVar(&o.Catalog, "catalog", false, "emit every catalog config (filtered by --kernel/--arch/--dtype when given)")
	f.StringVar(&o.Tuned, "tuned", "", "results DB of swigen tune: use its winner for (kernel, arch, dtype, --shape) instead of the heuristic, where it has one")

	f.StringVar(&o.Tile, "tile", "", "tile MxNxK, e.g. 128x128x64")
	f.IntVar(&o.Stages, "stages", 0, "operand pipeline stages")
	f.StringVar(&o.Cluster, "cluster", "", "cluster shape MxN, e.g. 2x1")
	f.StringSliceVar(&o.Schedules, "schedule", nil, "schedule per arch: cooperative|pingpong|overlap (sm_90a; overlap: bwd_dswiglu only), 1cta|2cta (sm_100a)")
	f.StringVar(&o.Scheduler, "scheduler", "", "tile scheduler: "+joinStrings(tiling.Schedulers())+" (clc: sm_100a only)")
	f.StringVar(&o.Raster, "raster", "", "raster order of the tile scheduler: "+joinStrings(tiling.Rasters()))
	f.IntVar(&o.SwizzleGroup, "swizzle-group", 0, "tile rows/columns walked together: "+joinInts(tiling.SwizzleGroups()))
	f.StringVar(&o.Epi, "epi", "", "epilogue sub-tile MxN, e.g. 64x64")
	f.IntVar(&o.EpiStages, "epi-stages", 0, "epilogue buffer depth")
	f.StringVar(&o.MajorA, "major-a", "", "major of operand A: "+joinStrings(tiling.Majors()))
	f.StringVar(&o.MajorB, "major-b", "", "major of operand B: "+joinStrings(tiling.Majors()))
	f.BoolVar(&o.StoreOut, "store-out", false, "bwd_dswiglu: also store the recomputed out = left*silu(gate); fwd_gateup: also store de = [left | gate] (training)")
	f.IntVar(&o.CLCStages, "clc-stages", 0, "sm_100a configs with --scheduler clc: depth of the CLC response ring (default accumulator stages + 1 = "+strconv.Itoa(tiling.DefaultCLCStages)+"; name suffix _clc{N})")
	f.BoolVar(&o.L2Keep, "l2k", false, "sm_90a configs: an L2 evict_last policy on the operand loads (name suffix _l2k; --l2k=false turns off the heuristic's)")

	f.StringVarP(&o.Out, "out", "o", "out", "output directory")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (path or directory); default: search CUDA_HOME, PATH, SWIGEN_CUDA_VENV, ...")
	f.BoolVar(&o.NoCompile, "no-compile", false, "write sources and manifests only")
	f.BoolVar(&o.AllowSpills, "allow-spills", false, "accept register spills instead of failing the build")
	f.StringVar(&o.GoPackage, "go-package", "", "also write a Go package of this name into the output directory: embedded cubins and typed launchers")
	return cmd
}

// configs resolves the flags to the configs to emit, plus notes for the
// user (flags applied to only some archs). Errors are usage errors.
func (o *emitOptions) configs() ([]tiling.Config, []string, error) {
	var given []string
	for _, n := range fieldFlags {
		if o.Changed[n] {
			given = append(given, "--"+n)
		}
	}
	switch {
	case o.Tuned != "" && (o.Catalog || o.Name != ""):
		return nil, nil, errors.New("--tuned replaces the heuristic choice; it cannot be combined with --catalog or --name")
	case o.Catalog && o.Name != "":
		return nil, nil, errors.New("--catalog and --name exclude each other")
	case o.Catalog && len(given) > 0:
		return nil, nil, fmt.Errorf("--catalog emits the catalog as is; it cannot be combined with %s", strings.Join(given, ", "))
	case o.Catalog && o.Changed["shape"]:
		return nil, nil, errors.New("--catalog does not use --shape (it is not heuristic)")
	case o.Name != "":
		for _, n := range []string{"kernel", "arch", "dtype", "shape"} {
			if o.Changed[n] {
				return nil, nil, fmt.Errorf("--name fixes kernel, arch and dtype; drop --%s", n)
			}
		}
	}

	if o.Catalog {
		return o.catalog()
	}

	var base []tiling.Config
	var tunedNotes []string
	if o.Name != "" {
		c, err := tiling.ParseName(o.Name)
		if err != nil {
			return nil, nil, err
		}
		base = []tiling.Config{c}
	} else {
		ks, err := parseKernels(o.Kernels)
		if err != nil {
			return nil, nil, err
		}
		d, err := tiling.ParseDType(o.DType)
		if err != nil {
			return nil, nil, err
		}
		arches, err := parseArches(o.Arches)
		if err != nil {
			return nil, nil, err
		}
		shape, err := tiling.ParseShape(o.Shape)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range ks {
			for _, a := range arches {
				h := tiling.Heuristic
				if o.Changed["store-out"] && o.StoreOut {
					h = tiling.HeuristicStoreOut // with out stored bwd_dswiglu keeps 128x128 (the ring beside out's buffers)
				}
				c, err := h(k, a, d, shape)
				if err != nil {
					return nil, nil, fmt.Errorf("heuristic for %s %s %s at %s: %w", k, a, d, shape, err)
				}
				if ok, why := tiling.Implemented(c); !ok && len(ks)*len(arches) > 1 {
					// Several kinds x archs asked for: skip the pairs the
					// generator has no template for, with a note.
					tunedNotes = append(tunedNotes, fmt.Sprintf("skipped %s for %s: %s", k, a, why))
					continue
				}
				if o.Tuned != "" {
					var note string
					if c, note, err = tunedConfig(o.Tuned, c, shape, o.StoreOut); err != nil {
						return nil, nil, err
					}
					tunedNotes = append(tunedNotes, note)
				}
				base = append(base, c)
			}
		}
		if len(base) == 0 {
			return nil, nil, fmt.Errorf("no kernel to emit: %s", strings.Join(tunedNotes, "; "))
		}
	}
	cfgs, notes, err := o.override(base)
	return cfgs, append(tunedNotes, notes...), err
}

// catalog returns tiling.Catalog, filtered by the kernel/arch/dtype flags
// that were given.
func (o *emitOptions) catalog() ([]tiling.Config, []string, error) {
	var (
		ks     []tiling.Kernel
		arches []tiling.Arch
		ds     []tiling.DType
	)
	if o.Changed["kernel"] {
		var err error
		if ks, err = parseKernels(o.Kernels); err != nil {
			return nil, nil, err
		}
	}
	if o.Changed["arch"] {
		var err error
		if arches, err = parseArches(o.Arches); err != nil {
			return nil, nil, err
		}
	}
	if o.Changed["dtype"] {
		d, err := tiling.ParseDType(o.DType)
		if err != nil {
			return nil, nil, err
		}
		ds = []tiling.DType{d}
	}
	cfgs := filterConfigs(tiling.Catalog(), ks, arches, ds)
	if len(cfgs) == 0 {
		return nil, nil, errors.New("no catalog config matches --kernel/--arch/--dtype")
	}
	return cfgs, nil, nil
}

// override applies the field flags that were given to every base config.
func (o *emitOptions) override(base []tiling.Config) ([]tiling.Config, []string, error) {
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	set := func(name string, apply func() error) {
		if o.Changed[name] {
			if err := apply(); err != nil {
				bad(err)
			}
		}
	}
	var tm, tn, tk, cm, cn, em, en int
	set("tile", func() (err error) { tm, tn, tk, err = tiling.ParseTile(o.Tile); return })
	set("cluster", func() (err error) { cm, cn, err = tiling.ParseCluster(o.Cluster); return })
	set("epi", func() error {
		v, err := parseDims2("epi", o.Epi)
		em, en = v[0], v[1]
		return err
	})
	var sched tiling.Scheduler
	set("scheduler", func() (err error) { sched, err = tiling.ParseScheduler(o.Scheduler); return })
	var raster tiling.Raster
	set("raster", func() (err error) { raster, err = tiling.ParseRaster(o.Raster); return })
	var ma, mb tiling.Major
	set("major-a", func() (err error) { ma, err = tiling.ParseMajor(o.MajorA); return })
	set("major-b", func() (err error) { mb, err = tiling.ParseMajor(o.MajorB); return })

	var arches []tiling.Arch
	for _, c := range base {
		arches = append(arches, c.Arch)
	}
	var schedFor map[tiling.Arch]tiling.Schedule
	var notes []string
	set("schedule", func() (err error) {
		schedFor, notes, err = schedulesFor(o.Schedules, arches)
		return
	})
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	out := make([]tiling.Config, len(base))
	for i, c := range base {
		old := c
		if o.Changed["tile"] {
			c.TileM, c.TileN, c.TileK = tm, tn, tk
		}
		if o.Changed["stages"] {
			c.Stages = o.Stages
		}
		if o.Changed["cluster"] {
			c.ClusterM, c.ClusterN = cm, cn
		}
		if s, ok := schedFor[c.Arch]; ok {
			c.Schedule = s
		}
		if o.Changed["scheduler"] {
			c.Scheduler = sched
		}
		if o.Changed["raster"] {
			c.Raster = raster
		}
		if o.Changed["swizzle-group"] {
			c.SwizzleGroup = o.SwizzleGroup
		}
		if o.Changed["epi"] {
			c.EpiM, c.EpiN = em, en
		} else {
			// The default epilogue follows the tile and schedule (sm_100a:
			// one TMEM lane per row of the CTA's tile). Keep it in step
			// when those change, unless the base had a non-default one.
			om, on, _ := tiling.DefaultEpilogue(old.Arch, old.Schedule, old.TileM)
			if old.EpiM == om && old.EpiN == on {
				c.EpiM, c.EpiN, _ = tiling.DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
			}
		}
		if o.Changed["epi-stages"] {
			c.EpiStages = o.EpiStages
		}
		if o.Changed["major-a"] {
			c.MajorA = ma
		}
		if o.Changed["major-b"] {
			c.MajorB = mb
		}
		if o.Changed["store-out"] {
			c.StoreOut = o.StoreOut
		}
		if o.Changed["clc-stages"] && c.Arch == tiling.ArchSM100a {
			c.CLCStages = o.CLCStages // sm_90a has no CLC (Validate)
			if c.CLCStages == tiling.DefaultCLCStages {
				c.CLCStages = 0 // the default is left out of names
			}
		}
		if o.Changed["l2k"] && c.Arch == tiling.ArchSM90a {
			c.L2KeepOperands = o.L2Keep // sm_100a has no such policy (tiling.Implemented)
		}
		out[i] = c
	}
	return out, notes, nil
}

// schedulesFor assigns each --schedule value to the selected archs where it
// is legal. Schedules are arch-specific (sm_90a: cooperative, pingpong, overlap;
// sm_100a: 1cta, 2cta), so with both archs selected one flag can name one
// schedule per arch. A value legal on no selected arch, or two values for
// one arch, is an error; an arch no value applies to keeps its schedule and
// gets a note.
func schedulesFor(values []string, arches []tiling.Arch) (map[tiling.Arch]tiling.Schedule, []string, error) {
	m := map[tiling.Arch]tiling.Schedule{}
	for _, v := range values {
		s, err := tiling.ParseSchedule(v)
		if err != nil {
			return nil, nil, err
		}
		hit := false
		for _, a := range arches {
			if !slices.Contains(tiling.SchedulesFor(a), s) {
				continue
			}
			if prev, ok := m[a]; ok && prev != s {
				return nil, nil, fmt.Errorf("--schedule: both %s and %s are %s schedules; give one per arch", prev, s, a)
			}
			m[a], hit = s, true
		}
		if !hit {
			return nil, nil, fmt.Errorf("--schedule %s is not legal on %s (%s)", s, joinStrings(arches), legalSchedules(arches))
		}
	}
	var notes []string
	for _, a := range uniq(arches) {
		if _, ok := m[a]; !ok {
			notes = append(notes, fmt.Sprintf("--schedule %s does not apply to %s (%s); it keeps its heuristic schedule",
				strings.Join(values, ","), a, legalSchedules([]tiling.Arch{a})))
		}
	}
	return m, notes, nil
}

func legalSchedules(arches []tiling.Arch) string {
	var parts []string
	for _, a := range uniq(arches) {
		parts = append(parts, fmt.Sprintf("%s takes %s", a, joinStrings(tiling.SchedulesFor(a))))
	}
	return strings.Join(parts, "; ")
}

// validate checks every config and reports all problems of all configs.
func validate(cfgs []tiling.Config) error {
	var errs []error
	for _, c := range cfgs {
		var ve *tiling.ValidationError
		err := c.Validate()
		switch {
		case err == nil:
		case errors.As(err, &ve):
			errs = append(errs, fmt.Errorf("invalid config %s:\n  %s", c.Name(), strings.ReplaceAll(ve.Error(), "\n", "\n  ")))
		default:
			errs = append(errs, fmt.Errorf("invalid config %s: %w", c.Name(), err))
		}
	}
	return errors.Join(errs...)
}

func runEmit(ctx context.Context, e *env, o *emitOptions) error {
	cfgs, notes, err := o.configs()
	if err != nil {
		return usageError(fmt.Errorf("emit: %w", err))
	}
	if err := validate(cfgs); err != nil {
		return usageError(fmt.Errorf("emit: nothing written:\n%w", err))
	}
	var extra func(gen.Index, []gen.EmittedKernel) ([]gen.OutputFile, error)
	if o.GoPackage != "" {
		if err := gen.ValidateGoPackage(o.GoPackage); err != nil {
			return usageError(fmt.Errorf("emit: --go-package: %w", err))
		}
		extra = gen.GoBindingsHook(o.GoPackage)
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}

	var tc *gen.Toolchain
	if !o.NoCompile {
		tc, err = gen.FindToolchain(gen.FindOptions{NVCC: o.NVCC})
		switch {
		case errors.Is(err, gen.ErrNoCompiler) && o.DryRun != nil:
			return fmt.Errorf("diff: cubins and Go bindings cannot be checked without a CUDA compiler; pass --no-compile to compare sources and manifests only: %w", err)
		case errors.Is(err, gen.ErrNoCompiler):
			fmt.Fprintf(e.stderr, "swigen: %v\nWriting sources and manifests only (no cubins).\n", err)
			tc = nil
		case err != nil:
			return fmt.Errorf("emit: %w", err)
		default:
			fmt.Fprintf(e.stderr, "compiling %d kernels with %s\n", len(cfgs), tc)
		}
	}
	res, err := gen.Emit(ctx, cfgs, gen.EmitOptions{
		Dir:        o.Out,
		Toolchain:  tc,
		Compile:    gen.CompileOptions{AllowSpills: o.AllowSpills},
		ExtraFiles: extra,
		DryRun:     o.DryRun != nil,
	})
	if err != nil {
		return fmt.Errorf("emit: nothing written: %w", err)
	}
	if o.DryRun != nil {
		return o.DryRun(res, tc)
	}
	printEmitResult(e, res)
	return nil
}

func printEmitResult(e *env, res *gen.EmitResult) {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	sm100 := false
	for _, k := range res.Kernels {
		a := k.Artifact
		m := a.Manifest
		if k.Build == nil {
			fmt.Fprintf(tw, "%s\t%s\tthreads %d\tsmem %d\tsource only\n", a.Config.Arch, a.Name, m.BlockThreads, m.DynamicSmemBytes)
			continue
		}
		sm100 = sm100 || a.Config.Arch == tiling.ArchSM100a
		fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Config.Arch, a.Name, buildLine(k, m))
	}
	tw.Flush()
	counts := map[gen.FileStatus]int{}
	for _, f := range res.Files {
		counts[f.Status]++
	}
	fmt.Fprintf(e.stdout, "%s: %d files written, %d unchanged (index %s)\n",
		res.Dir, counts[gen.FileWritten], counts[gen.FileUnchanged], filepath.Join(res.Dir, gen.IndexFile))
	if sm100 {
		fmt.Fprintf(e.stdout, "note: %s\n", sm100Note)
	}
}

// buildLine summarises a kernel's ptxas report: registers, spills, stack,
// shared memory (dynamic from the manifest plus ptxas's static) and the
// compile time or cache hit.
func buildLine(k gen.EmittedKernel, m gen.Manifest) string {
	r := k.Build.Report
	f := r.Function(m.Entry)
	if f == nil {
		for i := range r.Functions {
			if r.Functions[i].Entry {
				f = &r.Functions[i]
				break
			}
		}
	}
	var b strings.Builder
	if f == nil {
		b.WriteString("no ptxas report\t\t\t")
	} else {
		fmt.Fprintf(&b, "regs %d\tspills %d/%d B\tstack %d B\t", f.Registers, f.SpillStores, f.SpillLoads, f.StackFrame)
	}
	static := 0
	if f != nil {
		static = f.StaticSmem
	}
	fmt.Fprintf(&b, "smem %d B\t", m.DynamicSmemBytes+static)
	if k.Build.CacheHit {
		b.WriteString("cache hit")
	} else {
		b.WriteString(k.CompileTime.Round(10 * time.Millisecond).String())
	}
	if f != nil && len(f.Notes) > 0 {
		fmt.Fprintf(&b, "\tnotes: %s", strings.Join(f.Notes, "; "))
	}
	return b.String()
}

// parseArches parses --arch values (each may be a comma list already split
// by pflag), dropping repeats but keeping the user's order.
// parseKernels parses --kernel values (each may be a comma list), dropping
// repeats.
func parseKernels(vals []string) ([]tiling.Kernel, error) {
	var ks []tiling.Kernel
	for _, v := range vals {
		k, err := tiling.ParseKernel(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	return uniq(ks), nil
}

func parseArches(vals []string) ([]tiling.Arch, error) {
	var out []tiling.Arch
	for _, v := range vals {
		a, err := tiling.ParseArch(v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--arch: no target given")
	}
	return out, nil
}

// parseDims2 parses "MxN" (the epilogue sub-tile) into two positive sizes.
func parseDims2(what, s string) ([2]int, error) {
	ms, ns, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	var v [2]int
	for i, p := range []string{ms, ns} {
		n, err := strconv.Atoi(p)
		if !ok || err != nil || n <= 0 {
			return [2]int{}, fmt.Errorf("--%s %q: want two positive sizes MxN like 64x64", what, s)
		}
		v[i] = n
	}
	return v, nil
}

func filterConfigs(cfgs []tiling.Config, ks []tiling.Kernel, arches []tiling.Arch, ds []tiling.DType) []tiling.Config {
	var out []tiling.Config
	for _, c := range cfgs {
		if (len(ks) == 0 || slices.Contains(ks, c.Kernel)) &&
			(len(arches) == 0 || slices.Contains(arches, c.Arch)) &&
			(len(ds) == 0 || slices.Contains(ds, c.DType)) {
			out = append(out, c)
		}
	}
	return out
}

func uniq[T comparable](xs []T) []T {
	var out []T
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func joinStrings[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

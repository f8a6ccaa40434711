package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
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
	DryRun func(res *gen.EmitResult, tc *toolchain.Toolchain) error

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
override only that field of the heuristic choice (or of --tuned's winner).
Fields not given follow where they must: the epilogue sub-tile follows the
tile, the stages drop to the deepest ring that fits, and a schedule not
given gives way to one that takes the given fields (sm_100a's 2cta needs
tile M 256, so --tile 128x128x64 alone gets 1cta); a note says what
changed. A --schedule given is kept as is. --schedule takes the schedule
of each arch: cooperative, pingpong or overlap (bwd_dswiglu) on sm_90a,
1cta or 2cta on sm_100a; a value is applied to the selected arch where it
is legal, so --schedule pingpong,2cta sets both. --name emits one config
by its procedural name (see swigen list) exactly as named, so no field
flag may come with it; --catalog emits the whole catalog.

Every config is validated and rendered before a compiler is looked for:
an invalid config or flag combination lists every problem, exits 2 and
writes nothing. Then every config is compiled, and only then is anything
written, all files or none: they are staged in a hidden directory inside
the output directory and renamed into place, and a failure part-way puts
back what was there. Per kernel, the output directory gets <name>.cu,
<name>.json (launch manifest), <name>.<arch>.cubin and <name>.report.json
(ptxas report), plus manifest.json indexing them all. Files whose bytes
did not change are not rewritten.

Without a CUDA compiler, emit still writes the sources and manifests
(exit 0) and says how to install one: they are useful on their own. With
--go-package it fails instead (exit 1, nothing written): bindings without
cubins build but cannot load a kernel, and a go generate step must not
pass with them. --no-compile asks for sources (and bindings) without
cubins on purpose. sm_100a kernels are compile-verified only: no Blackwell
GPU is available to run them.`

func newEmitCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	o := &emitOptions{}
	cmd := &cobra.Command{
		Use:   "emit",
		Short: "Render, compile and write kernels (default: the seed kernel for both archs)",
		Long:  emitLong,
		Example: `  swigen emit
  swigen emit --arch sm_90a --tile 128x256x64 --stages 3 --schedule cooperative -o out/
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
	f.StringVar(&o.Name, "name", "", "emit the config with this procedural name (from swigen list), exactly: no field flag may change it")
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
	f.BoolVar(&o.NoCompile, "no-compile", false, "write sources and manifests (and --go-package bindings) without cubins, on purpose")
	f.BoolVar(&o.AllowSpills, "allow-spills", false, "accept register spills instead of failing the build")
	f.StringVar(&o.GoPackage, "go-package", "", "also write a Go package of this name into the output directory: embedded cubins and typed launchers")
	return cmd
}

// configs resolves the flags to the configs to emit, plus notes for the
// user (flags applied to only some archs, fields that gave way to the
// given ones, --tuned's choice). Errors are usage errors.
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
		if len(given) > 0 {
			return nil, nil, o.nameWithFields(given)
		}
	}

	if o.Catalog {
		return o.catalog()
	}

	if o.Name != "" {
		c, err := tiling.ParseName(o.Name)
		if err != nil {
			return nil, nil, err
		}
		return []tiling.Config{c}, nil, nil
	}
	base, baseNotes, err := o.heuristicBase()
	if err != nil {
		return nil, nil, err
	}
	cfgs, notes, err := o.override(base)
	return cfgs, append(baseNotes, notes...), err
}

// heuristicBase returns the configs the field flags apply to: the
// heuristic's (or --tuned's winner) for every kind and arch selected.
func (o *emitOptions) heuristicBase() ([]tiling.Config, []string, error) {
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
	var base []tiling.Config
	var notes []string
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
				notes = append(notes, fmt.Sprintf("skipped %s for %s: %s", k, a, why))
				continue
			}
			if o.Tuned != "" {
				var note string
				if c, note, err = tunedConfig(o.Tuned, c, shape, o.StoreOut); err != nil {
					return nil, nil, err
				}
				notes = append(notes, note)
			}
			base = append(base, c)
		}
	}
	if len(base) == 0 {
		return nil, nil, fmt.Errorf("no kernel to emit: %s", strings.Join(notes, "; "))
	}
	return base, notes, nil
}

// nameWithFields is the error for --name with field flags: the name fixes
// every field, so a flag that sets one asks for another config. When that
// config is valid, the error names it.
func (o *emitOptions) nameWithFields(given []string) error {
	err := fmt.Errorf("--name %s fixes every field of the config; it cannot be combined with %s", o.Name, strings.Join(given, ", "))
	c, perr := tiling.ParseName(o.Name)
	ov, oerr := o.fieldOverride()
	if perr != nil || oerr != nil {
		return err
	}
	if o.Changed["schedule"] {
		m, _, serr := schedulesFor(o.Schedules, []tiling.Arch{c.Arch})
		if serr != nil {
			return err
		}
		ov.Schedule = m[c.Arch]
	}
	if other, _ := ov.Apply(c); other != c && other.Validate() == nil {
		return fmt.Errorf("%w (to emit %s, give --name %s alone)", err, other.Name(), other.Name())
	}
	return err
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

// override applies the field flags that were given to every base config
// (tiling.Override: a schedule not given gives way when it cannot take
// them; the notes say so).
func (o *emitOptions) override(base []tiling.Config) ([]tiling.Config, []string, error) {
	ov, err := o.fieldOverride()
	if err != nil {
		return nil, nil, err
	}
	var arches []tiling.Arch
	for _, c := range base {
		arches = append(arches, c.Arch)
	}
	var schedFor map[tiling.Arch]tiling.Schedule
	var notes []string
	if o.Changed["schedule"] {
		if schedFor, notes, err = schedulesFor(o.Schedules, arches); err != nil {
			return nil, nil, err
		}
	}
	out := make([]tiling.Config, len(base))
	for i, c := range base {
		one := ov
		one.Schedule = schedFor[c.Arch]
		var n []string
		out[i], n = one.Apply(c)
		notes = append(notes, n...)
	}
	return out, notes, nil
}

// fieldOverride parses the field flags that were given (all of their
// errors at once) into a tiling.Override.
func (o *emitOptions) fieldOverride() (tiling.Override, error) {
	var ov tiling.Override
	var errs []error
	set := func(name string, apply func() error) {
		if o.Changed[name] {
			if err := apply(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	// An Override reads 0 as "not set"; a given 0 or less is never valid.
	positive := func(name string, v int, dst *int) func() error {
		return func() error {
			if v <= 0 {
				return fmt.Errorf("--%s %d: must be positive", name, v)
			}
			*dst = v
			return nil
		}
	}
	set("tile", func() (err error) { ov.TileM, ov.TileN, ov.TileK, err = tiling.ParseTile(o.Tile); return })
	set("stages", positive("stages", o.Stages, &ov.Stages))
	set("cluster", func() (err error) { ov.ClusterM, ov.ClusterN, err = tiling.ParseCluster(o.Cluster); return })
	set("scheduler", func() (err error) { ov.Scheduler, err = tiling.ParseScheduler(o.Scheduler); return })
	set("raster", func() (err error) { ov.Raster, err = tiling.ParseRaster(o.Raster); return })
	set("swizzle-group", positive("swizzle-group", o.SwizzleGroup, &ov.SwizzleGroup))
	set("epi", func() error {
		v, err := parseDims2("epi", o.Epi)
		ov.EpiM, ov.EpiN = v[0], v[1]
		return err
	})
	set("epi-stages", positive("epi-stages", o.EpiStages, &ov.EpiStages))
	set("major-a", func() (err error) { ov.MajorA, err = tiling.ParseMajor(o.MajorA); return })
	set("major-b", func() (err error) { ov.MajorB, err = tiling.ParseMajor(o.MajorB); return })
	set("store-out", func() error { ov.StoreOut = &o.StoreOut; return nil })
	set("l2k", func() error { ov.L2KeepOperands = &o.L2Keep; return nil })
	set("clc-stages", positive("clc-stages", o.CLCStages, &ov.CLCStages))
	return ov, errors.Join(errs...)
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

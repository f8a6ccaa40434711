package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

type verifyOptions struct {
	Select  pick.Request
	Shapes  []string
	Seed    seedFlag
	Tol     float64
	Timeout time.Duration
	NVCC    string
	Device  int
	JSON    bool
	Probe   string
	Repeat  int
	// Path is --path: both (default), fused or unfused.
	Path  string
	paths verifyPaths
}

func newVerifyCmd(e *env, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check kernels on the GPU against the float64 reference",
		Long:  longHelp("verify"),
		Example: `  swigen verify
  swigen verify --catalog --shape 4096,768,4608
  swigen verify --name bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong --seed 7`,
		GroupID: groupGPU,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runVerify(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	addSelectFlags(cmd, &o.Select)
	f.StringArrayVar(&o.Shapes, "shape", nil, "shapes M,K,I, or M,N,K for gemm, to check (repeatable; ';'-separated); default: the built-in ragged list")
	f.Var(&o.Seed, "seed", "seed of the random inputs; the one used is printed at the end, so a run can be repeated")
	f.Float64Var(&o.Tol, "tol", check.DefaultTol, "relative Frobenius error limit per output")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "per-launch deadline (a hung kernel is reported, not waited on)")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (default: search)")
	f.IntVar(&o.Device, "device", 0, "GPU ordinal")
	f.BoolVar(&o.JSON, "json", false, "print results as JSON")
	f.StringVar(&o.Probe, "probe", "", "build each kernel with this probe: "+strings.Join(gen.ProbeNames(), ", "))
	f.IntVar(&o.Repeat, "repeat", 1, "launch each kernel this many times on the same inputs and fail where its main output differs by a bit from the first launch's")
	f.StringVar(&o.Path, "path", "both", "dispatch paths to check for kinds with an unfused path (bwd_dswiglu, fwd_gateup): both, fused, or unfused (swigen gemm + elementwise)")
	return cmd
}

func addSelectFlags(cmd *cobra.Command, s *pick.Request) {
	f := cmd.Flags()
	f.StringSliceVar(&s.Names, "name", nil, "configs by procedural name (repeatable; see swigen list)")
	f.BoolVar(&s.Catalog, "catalog", false, "every catalog config of the GPU's arch")
	f.BoolVar(&s.Space, "space", false, "every config of the tuning space of the GPU's arch")
	s.Kernels = []string{string(tiling.DefaultKernel())}
	f.Var(oneKernel{&s.Kernels}, "kernel", "kernel kind")
	f.StringVar(&s.DType, "dtype", string(tiling.DefaultDType), "operand type (for --space and the heuristic)")
	f.StringVar(&s.Shape, "heuristic-shape", seedShape, "shape the heuristic config is picked for: M,K,I, or M,N,K for gemm")
}

// oneKernel is verify's and bench's --kernel: one kind, a plain string
// flag, kept as the selection's only Kernels word.
type oneKernel struct{ ks *[]string }

func (k oneKernel) String() string     { return strings.Join(*k.ks, ",") }
func (k oneKernel) Set(v string) error { *k.ks = []string{v}; return nil }
func (k oneKernel) Type() string       { return "string" }

// validate checks every flag that needs no GPU and returns the shapes to
// check (the built-in ragged list when none is given).
func (o *verifyOptions) validate() ([]tiling.Shape, error) {
	shapes, err := o.Select.ParseShapes(o.Shapes)
	if err != nil {
		return nil, err
	}
	if err := o.Select.Check(); err != nil {
		return nil, err
	}
	if k, ok := o.groupedSelected(); ok && len(shapes) > 0 {
		return nil, usageError(fmt.Errorf("verify: --shape with %s: a grouped kind is verified on its routings (check.MoERoutings), not on M,K,I shapes; drop --shape", k))
	}
	if !(o.Tol > 0) || math.IsInf(o.Tol, 0) {
		return nil, usageError(fmt.Errorf("verify: --tol %g: must be a finite positive number", o.Tol))
	}
	if err := checkDevice("verify", o.Device); err != nil {
		return nil, err
	}
	if err := checkNVCC("verify", o.NVCC); err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		return nil, usageError(fmt.Errorf("verify: --timeout %v: must be positive", o.Timeout))
	}
	if o.Repeat < 1 {
		return nil, usageError(fmt.Errorf("verify: --repeat %d: must be at least 1", o.Repeat))
	}
	if err := checkProbeNames(o.Probe, o.Select.Names); err != nil {
		return nil, err
	}
	if o.paths, err = parseVerifyPaths(o.Path); err != nil {
		return nil, err
	}
	if !o.paths.fused && o.Probe != "" {
		return nil, usageError(fmt.Errorf("verify: --path unfused with --probe %s: probes instrument the fused kernel", o.Probe))
	}
	if !o.paths.fused && len(o.Select.Names) == 0 && !tiling.HasUnfused(tiling.Kernel(o.Select.Kernel())) {
		return nil, usageError(fmt.Errorf("verify: --path unfused: %s has no unfused path (only %s)", o.Select.Kernel(), tiling.Words(tiling.UnfusedKinds())))
	}
	if len(shapes) == 0 {
		shapes = check.RaggedShapes()
	}
	return shapes, nil
}

// groupedSelected returns the first grouped kind among the configs
// selected (--name, else --kernel); ok is false when there is none.
// Names that do not parse are Select.Check's to report.
func (o *verifyOptions) groupedSelected() (tiling.Kernel, bool) {
	if len(o.Select.Names) == 0 {
		k := tiling.Kernel(o.Select.Kernel())
		return k, k.Grouped()
	}
	for _, n := range o.Select.Names {
		if c, err := tiling.ParseName(n); err == nil && c.Kernel.Grouped() {
			return c.Kernel, true
		}
	}
	return "", false
}

func runVerify(ctx context.Context, e *env, o *verifyOptions) error {
	shapes, err := o.validate()
	if err != nil {
		return err
	}
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return err
	}
	defer s.close()
	cfgs, err := o.Select.ConfigsOn(s.arch)
	if err != nil {
		return err
	}
	if err := checkProbe(o.Probe, cfgs); err != nil {
		return err
	}
	s.describe(e.stderr)
	if p, err := gen.LookupProbe(o.Probe); err == nil && !p.ResultsRight {
		fmt.Fprintf(e.stderr, "note: probe %s %s; its outputs are wrong by design, so the checks below fail: verify shows only that it builds, loads and runs\n", p.Name, p.Doc)
	}
	if !o.Seed.set {
		// Said up front too: a hang or a lost context ends the run before
		// the summary line.
		fmt.Fprintf(e.stderr, "seed %d (random; repeat with --seed %[1]d)\n", o.Seed.Seed())
	}
	env := s.checkEnv()
	gref, err := ref.NewGPURef(s.ctx, s.build)
	if err != nil {
		fmt.Fprintf(e.stderr, "note: naive GPU reference unavailable (%v); large shapes will fail\n", err)
	} else {
		env.GPURef = gref
	}
	all, failed, err := check.VerifyConfigs(ctx, env, s.arch, cfgs, shapes, check.RunOptions{
		Options: check.Options{Tol: o.Tol, Timeout: o.Timeout, Seed: o.Seed.Seed(), Repeat: o.Repeat},
		Probe:   o.Probe, Fused: o.paths.fused, Unfused: o.paths.unfused, BuildTimeout: buildTimeout,
		Out: e.stdout, Log: e.stderr, Quiet: o.JSON,
	})
	if nu := (*check.NoUnfusedPathError)(nil); errors.As(err, &nu) {
		return usageError(err)
	} else if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "seed %d: %d configs x %d shapes, %d failed\n", o.Seed.Seed(), len(cfgs), len(shapes), failed)
	if failed > 0 {
		return fmt.Errorf("verify: %d checks failed", failed)
	}
	return nil
}

// checkProbe checks that the probe called probe ("" for none) can
// instrument every config (a usage error names the first that it cannot).
func checkProbe(probe string, cfgs []tiling.Config) error {
	if probe == "" {
		return nil
	}
	p, err := gen.LookupProbe(probe)
	if err != nil {
		return usageError(fmt.Errorf("--probe: %w", err))
	}
	for _, c := range cfgs {
		if err := p.Supports(c); err != nil {
			return usageError(fmt.Errorf("--probe: %w", err))
		}
	}
	return nil
}

// checkProbeNames checks, before any GPU is opened, that probe ("" for
// none) exists and can instrument every config named: configs chosen by
// the GPU's arch (--catalog, the heuristic) are checked once it is known.
func checkProbeNames(probe string, names []string) error {
	if probe == "" {
		return nil
	}
	if _, err := gen.LookupProbe(probe); err != nil {
		return usageError(fmt.Errorf("--probe: %w", err))
	}
	var cfgs []tiling.Config
	for _, n := range names {
		c, err := tiling.ParseName(n)
		if err != nil {
			return usageError(err)
		}
		cfgs = append(cfgs, c)
	}
	return checkProbe(probe, cfgs)
}

// verifyPaths says which paths verify checks: both by default, so the
// dispatch plan can take either; --path fused or unfused checks one.
type verifyPaths struct {
	fused, unfused bool
}

func parseVerifyPaths(s string) (verifyPaths, error) {
	switch s {
	case "both":
		return verifyPaths{true, true}, nil
	case string(tiling.PathFused):
		return verifyPaths{fused: true}, nil
	case string(tiling.PathUnfused):
		return verifyPaths{unfused: true}, nil
	}
	return verifyPaths{}, usageError(fmt.Errorf("verify: --path %q: want both, fused or unfused", s))
}

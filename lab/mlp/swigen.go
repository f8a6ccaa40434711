package mlp

import (
	"context"
	"errors"
	"fmt"

	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Launcher is one planned kernel launch, enqueued on its stream by Launch.
type Launcher interface {
	Launch() error
}

// ErrNoKernel is wrapped by Swigen.Plan when swigen cannot run a segment
// here (no template, no host launcher, a shape the kernel rejects); the
// runner then uses the baseline for it and prints the reason.
var ErrNoKernel = errors.New("no swigen kernel")

// Swigen builds swigen's kernels for the step's segments (heuristic
// configs, compiled once and cached) and plans their launches.
type Swigen struct {
	env          *check.Env
	ctx          context.Context
	arch         tiling.Arch
	dtype        tiling.DType
	recomputeOut bool
	kernels      map[string]*launch.Kernel
	failed       map[string]error
	overrides    map[tiling.Kernel]tiling.Config
}

// NewSwigen returns a kernel provider for arch and dtype. With
// recomputeOut the bwd_dswiglu config stores out (StoreOut). ctx bounds
// the compiles.
func NewSwigen(ctx context.Context, env *check.Env, arch tiling.Arch, dtype tiling.DType, recomputeOut bool) *Swigen {
	return &Swigen{env: env, ctx: ctx, arch: arch, dtype: dtype, recomputeOut: recomputeOut,
		kernels: map[string]*launch.Kernel{}, failed: map[string]error{}, overrides: map[tiling.Kernel]tiling.Config{}}
}

// Override makes every segment of c's kernel kind start from c instead of
// the heuristic config (the segment still sets majors and outputs). c must
// be for this provider's arch and dtype.
func (s *Swigen) Override(c tiling.Config) error {
	if c.Arch != s.arch || c.DType != s.dtype {
		return fmt.Errorf("mlp: override %s: want arch %s and dtype %s", c.Name(), s.arch, s.dtype)
	}
	s.overrides[c.Kernel] = c
	return nil
}

// Close unloads every kernel built.
func (s *Swigen) Close() error {
	var errs []error
	for _, k := range s.kernels {
		errs = append(errs, k.Close())
	}
	s.kernels = map[string]*launch.Kernel{}
	return errors.Join(errs...)
}

// gemmDims are the plain GEMM of a weight- or input-gradient segment with
// the majors its storage implies (perfmodel.Segment.Gemm owns them).
type gemmDims = perfmodel.GemmDims

func segmentGemm(seg Segment, sh tiling.Shape) (gemmDims, bool) {
	switch seg {
	case DWDown, DX, DW:
		return seg.Gemm(sh), true
	}
	return gemmDims{}, false
}

// Config returns the config swigen would use for seg at sh, or why there
// is none.
func (s *Swigen) Config(seg Segment, sh tiling.Shape) (tiling.Config, error) {
	ksh := sh
	g, isGemm := segmentGemm(seg, sh)
	if isGemm {
		// tiling.Shape of a gemm is {M, K, I=N}; the heuristic wants K and N
		// multiples of 8, so round the reduction up for tile picking only.
		ksh = tiling.Shape{M: g.M, K: (g.K + 7) &^ 7, I: g.N}
	}
	cfg, overridden := s.overrides[seg.Kernel()]
	if !overridden {
		// A config that will store its second output needs a schedule
		// that implements it (the overlap schedule does not).
		h := tiling.Heuristic
		if seg == FwdGateUp || (seg == BwdDSwiGLU && s.recomputeOut) {
			h = tiling.HeuristicStoreOut
		}
		var err error
		if isGemm {
			// The gemm table's winners are per operand majors.
			cfg, _, err = tiling.HeuristicGemm(s.arch, s.dtype, ksh, g.MajorA, g.MajorB)
		} else {
			cfg, err = h(seg.Kernel(), s.arch, s.dtype, ksh)
		}
		if err != nil {
			return tiling.Config{}, fmt.Errorf("%w for %s: %w", ErrNoKernel, seg, err)
		}
	}
	switch seg {
	case BwdDSwiGLU: // W_down [I,K]: K-major for dout = dy @ W_down^T
		cfg.StoreOut = s.recomputeOut
	case FwdGateUp: // x [M,K]; W [2I,K] (nn.Linear): both K-major
		cfg.MajorA, cfg.MajorB = tiling.KMajor, tiling.KMajor
		cfg.StoreOut = true // training: de is kept for the backward
	case FwdDown: // out [M,I]; W_down [I,K] is B stored [K,N]: MN-major
		cfg.MajorA, cfg.MajorB = tiling.KMajor, tiling.MNMajor
	default:
		cfg.MajorA, cfg.MajorB = g.MajorA, g.MajorB
	}
	// A second output takes epilogue shared memory: re-derive the deepest
	// operand ring that still fits (an override keeps its own if it fits).
	if !overridden || cfg.Validate() != nil {
		cfg.Stages = cfg.MaxStages()
	}
	if _, err := tiling.Check(cfg); err != nil {
		return tiling.Config{}, fmt.Errorf("%w for %s: %w", ErrNoKernel, seg, err)
	}
	return cfg, nil
}

func (s *Swigen) kernel(cfg tiling.Config) (*launch.Kernel, error) {
	name := cfg.Name()
	if k, ok := s.kernels[name]; ok {
		return k, nil
	}
	if err := s.failed[name]; err != nil {
		return nil, err
	}
	k, _, err := check.BuildAndLoad(s.ctx, s.env, cfg)
	if err != nil {
		err = fmt.Errorf("mlp: build %s: %w", name, err)
		s.failed[name] = err
		return nil, err
	}
	s.kernels[name] = k
	return k, nil
}

// Plan returns swigen's launch of seg on the buffers t and the config's
// name. An error wrapping ErrNoKernel means swigen has no kernel for the
// segment here; any other error is a build or planning failure. Either
// way the runner falls back to the baseline and reports the reason.
func (s *Swigen) Plan(seg Segment, sh tiling.Shape, t *Tensors) (Launcher, string, error) {
	if s == nil {
		return nil, "", fmt.Errorf("%w for %s: swigen kernels disabled", ErrNoKernel, seg)
	}
	cfg, err := s.Config(seg, sh)
	if err != nil {
		return nil, "", err
	}
	k, err := s.kernel(cfg)
	if err != nil {
		return nil, cfg.Name(), err
	}
	var l Launcher
	if seg == BwdDSwiGLU {
		l, err = k.Plan(launch.BwdArgs{M: sh.M, K: sh.K, I: sh.I, Dy: t.Dy, WDown: t.WDown, De: t.De, GradDe: t.GradDe, Out: t.Out})
	} else {
		l, err = planOther(k, seg, sh, t)
	}
	if err != nil {
		return nil, cfg.Name(), fmt.Errorf("mlp: plan %s: %w", cfg.Name(), err)
	}
	return l, cfg.Name(), nil
}

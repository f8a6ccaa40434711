package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/swigen/swigen/gen/builder"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// gpuSession is what the GPU commands share: the driver context of one
// device and the toolchain that builds kernels for it.
type gpuSession struct {
	ctx     *cu.Context
	dev     cu.Device
	tc      *toolchain.Toolchain
	build   *builder.Builder // tc as the runtime's builder
	name    string
	driver  int
	ccMajor int
	ccMinor int
	arch    tiling.Arch
}

func openGPU(nvcc string, ordinal int) (*gpuSession, error) {
	if err := cu.Init(); err != nil {
		return nil, fmt.Errorf("open GPU: %w (swigen verify/bench/tune need an NVIDIA driver and GPU)", err)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, err
	}
	s := &gpuSession{dev: dev}
	if s.name, err = dev.Name(); err != nil {
		return nil, err
	}
	if s.driver, err = cu.DriverVersion(); err != nil {
		return nil, err
	}
	if s.ccMajor, s.ccMinor, err = dev.ComputeCapability(); err != nil {
		return nil, err
	}
	var ok bool
	if s.arch, ok = tiling.ArchForCC(s.ccMajor, s.ccMinor); !ok {
		return nil, fmt.Errorf("open GPU: %s has compute capability %d.%d: swigen kernels need 9.0 (sm_90a) or 10.0 (sm_100a)", s.name, s.ccMajor, s.ccMinor)
	}
	if s.tc, err = toolchain.Find(toolchain.FindOptions{NVCC: nvcc}); err != nil {
		return nil, err
	}
	s.build = builder.New(s.tc)
	if s.ctx, err = cu.NewContext(dev); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *gpuSession) close() {
	if s.ctx != nil {
		s.ctx.Close()
	}
}

// comparer loads the GPU comparison of outputs (bench.Comparer) on the
// session's context: the host would take seconds per model-size output.
func (s *gpuSession) comparer() (*bench.Comparer, error) {
	c, err := bench.NewComparer(s.ctx, s.build)
	if err != nil {
		return nil, fmt.Errorf("open GPU: %w", err)
	}
	return c, nil
}

// baselines opens cuBLAS and, with elementwise, the baseline's dSwiGLU
// kernel on the session's context; release frees both.
func (s *gpuSession) baselines(elementwise bool) (b baseline.Bwd, release func(), err error) {
	if b.BLAS, err = baseline.OpenCuBLAS(s.ctx); err != nil {
		return b, nil, err
	}
	if elementwise {
		if b.EW, err = baseline.NewElementwise(s.ctx, s.build); err != nil {
			b.BLAS.Close()
			return b, nil, err
		}
	}
	return b, func() {
		if b.EW != nil {
			b.EW.Close()
		}
		b.BLAS.Close()
	}, nil
}

// benchEnv is what the bench commands time against on the session: the
// baselines (cuBLAS; with elementwise the dSwiGLU kernel too) and the GPU
// comparison of outputs. release frees them.
func (s *gpuSession) benchEnv(elementwise bool) (env *bench.Env, release func(), err error) {
	base, releaseBase, err := s.baselines(elementwise)
	if err != nil {
		return nil, nil, err
	}
	cmp, err := s.comparer()
	if err != nil {
		releaseBase()
		return nil, nil, err
	}
	return &bench.Env{Ctx: s.ctx, Dev: s.dev, Base: base, Cmp: cmp}, func() {
		cmp.Close()
		releaseBase()
	}, nil
}

// checkEnv is the session as lab/check's build-and-load environment.
func (s *gpuSession) checkEnv() *check.Env {
	return &check.Env{Ctx: s.ctx, Dev: s.dev, Builder: s.build}
}

func (s *gpuSession) describe(w io.Writer) {
	fmt.Fprintf(w, "GPU: %s (sm_%d%d), driver %d, nvcc %s\n", s.name, s.ccMajor, s.ccMinor, s.driver, s.tc.Version)
}

// parseShapes parses bench mlp's --shape values, the MLP's sizes M,K,I
// (repeatable, each ';'-separated).
func parseShapes(vals []string) ([]tiling.Shape, error) {
	var out []tiling.Shape
	for _, v := range vals {
		for _, part := range strings.Split(v, ";") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			s, err := tiling.ParseShape(part)
			if err != nil {
				return nil, usageError(err)
			}
			out = append(out, s)
		}
	}
	if len(vals) > 0 && len(out) == 0 {
		return nil, usageError(fmt.Errorf("--shape %q: no shape given; want M,K,I, or leave the flag out", strings.Join(vals, ";")))
	}
	return out, nil
}

// buildTimeout bounds one compile so a wedged compiler cannot stall a run.
const buildTimeout = 5 * time.Minute

func compileCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, buildTimeout)
}

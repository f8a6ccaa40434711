package main

import (
	"context"
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/lab/mlp"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// runBench opens the GPU, pairs configs with shapes (benchJobs) and hands
// them to bench.Run with the kind's baseline and timing.
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
		if err := checkProbe(o.Probe, []tiling.Config{j.Config}); err != nil {
			return err
		}
	}
	s.describe(e.stderr)
	for _, j := range jobs {
		for _, n := range j.Notes {
			fmt.Fprintln(e.stderr, n)
		}
	}
	spec, _ := tiling.KindOf(tiling.Kernel(o.Select.Kernel()))
	benv, release, err := s.benchEnv(spec.Elementwise == "dswiglu") // bwd: the dSwiGLU elementwise kernel
	if err != nil {
		return err
	}
	defer release()
	cenv := s.checkEnv()
	gemms := check.GemmCache{Env: cenv, BuildTimeout: buildTimeout}
	defer gemms.Close()
	ro := bench.RunOptions{Options: bench.Options{Reps: o.Reps, Warmup: o.Warmup, Seed: uint64(time.Now().UnixNano())},
		Probe: o.Probe, Path: o.path, Gemm: gemms.Get, Build: buildFunc(cenv, o.Probe), Out: e.stdout, Log: e.stderr}
	if spec.Elementwise == "swiglu" {
		// fwd_gateup's baseline: the cuBLAS GEMM, then the SwiGLU
		// elementwise kernel.
		menv := &mlp.Env{Ctx: s.ctx, Dev: s.dev, BLAS: benv.Base.BLAS, Cmp: benv.Cmp}
		cctx, cancel := compileCtx(ctx)
		menv.SwiGLU, err = mlp.NewSwiGLU(cctx, s.ctx, s.build)
		cancel()
		if err != nil {
			return err
		}
		defer menv.SwiGLU.Close()
		ro.Time = mlp.TimeFwdGateUp(menv)
	}
	if o.JSONDir != "" {
		ro.Record = bench.Recorder{Dir: o.JSONDir, Header: bench.Header{Probe: o.Probe, GPU: s.name, Driver: s.driver,
			Revision: bench.Revision(gitRevision), Command: o.Command}}.Write
	}
	return bench.Run(ctx, benv, jobs, ro)
}

// buildFunc builds and loads a config's kernel with probe ("" is the
// product kernel), each build within buildTimeout.
func buildFunc(cenv *check.Env, probe string) func(context.Context, tiling.Config) (*launch.Kernel, error) {
	return func(ctx context.Context, cfg tiling.Config) (*launch.Kernel, error) {
		cctx, cancel := compileCtx(ctx)
		defer cancel()
		k, _, err := check.BuildAndLoadProbe(cctx, cenv, cfg, probe)
		return k, err
	}
}

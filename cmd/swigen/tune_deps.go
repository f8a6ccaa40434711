package main

import (
	"context"
	"io"
	"time"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/tiling"
)

// tuneGPU is what the parent needs to know about the GPU.
type tuneGPU = tune.GPU

// tuneDeps are the parts of runTune that touch the machine, replaced in
// tests.
type tuneDeps struct {
	probe     func(devices []int) (tuneGPU, error)
	toolchain func(nvcc string) (*toolchain.Toolchain, error)
	prepare   func(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error
	runner    func(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error)
	now       func() time.Time
}

func defaultTuneDeps() tuneDeps {
	return tuneDeps{
		probe: tune.ProbeGPU,
		toolchain: func(nvcc string) (*toolchain.Toolchain, error) {
			return toolchain.Find(toolchain.FindOptions{NVCC: nvcc})
		},
		prepare: compileCandidate,
		runner:  serveRunner,
		now:     time.Now,
	}
}

// compileCandidate renders and compiles a config exactly as the worker's
// check.BuildAndLoad does, so the worker's build is a cache hit.
func compileCandidate(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error {
	return func(ctx context.Context, c tiling.Config) error {
		k, err := tiling.Check(c)
		if err != nil {
			return err
		}
		art, err := gen.Render(k)
		if err != nil {
			return err
		}
		cctx, cancel := compileCtx(ctx)
		defer cancel()
		_, err = tc.Compile(cctx, art.Name, art.Source, toolchain.CompileOptions{Arch: string(c.Arch), Include: art.Include})
		return err
	}
}

// serveRunner runs one long-lived `swigen tune-worker` per device
// (tune.NewWorkerRunner); --verbose passes their output through to log.
func serveRunner(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error) {
	nvcc := ""
	if tc != nil {
		nvcc = tc.NVCC
	}
	if !o.Verbose {
		log = nil
	}
	return tune.NewWorkerRunner(o.workerTiming(nvcc), o.Timeout, log)
}

// workerTiming is how the flags ask the workers to time each job.
func (o *tuneOptions) workerTiming(nvcc string) tune.WorkerTiming {
	return tune.WorkerTiming{Reps: o.Reps, Warmup: o.Warmup, SyncTimeout: o.SyncTimeout, NVCC: nvcc}
}

// shapeSpeedups are the tune's speedups as printSpeedupStats takes them.
func shapeSpeedups(xs []tune.ShapeSpeedup) []shapeSpeedup {
	out := make([]shapeSpeedup, len(xs))
	for i, x := range xs {
		out[i] = shapeSpeedup{x.Shape, x.Speedup, x.Kernel}
	}
	return out
}

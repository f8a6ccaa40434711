package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/runtime/baseline"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// workerOptions are the flags of the hidden `swigen tune-worker`: the
// request (tune.WorkerRequest, as the parent encoded it) and the file the
// result goes to.
type workerOptions struct {
	Request string
	JSONOut string
}

func newTuneWorkerCmd(e *env, runF func(context.Context, *workerOptions) error) *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:    "tune-worker",
		Short:  "Measure one config for swigen tune (internal; run by tune in a child process)",
		Long:   "Load, verify and time one job of swigen tune and write the result as JSON to --json-out.",
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
	f.StringVar(&o.Request, "request", "", "the job, as swigen tune encodes it (tune.WorkerRequest)")
	f.StringVar(&o.JSONOut, "json-out", "", "result file")
	return cmd
}

// workerExit ends a worker whose CUDA context may be dead or still running
// a hung kernel: tearing it down could block, and the result is written.
var workerExit = os.Exit

func runTuneWorker(ctx context.Context, e *env, o *workerOptions) error {
	if o.JSONOut == "" {
		return usageError(errors.New("tune-worker: --json-out is required"))
	}
	req, err := tune.DecodeRequest(o.Request)
	if err != nil {
		// The parent records what the worker writes: a request it cannot
		// take is the job's failure, not a worker that vanished.
		err = fmt.Errorf("tune-worker: %w", err)
		if werr := tune.WriteOutput(o.JSONOut, tune.Output{Result: tune.Result{Status: tune.StatusFault, Error: err.Error()}}); werr != nil {
			err = errors.Join(err, werr)
		}
		return usageError(err)
	}
	job := req.Job
	start := time.Now()
	fail := func(st tune.Status, err error) error {
		out := tune.Output{Result: tune.Result{Config: job.Name(), Status: st, Error: err.Error(), Device: job.Device,
			WallS: time.Since(start).Seconds()}}
		if werr := tune.WriteOutput(o.JSONOut, out); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	s, err := openGPU(req.NVCC, job.Device)
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
	if job.Config.Kernel == tiling.KernelFwdGateUp {
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
		Bench:       bench.Options{Reps: req.Reps, Warmup: req.Warmup, Timeout: req.SyncTimeout, Seed: uint64(time.Now().UnixNano())},
		SyncTimeout: req.SyncTimeout,
	})
	out.WallS = time.Since(start).Seconds()
	if err := tune.WriteOutput(o.JSONOut, out); err != nil {
		return err
	}
	msg := fmt.Sprintf("tune-worker: %s on device %d: %s", job.Name(), job.Device, out.Status)
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

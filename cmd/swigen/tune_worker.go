package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/lab/tune"
)

// workerOptions are the flags of the hidden `swigen tune-worker`: the GPU
// it serves and the compiler the parent builds with (so the worker's
// builds are cache hits).
type workerOptions struct {
	Device int
	NVCC   string
}

func newTuneWorkerCmd(e *env, runF func(context.Context, *workerOptions) error) *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "tune-worker",
		Short: "Measure configs for swigen tune (internal; run by tune in a child process)",
		Long: "Serve swigen tune's jobs on one GPU: read one tune.WorkerRequest per line on stdin, load, verify\n" +
			"and time it, and write its tune.Output as one JSON line on file descriptor 3; exit at the end of\n" +
			"stdin, or right after answering a fault or timeout (the CUDA context may be dead).",
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			res, err := tune.ResultsPipe()
			if err != nil {
				return err
			}
			defer res.Close()
			return serveTuneWorker(cmd.Context(), e, o, openWorkerGPU, os.Stdin, res)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Device, "device", 0, "GPU ordinal the worker serves")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc the parent builds with (default: search)")
	return cmd
}

// workerExit ends a worker whose CUDA context may be dead or still running
// a hung kernel: tearing it down could block, and the answer is written.
var workerExit = os.Exit

// openWorkerGPU opens the worker's GPU session and, in it, what every job
// is measured with; closing the environment closes the session.
func openWorkerGPU(o *workerOptions) (*tune.WorkerEnv, error) {
	s, err := openGPU(o.NVCC, o.Device)
	if err != nil {
		return nil, err
	}
	env, err := tune.OpenWorkerEnv(s.ctx, s.dev, s.build)
	if err != nil {
		s.close()
		return nil, err
	}
	env.BuildTimeout, env.Release = buildTimeout, s.close // as compileCtx
	return env, nil
}

// serveTuneWorker answers the requests on in, one line each, with one
// JSON Output line each on res. The GPU is opened once (by open; a
// failure is every job's answer); every job of the worker's life shares
// its context, cuBLAS, the baseline's kernels and the random input data
// (bench's seed is fixed per worker, so candidates of one worker are
// timed on the same inputs as each other and as the baseline, fresh for
// each worker).
func serveTuneWorker(ctx context.Context, e *env, o *workerOptions, open func(*workerOptions) (*tune.WorkerEnv, error), in io.Reader, res io.Writer) error {
	env, err := open(o)
	if err == nil {
		defer env.Close()
	}
	wk := tune.NewWorker(o.Device, env, err, uint64(time.Now().UnixNano()))
	return tune.WorkerLoop{Device: o.Device, In: in, Out: res, Log: e.stderr,
		Job:  func(line string) tune.Output { return wk.Job(ctx, line) },
		Exit: workerExit,
	}.Serve()
}

package tune

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/swigen/swigen/lab/bench"
)

// WorkerTiming is how every worker times its jobs (a screening job's own
// reps and warm-up replace Reps and Warmup), and the compiler it builds
// with.
type WorkerTiming struct {
	Reps        int
	Warmup      time.Duration
	SyncTimeout time.Duration
	// NVCC is the parent's compiler, so the workers' builds are cache hits
	// ("" searches).
	NVCC string
}

// WorkerArgs is the command line (after the executable) of the worker
// that serves device.
func WorkerArgs(device int, nvcc string) []string {
	args := []string{"tune-worker", "--device", strconv.Itoa(device)}
	if nvcc != "" {
		args = append(args, "--nvcc", nvcc)
	}
	return args
}

// Request is job j as the worker takes it.
func (t WorkerTiming) Request(j Job) WorkerRequest {
	req := WorkerRequest{Job: j, Reps: t.Reps, Warmup: t.Warmup, SyncTimeout: t.SyncTimeout, NVCC: t.NVCC}
	if j.Reps > 0 {
		req.Reps = j.Reps
	}
	if j.Warmup > 0 {
		req.Warmup = j.Warmup
	}
	return req
}

// NewWorkerRunner runs one long-lived `swigen tune-worker` per device
// (this executable re-run), which measures every job of the tune in one
// CUDA context; timeout is the per-job limit, log (nil: dropped) gets the
// workers' output.
func NewWorkerRunner(t WorkerTiming, timeout time.Duration, log io.Writer) (*ServeRunner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("tune: find own executable for the workers: %w", err)
	}
	return &ServeRunner{
		Path:    exe,
		Args:    func(device int) []string { return WorkerArgs(device, t.NVCC) },
		Encode:  func(j Job) (string, error) { return t.Request(j).Encode() },
		Timeout: timeout,
		Log:     log,
	}, nil
}

// Worker measures the jobs of one worker process on its device.
type Worker struct {
	Device int
	// Env is the GPU the worker opened once; OpenErr, when not nil, why
	// it could not (then every job's answer).
	Env     *MeasureEnv
	OpenErr error
	// Seed makes the worker's random inputs (fixed per worker, so its
	// candidates and the baseline are timed on the same data).
	Seed uint64
	// SwiGLU loads fwd_gateup's baseline kernel into Env on first use.
	SwiGLU func(ctx context.Context) error
}

// Job measures one request line; every failure is the job's Output.
func (w *Worker) Job(ctx context.Context, line string) Output {
	fail := func(name string, st Status, err error) Output {
		return Output{Result: Result{Config: name, Status: st, Error: err.Error(), Device: w.Device}}
	}
	req, err := DecodeRequest(line)
	if err != nil {
		return fail("", StatusFault, fmt.Errorf("tune-worker: %w", err))
	}
	job := req.Job
	switch {
	case job.Device != w.Device:
		return fail(job.Name(), StatusFault, fmt.Errorf("tune-worker: job for device %d sent to the worker of device %d", job.Device, w.Device))
	case w.OpenErr != nil:
		return fail(job.Name(), Classify(w.OpenErr), fmt.Errorf("tune-worker: device %d: %w", w.Device, w.OpenErr))
	case w.Env == nil:
		return fail(job.Name(), StatusFault, fmt.Errorf("tune-worker: device %d: no measurement environment", w.Device))
	}
	if w.SwiGLU != nil && needsSwiGLU(job.Config.Kernel) {
		if err := w.SwiGLU(ctx); err != nil {
			return fail(job.Name(), Classify(err), err)
		}
	}
	return Measure(ctx, w.Env, job, MeasureOptions{
		Bench:       bench.Options{Reps: req.Reps, Warmup: req.Warmup, Timeout: req.SyncTimeout, Seed: w.Seed},
		SyncTimeout: req.SyncTimeout,
	})
}

package tune

import (
	"context"
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/lab/mlp"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
)

// WorkerEnv is what a worker opens once on its GPU and measures every job
// with: cuBLAS, the baseline's kernels and the GPU output comparer, in
// the worker's context.
type WorkerEnv struct {
	Env *MeasureEnv
	// BuildTimeout bounds the compile of a baseline kernel loaded on first
	// use (0: none).
	BuildTimeout time.Duration
	// Release, when set, is called last by Close (to close the context
	// the environment was opened in).
	Release func()

	ctx  *cu.Context
	b    launch.Builder
	blas *baseline.CuBLAS
	ew   *baseline.Elementwise
	cmp  *bench.Comparer
}

// OpenWorkerEnv opens the measurement environment of a worker in ctx, on
// dev, building kernels with b; Close releases it (not ctx).
func OpenWorkerEnv(ctx *cu.Context, dev cu.Device, b launch.Builder) (*WorkerEnv, error) {
	w := &WorkerEnv{ctx: ctx, b: b}
	var err error
	if w.blas, err = baseline.OpenCuBLAS(ctx); err != nil {
		return nil, fmt.Errorf("open cuBLAS: %w", err)
	}
	if w.ew, err = baseline.NewElementwise(ctx, b); err != nil {
		w.Close()
		return nil, fmt.Errorf("baseline elementwise kernel: %w", err)
	}
	// Each candidate's output is checked against the baseline's on the
	// GPU: on the host that takes seconds at model sizes.
	if w.cmp, err = bench.NewComparer(ctx, b); err != nil {
		w.Close()
		return nil, err
	}
	w.Env = &MeasureEnv{
		Check: &check.Env{Ctx: ctx, Dev: dev, Builder: b},
		Bench: &bench.Env{Ctx: ctx, Dev: dev, Base: baseline.Bwd{BLAS: w.blas, EW: w.ew}, Cmp: w.cmp},
	}
	return w, nil
}

// SwiGLU loads fwd_gateup's baseline elementwise kernel on first use.
func (w *WorkerEnv) SwiGLU(ctx context.Context) error {
	if w.Env.SwiGLU != nil {
		return nil
	}
	if w.BuildTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.BuildTimeout)
		defer cancel()
	}
	k, err := mlp.NewSwiGLU(ctx, w.ctx, w.b)
	if err != nil {
		return fmt.Errorf("baseline SwiGLU elementwise kernel: %w", err)
	}
	w.Env.SwiGLU = k
	return nil
}

// Close releases what OpenWorkerEnv opened.
func (w *WorkerEnv) Close() {
	if w.Env != nil {
		w.Env.SwiGLU.Close()
	}
	if w.ew != nil {
		w.ew.Close()
	}
	w.cmp.Close()
	if w.blas != nil {
		w.blas.Close()
	}
	if w.Release != nil {
		w.Release()
	}
}

// NewWorker is the Worker of device measuring in env, or answering every
// job with openErr when env could not be opened; seed makes its inputs.
func NewWorker(device int, env *WorkerEnv, openErr error, seed uint64) *Worker {
	w := &Worker{Device: device, OpenErr: openErr, Seed: seed}
	if openErr == nil && env != nil {
		w.Env, w.SwiGLU = env.Env, env.SwiGLU
	}
	return w
}

package mlp

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// DefaultTol is the relative Frobenius error an output of the default
// operand type may have against its reference (and swigen's output against
// the baseline's): num.Tol of tiling.DefaultDType.
var DefaultTol = num.Tol(tiling.DefaultDType)

// Env is what the GPU runs need: a context and the baseline's kernels.
type Env struct {
	Ctx     *cu.Context
	Dev     cu.Device
	BLAS    *baseline.CuBLAS
	DSwiGLU *baseline.Elementwise // backward elementwise (lab/baseline)
	SwiGLU  *SwiGLU               // forward elementwise (runtime/elementwise)
	// Cmp, when set, compares outputs on the GPU (bench.CompareOutputs).
	Cmp *bench.Comparer
}

// Options tune a run.
type Options struct {
	DType        tiling.DType
	RecomputeOut bool
	Reps         int           // timed repetitions per variant (>= 20)
	Warmup       time.Duration // warm-up by time per variant
	Timeout      time.Duration // per synchronisation
	Seed         uint64
	Tol          float64   // 0: the dtype's (num.Tol)
	Progress     io.Writer // notes while running; nil: none
}

func (o *Options) defaults() {
	if o.DType == "" {
		o.DType = tiling.DefaultDType
	}
	if o.Reps < 20 {
		o.Reps = 20
	}
	if o.Warmup == 0 {
		o.Warmup = 300 * time.Millisecond
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Tol == 0 {
		o.Tol = num.Tol(o.DType)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
}

// Tensors are the device buffers of one step (see the package doc for the
// layouts). Dout is the baseline's scratch: the fused kernel never writes
// it.
type Tensors struct {
	X, W, WDown, Dy              cu.DevicePtr // inputs
	De, Out, Y                   cu.DevicePtr // forward
	Dout, GradDe, DWDown, DX, DW cu.DevicePtr // backward
}

// tensor describes one buffer of Tensors.
type tensor struct {
	name  string
	ptr   func(*Tensors) *cu.DevicePtr
	elems func(tiling.Shape) int
	// scale of the random fill of an input (0: an output, poisoned).
	scale func(tiling.Shape) float64
}

func tensors() []tensor {
	mk := func(s tiling.Shape) int { return s.M * s.K }
	mi := func(s tiling.Shape) int { return s.M * s.I }
	m2i := func(s tiling.Shape) int { return 2 * s.M * s.I }
	ik := func(s tiling.Shape) int { return s.I * s.K }
	i2k := func(s tiling.Shape) int { return 2 * s.I * s.K }
	one := func(tiling.Shape) float64 { return 1 }
	// Weights scaled by 1/sqrt(fan-in) keep every activation O(1), so
	// nothing overflows fp16 and the outputs compare meaningfully.
	invK := func(s tiling.Shape) float64 { return 1 / math.Sqrt(float64(s.K)) }
	invI := func(s tiling.Shape) float64 { return 1 / math.Sqrt(float64(s.I)) }
	return []tensor{
		{"x", func(t *Tensors) *cu.DevicePtr { return &t.X }, mk, one},
		{"W", func(t *Tensors) *cu.DevicePtr { return &t.W }, i2k, invK},
		{"W_down", func(t *Tensors) *cu.DevicePtr { return &t.WDown }, ik, invI},
		{"dy", func(t *Tensors) *cu.DevicePtr { return &t.Dy }, mk, one},
		{"de", func(t *Tensors) *cu.DevicePtr { return &t.De }, m2i, nil},
		{"out", func(t *Tensors) *cu.DevicePtr { return &t.Out }, mi, nil},
		{"y", func(t *Tensors) *cu.DevicePtr { return &t.Y }, mk, nil},
		{"dout", func(t *Tensors) *cu.DevicePtr { return &t.Dout }, mi, nil},
		{"grad_de", func(t *Tensors) *cu.DevicePtr { return &t.GradDe }, m2i, nil},
		{"dW_down", func(t *Tensors) *cu.DevicePtr { return &t.DWDown }, ik, nil},
		{"dx", func(t *Tensors) *cu.DevicePtr { return &t.DX }, mk, nil},
		{"dW", func(t *Tensors) *cu.DevicePtr { return &t.DW }, i2k, nil},
	}
}

func tensorByName(name string) (tensor, error) {
	for _, t := range tensors() {
		if t.name == name {
			return t, nil
		}
	}
	return tensor{}, fmt.Errorf("mlp: unknown tensor %q", name)
}

// SetBytes is the device memory of one Tensors set at sh in dtype dt.
func SetBytes(sh tiling.Shape, dt tiling.DType) int {
	n := 0
	for _, t := range tensors() {
		n += dt.Size() * t.elems(sh)
	}
	return n
}

// Outputs are the tensors segment s writes (compared between
// implementations and against the reference).
func Outputs(s Segment, recomputeOut bool) []string {
	switch s {
	case FwdGateUp:
		return []string{"de", "out"}
	case FwdDown:
		return []string{"y"}
	case BwdDSwiGLU:
		if recomputeOut {
			return []string{"grad_de", "out"}
		}
		return []string{"grad_de"}
	case DWDown:
		return []string{"dW_down"}
	case DX:
		return []string{"dx"}
	case DW:
		return []string{"dW"}
	}
	return nil
}

// baselineRun returns the baseline's kernels of segment s on t, one func
// per Part of BaselineParts.
func (e *Env) baselineRun(s Segment, sh tiling.Shape, o Options, t *Tensors) []func() error {
	M, K, I, dt := sh.M, sh.K, sh.I, o.DType
	switch s {
	case FwdGateUp:
		return []func() error{
			func() error { return e.BLAS.GemmRowMajor(dt, true, M, 2*I, K, t.X, t.W, t.De, nil) },
			func() error { return e.SwiGLU.Run(dt, M, I, t.De, t.Out, nil) },
		}
	case FwdDown:
		return []func() error{func() error { return e.BLAS.GemmRowMajor(dt, false, M, K, I, t.Out, t.WDown, t.Y, nil) }}
	case BwdDSwiGLU:
		var out cu.DevicePtr
		if o.RecomputeOut {
			out = t.Out
		}
		return []func() error{
			func() error { return e.BLAS.GemmRowMajor(dt, true, M, I, K, t.Dy, t.WDown, t.Dout, nil) },
			func() error { return e.DSwiGLU.Run(dt, M, I, t.Dout, t.De, t.GradDe, out, nil) },
		}
	case DWDown:
		return []func() error{func() error { return e.BLAS.GemmRowMajorAB(dt, true, false, I, K, M, t.Out, t.Dy, t.DWDown, nil) }}
	case DX:
		return []func() error{func() error { return e.BLAS.GemmRowMajor(dt, false, M, K, 2*I, t.GradDe, t.W, t.DX, nil) }}
	case DW:
		return []func() error{func() error { return e.BLAS.GemmRowMajorAB(dt, true, false, 2*I, K, M, t.GradDe, t.X, t.DW, nil) }}
	}
	return nil
}

func seq(fs []func() error) func() error {
	return func() error {
		for _, f := range fs {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}
}

// allocSet allocates one Tensors set, inputs filled by fill, outputs
// poisoned.
func allocSet(ctx *cu.Context, mem *cu.Buffers, sh tiling.Shape, dt tiling.DType, fill func(tensor, cu.DevicePtr, int) error) (*Tensors, error) {
	t := &Tensors{}
	for _, d := range tensors() {
		n := dt.Size() * d.elems(sh)
		p, err := mem.Alloc(n)
		if err != nil {
			return nil, fmt.Errorf("mlp: allocate %s (%d bytes): %w", d.name, n, err)
		}
		*d.ptr(t) = p
		if d.scale != nil {
			err = fill(d, p, n)
		} else {
			err = ctx.MemsetD16(p, num.Poison(dt), uint64(d.elems(sh)))
		}
		if err != nil {
			return nil, fmt.Errorf("mlp: initialise %s: %w", d.name, err)
		}
	}
	return t, nil
}

// variant is one timed thing: a function of the repetition index (which
// picks the rotated input set).
type variant struct {
	what string
	f    func(rep int) error
	us   []float64
}

// timeInterleaved warms every variant, then times them in rounds so clock
// and temperature drift hit all of them alike.
func timeInterleaved(ctx *cu.Context, o Options, vs []*variant) error {
	for _, v := range vs {
		if err := bench.Warm(ctx, o.Warmup, o.Timeout, v.what, v.f); err != nil {
			return fmt.Errorf("mlp: warm up %s: %w", v.what, err)
		}
	}
	const rounds = 4
	per := (o.Reps + rounds - 1) / rounds
	for r := 0; r < rounds; r++ {
		for _, v := range vs {
			us, err := bench.TimeEach(ctx, per, o.Timeout, v.what, v.f)
			if err != nil {
				return fmt.Errorf("mlp: time %s: %w", v.what, err)
			}
			v.us = append(v.us, us...)
		}
	}
	return nil
}

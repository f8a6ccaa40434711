package check

import (
	"fmt"
	"time"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/num"
	"github.com/swigen/swigen/tiling"
)

// Reference names, as ShapeResult.Ref reports them.
const (
	refCPU = "cpu-float64"
	refGPU = "gpu-naive"
)

// naiveMACsPerSecond is a floor on the naive GPU references' throughput,
// far below what one thread per output reading global memory reaches on
// an H100/H200; it stretches the reference's timeout with its shape, so a
// slow but healthy reference is never reported as a hang.
const naiveMACsPerSecond = 1e10

// useGPURef reports whether a shape of macs multiply-adds is checked
// against the naive GPU reference: above the CPU reference's limit, or
// always with o.ForceGPURef.
func useGPURef(o Options, macs, limit int64) bool {
	return o.ForceGPURef || macs > limit
}

// needGPURef is nil when env holds the naive GPU reference, and otherwise
// the error of a shape (named by what) that needs it.
func needGPURef(env *Env, o Options, what string, macs, limit int64) error {
	if env.GPURef != nil {
		return nil
	}
	if o.ForceGPURef {
		return fmt.Errorf("check: %s: ForceGPURef is set, but the naive GPU reference is not loaded", what)
	}
	return fmt.Errorf("check: %s: %d multiply-adds exceed the CPU reference's %d and need the naive GPU reference, which is not loaded", what, macs, limit)
}

// refTimeout is how long the naive GPU reference may take on a shape of
// macs multiply-adds: o.Timeout plus its throughput floor's time.
func refTimeout(o Options, macs int64) time.Duration {
	return o.Timeout + time.Duration(float64(macs)/naiveMACsPerSecond*float64(time.Second))
}

// expect is one output's reference: float64 values from the CPU reference
// or raw 16-bit values from the naive GPU one.
type expect struct {
	f64 []float64
	raw []byte
}

// compare measures the kernel's raw output got against e.
func (e expect) compare(dt tiling.DType, got []byte) num.ErrStats {
	if e.raw != nil {
		return num.CompareRawBoth(dt, got, e.raw)
	}
	return num.CompareRaw(dt, got, e.f64)
}

// halves splits e, an [M,2I] output, into its [M,I] left and gate halves.
func (e expect) halves(M, I int) (left, gate expect) {
	if e.raw != nil {
		l, g := splitHalves(e.raw, M, I)
		return expect{raw: l}, expect{raw: g}
	}
	l, g := splitHalves64(e.f64, M, I)
	return expect{f64: l}, expect{f64: g}
}

// reference launches a naive GPU reference and waits for it at most
// timeout.
func (r *run) reference(timeout time.Duration, launch func() error) {
	if r.err != nil {
		return
	}
	if r.err = launch(); r.err == nil {
		r.err = r.env.Ctx.Synchronize(timeout, "naive GPU reference")
	}
}

// refOutput downloads n elements of a naive GPU reference's output at p,
// which was poisoned before the reference ran: an element it did not write
// is an error of the reference, not a mismatch of the kernel.
func (r *run) refOutput(name string, p cu.DevicePtr, n int) expect {
	raw := r.download(p, n)
	if r.err != nil {
		return expect{}
	}
	if k := num.CountPoisoned(r.dt, raw); k > 0 {
		r.err = fmt.Errorf("check: naive GPU reference left %d of %d elements of %s unwritten", k, n, name)
		return expect{}
	}
	return expect{raw: raw}
}

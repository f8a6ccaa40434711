package check

import (
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
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

// expect is one output's reference: unrounded float64 values, from the
// CPU reference or the naive GPU one alike.
type expect struct {
	f64 []float64
}

// compare measures the kernel's raw output got against e.
func (e expect) compare(dt tiling.DType, got []byte) num.ErrStats {
	return num.CompareRaw(dt, got, e.f64)
}

// halves splits e, an [M,2I] output, into its [M,I] left and gate halves.
func (e expect) halves(M, I int) (left, gate expect) {
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

// refBuffer allocates n float64 elements for a naive GPU reference's
// output, filled with num.PoisonF64, so an element the reference never
// writes is detected.
func (r *run) refBuffer(n int) cu.DevicePtr {
	if r.err != nil {
		return 0
	}
	p, err := r.b.Alloc(n * 8)
	if err == nil {
		err = r.env.Ctx.MemsetD16(p, num.PoisonF64Word, uint64(4*n))
	}
	r.err = err
	return p
}

// refOutput downloads n float64 elements of a naive GPU reference's output
// at p (from refBuffer): an element still poisoned was not written, an
// error of the reference, not a mismatch of the kernel.
func (r *run) refOutput(name string, p cu.DevicePtr, n int) expect {
	if r.err != nil {
		return expect{}
	}
	raw := make([]byte, n*8)
	if r.err = r.env.Ctx.MemcpyDtoH(raw, p); r.err != nil {
		return expect{}
	}
	if k := num.CountPoisonedF64(raw); k > 0 {
		r.err = fmt.Errorf("check: naive GPU reference left %d of %d elements of %s unwritten", k, n, name)
		return expect{}
	}
	return expect{f64: num.DecodeF64(raw)}
}

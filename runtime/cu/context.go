package cu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// ErrClosed is returned by calls on a closed Context.
var ErrClosed = errors.New("cu: context closed")

// Context is a device's primary context served by one goroutine locked to
// its OS thread. The driver's current context is per thread, and Go moves
// goroutines between threads, so every call that needs the context runs on
// that goroutine (see Do).
type Context struct {
	dev  Device
	h    uintptr // CUcontext
	tid  int     // OS thread id of the serving goroutine
	reqs chan request
	done chan struct{} // closed when the serving goroutine has exited

	mu      sync.Mutex
	closed  bool
	hung    *TimeoutError // set once a synchronize timed out
	streams map[*Stream]struct{}
}

type request struct {
	f     func() error
	reply chan error
	stop  bool // release the context and exit after f
}

// NewContext retains d's primary context and starts the goroutine that
// serves it.
func NewContext(d Device) (*Context, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	c := &Context{dev: d, reqs: make(chan request), done: make(chan struct{}), streams: map[*Stream]struct{}{}}
	started := make(chan error, 1)
	go c.serve(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Context) serve(started chan<- error) {
	// The thread stays locked until the goroutine exits; the runtime then
	// discards it, together with its current-context binding.
	runtime.LockOSThread()
	defer close(c.done)
	c.tid = threadID()
	var h uintptr
	if err := invoke(&cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&h)), uintptr(c.dev)); err != nil {
		started <- fmt.Errorf("cu: new context on device %d: %w", c.dev, err)
		return
	}
	if err := invoke(&cuCtxSetCurrent, h); err != nil {
		invoke(&cuDevicePrimaryCtxRelease, uintptr(c.dev))
		started <- fmt.Errorf("cu: new context on device %d: %w", c.dev, err)
		return
	}
	c.h = h
	started <- nil
	for req := range c.reqs {
		req.reply <- runSafely(req.f)
		if req.stop {
			return
		}
	}
}

// runSafely converts a panic in f into an error so the serving goroutine
// survives it.
func runSafely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cu: panic on context thread: %v", r)
		}
	}()
	return f()
}

// Device returns the context's device.
func (c *Context) Device() Device { return c.dev }

// Handle returns the raw CUcontext.
func (c *Context) Handle() uintptr { return c.h }

func (c *Context) usable() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.hung != nil {
		return fmt.Errorf("cu: context unusable: %w", c.hung)
	}
	return nil
}

// Do runs f on the context's locked thread, where the context is current,
// and returns its error. Calls from f itself (nested Do or any Context method)
// run inline. After a synchronize has timed out, Do refuses to run anything
// and returns an error wrapping the *TimeoutError.
func (c *Context) Do(f func() error) error {
	if err := c.usable(); err != nil {
		return err
	}
	if threadID() == c.tid && c.tid > 0 {
		return f()
	}
	return c.send(request{f: f, reply: make(chan error, 1)})
}

func (c *Context) send(req request) error {
	select {
	case c.reqs <- req:
		return <-req.reply
	case <-c.done:
		return ErrClosed
	}
}

// Close releases the primary context and stops the serving goroutine. It is
// idempotent. After a synchronize timeout it only stops the goroutine: the
// release would block on the hung kernel.
func (c *Context) Close() error {
	if threadID() == c.tid && c.tid > 0 {
		return errors.New("cu: context Close called from the context's own thread (inside Do)")
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	hung := c.hung != nil
	c.mu.Unlock()
	return c.send(request{stop: true, reply: make(chan error, 1), f: func() error {
		if hung {
			return nil
		}
		return invoke(&cuDevicePrimaryCtxRelease, uintptr(c.dev))
	}})
}

// DevicePtr is a device memory address (CUdeviceptr).
type DevicePtr uint64

// MemAlloc allocates bytes of device memory.
func (c *Context) MemAlloc(bytes uint64) (DevicePtr, error) {
	var p DevicePtr
	err := c.Do(func() error {
		return invoke(&cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
	})
	if err != nil {
		return 0, fmt.Errorf("cu: alloc %d bytes: %w", bytes, err)
	}
	return p, nil
}

// MemFree frees device memory from MemAlloc.
func (c *Context) MemFree(p DevicePtr) error {
	return c.Do(func() error { return invoke(&cuMemFree, uintptr(p)) })
}

// MemcpyHtoD copies src to device memory at dst (synchronous).
func (c *Context) MemcpyHtoD(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return c.Do(func() error {
		err := invoke(&cuMemcpyHtoD, uintptr(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)))
		runtime.KeepAlive(src)
		return err
	})
}

// MemcpyDtoH copies len(dst) bytes from device memory at src (synchronous).
func (c *Context) MemcpyDtoH(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return c.Do(func() error {
		err := invoke(&cuMemcpyDtoH, uintptr(unsafe.Pointer(&dst[0])), uintptr(src), uintptr(len(dst)))
		runtime.KeepAlive(dst)
		return err
	})
}

// MemcpyDtoD copies bytes between device buffers.
func (c *Context) MemcpyDtoD(dst, src DevicePtr, bytes uint64) error {
	return c.Do(func() error { return invoke(&cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes)) })
}

// MemsetD8 sets n bytes at p to v.
func (c *Context) MemsetD8(p DevicePtr, v byte, n uint64) error {
	return c.Do(func() error { return invoke(&cuMemsetD8, uintptr(p), uintptr(v), uintptr(n)) })
}

// MemsetD16 sets n 16-bit words at p to v; p must be 2-byte aligned.
func (c *Context) MemsetD16(p DevicePtr, v uint16, n uint64) error {
	return c.Do(func() error { return invoke(&cuMemsetD16, uintptr(p), uintptr(v), uintptr(n)) })
}

// TimeoutError reports a kernel (or other GPU work) that did not finish in
// time. A running kernel cannot be killed, so the context stays unusable and
// the process must exit to free the GPU.
type TimeoutError struct {
	What  string        // what was being waited for, e.g. a kernel name
	After time.Duration // the timeout that expired
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("cu: %s did not finish within %v; the CUDA context is now unusable "+
		"(a hung kernel cannot be killed; the process must exit)", e.What, e.After)
}

// Synchronize waits until all work in the default stream and in every live
// stream of c is done, polling cuStreamQuery. If timeout > 0 and it expires,
// it returns a *TimeoutError naming what and marks c unusable. timeout <= 0
// waits forever.
func (c *Context) Synchronize(timeout time.Duration, what string) error {
	return c.Do(func() error {
		c.mu.Lock()
		hs := []uintptr{0}
		for s := range c.streams {
			hs = append(hs, s.h)
		}
		c.mu.Unlock()
		return c.poll(timeout, what, func() (bool, error) {
			for _, h := range hs {
				r := invokeRaw(&cuStreamQuery, h)
				if r == ErrorNotReady {
					return false, nil
				}
				if err := check(cuStreamQuery.bound, r); err != nil {
					return false, fmt.Errorf("cu: synchronize %s: %w", what, err)
				}
			}
			return true, nil
		})
	})
}

// StreamSynchronize waits for the work in s (nil: the default stream), as
// Synchronize does for all streams.
func (c *Context) StreamSynchronize(s *Stream, timeout time.Duration, what string) error {
	return c.Do(func() error {
		return c.poll(timeout, what, func() (bool, error) {
			r := invokeRaw(&cuStreamQuery, s.handle())
			if r == ErrorNotReady {
				return false, nil
			}
			if err := check(cuStreamQuery.bound, r); err != nil {
				return false, fmt.Errorf("cu: synchronize %s: %w", what, err)
			}
			return true, nil
		})
	})
}

// poll calls done until it reports true, fails, or the deadline passes. It
// spins briefly (short kernels finish in microseconds) and then backs off
// to sleeps of up to a millisecond.
func (c *Context) poll(timeout time.Duration, what string, done func() (bool, error)) error {
	start := time.Now()
	sleep := time.Duration(0)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if timeout > 0 && time.Since(start) >= timeout {
			te := &TimeoutError{What: what, After: timeout}
			c.mu.Lock()
			c.hung = te
			c.mu.Unlock()
			return te
		}
		switch {
		case sleep == 0 && time.Since(start) < 200*time.Microsecond:
			runtime.Gosched()
			continue
		case sleep == 0:
			sleep = 20 * time.Microsecond
		case sleep < time.Millisecond:
			sleep *= 2
		}
		time.Sleep(sleep)
	}
}

// Buffers tracks device allocations so that one deferred Free releases them
// all (verification, benchmarks and tests allocate many short-lived
// buffers).
type Buffers struct {
	ctx  *Context
	ptrs []DevicePtr
}

// NewBuffers returns an empty allocation set on c.
func (c *Context) NewBuffers() *Buffers { return &Buffers{ctx: c} }

// Alloc allocates bytes on the device and remembers the pointer.
func (b *Buffers) Alloc(bytes int) (DevicePtr, error) {
	if bytes < 0 {
		return 0, fmt.Errorf("cu: alloc %d bytes: size must be >= 0", bytes)
	}
	p, err := b.ctx.MemAlloc(uint64(bytes))
	if err == nil {
		b.ptrs = append(b.ptrs, p)
	}
	return p, err
}

// Free frees every allocation made through b; errors are ignored because a
// failed free leaves nothing to retry.
func (b *Buffers) Free() {
	for _, p := range b.ptrs {
		_ = b.ctx.MemFree(p)
	}
	b.ptrs = nil
}

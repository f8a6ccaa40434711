package cu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// Stream is a CUstream. A nil *Stream means the default (legacy NULL) stream.
type Stream struct {
	ctx *Context
	h   uintptr
}

func (s *Stream) handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
}

// Handle returns the raw CUstream (0 for a nil *Stream).
func (s *Stream) Handle() uintptr { return s.handle() }

// NewStream creates a stream (CU_STREAM_DEFAULT: it synchronizes with the
// default stream).
func (c *Context) NewStream() (*Stream, error) {
	s := &Stream{ctx: c}
	err := c.Do(func() error { return invoke(&cuStreamCreate, uintptr(unsafe.Pointer(&s.h)), 0) })
	if err != nil {
		return nil, fmt.Errorf("cu: new stream: %w", err)
	}
	c.mu.Lock()
	c.streams[s] = struct{}{}
	c.mu.Unlock()
	return s, nil
}

// Destroy destroys s. Destroying a nil (default) stream is a no-op.
func (s *Stream) Destroy() error {
	if s == nil || s.h == 0 {
		return nil
	}
	s.ctx.mu.Lock()
	delete(s.ctx.streams, s)
	s.ctx.mu.Unlock()
	err := s.ctx.Do(func() error { return invoke(&cuStreamDestroy, s.h) })
	s.h = 0
	return err
}

// Synchronize waits for the work in s with a timeout; see
// Context.StreamSynchronize. A nil *Stream has no context: use
// Context.StreamSynchronize(nil, ...) for the default stream.
func (s *Stream) Synchronize(timeout time.Duration, what string) error {
	if s == nil {
		return errors.New("cu: Synchronize on the nil (default) stream: use Context.StreamSynchronize(nil, ...)")
	}
	return s.ctx.StreamSynchronize(s, timeout, what)
}

// Event is a CUevent created with timing enabled.
type Event struct {
	ctx *Context
	h   uintptr
}

// NewEvent creates an event (CU_EVENT_DEFAULT, so it records timestamps).
func (c *Context) NewEvent() (*Event, error) {
	e := &Event{ctx: c}
	if err := c.Do(func() error { return invoke(&cuEventCreate, uintptr(unsafe.Pointer(&e.h)), 0) }); err != nil {
		return nil, fmt.Errorf("cu: new event: %w", err)
	}
	return e, nil
}

// Record records e in stream s (nil: the default stream).
func (e *Event) Record(s *Stream) error {
	return e.ctx.Do(func() error { return invoke(&cuEventRecord, e.h, s.handle()) })
}

// Synchronize waits until e has completed, polling cuEventQuery; on timeout
// it returns a *TimeoutError and marks the context unusable.
func (e *Event) Synchronize(timeout time.Duration, what string) error {
	return e.ctx.Do(func() error {
		return e.ctx.poll(timeout, what, func() (bool, error) {
			r := invokeRaw(&cuEventQuery, e.h)
			if r == ErrorNotReady {
				return false, nil
			}
			return r == Success, check(cuEventQuery.bound, r)
		})
	})
}

// Elapsed returns the time in milliseconds between two recorded, completed
// events (synchronize on end first).
func Elapsed(start, end *Event) (ms float32, err error) {
	if start == nil || end == nil {
		return 0, errors.New("cu: elapsed: nil event")
	}
	err = end.ctx.Do(func() error {
		return invoke(&cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, end.h)
	})
	return ms, err
}

// Destroy destroys e.
func (e *Event) Destroy() error {
	if e == nil || e.h == 0 {
		return nil
	}
	err := e.ctx.Do(func() error { return invoke(&cuEventDestroy, e.h) })
	e.h = 0
	return err
}

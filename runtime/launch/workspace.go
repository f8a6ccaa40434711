package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// wsKey names a workspace: the stream its launches run on and its size.
type wsKey struct {
	stream *cu.Stream
	bytes  int64
}

// workspace returns the kernel's workspace of w's size on stream: allocated
// (and its first ZeroBytes zeroed) the first time a plan on that stream
// needs that size, then the same memory for every such plan until Close
// frees it. Plans keep their pointer, so a workspace once allocated is
// never freed before Close. The kernel leaves the zeroed bytes zero, so
// launches that run one after the other (one stream) share it; launches
// on two streams may overlap, so each stream gets its own.
func (k *Kernel) workspace(w *manifest.WorkspaceSize, stream *cu.Stream) (cu.DevicePtr, error) {
	key := wsKey{stream: stream, bytes: w.Bytes}
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.ws[key]; ok {
		return p, nil
	}
	alloc := k.alloc
	if alloc == nil {
		alloc = k.allocZeroed
	}
	p, err := alloc(w)
	if err != nil {
		return 0, fmt.Errorf("launch: %s: workspace of %d bytes: %w", k.Man.Name, w.Bytes, err)
	}
	if uint64(p)%uint64(max(1, w.Align)) != 0 {
		return 0, fmt.Errorf("launch: %s: workspace at %#x: not %d-byte aligned", k.Man.Name, uint64(p), w.Align)
	}
	if k.ws == nil {
		k.ws = map[wsKey]cu.DevicePtr{}
	}
	k.ws[key] = p
	return p, nil
}

// allocZeroed allocates w on the device (cuMemAlloc aligns to at least
// 256 bytes) and zeroes its first ZeroBytes.
func (k *Kernel) allocZeroed(w *manifest.WorkspaceSize) (cu.DevicePtr, error) {
	p, err := k.ctx.MemAlloc(uint64(w.Bytes))
	if err != nil {
		return 0, err
	}
	if w.ZeroBytes > 0 {
		if err := k.ctx.MemsetD8(p, 0, uint64(w.ZeroBytes)); err != nil {
			k.ctx.MemFree(p)
			return 0, err
		}
	}
	return p, nil
}

// freeWorkspaces frees every workspace of k (Close).
func (k *Kernel) freeWorkspaces() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	var first error
	for n, p := range k.ws {
		if k.alloc == nil {
			if err := k.ctx.MemFree(p); err != nil && first == nil {
				first = fmt.Errorf("launch: %s: free workspace: %w", k.Man.Name, err)
			}
		}
		delete(k.ws, n)
	}
	return first
}

// pointerArgs sets the address of every pointer argument of l: a caller's
// buffer from bufs, a workspace of k's for stream.
func (k *Kernel) pointerArgs(l *manifest.Launch, bufs map[string]cu.DevicePtr, stream *cu.Stream) error {
	for i := range l.Args {
		a := &l.Args[i]
		switch a.Kind {
		case manifest.KindPtr:
			p := bufs[a.Buffer]
			if p == 0 {
				return fmt.Errorf("buffer %s is 0, but parameter %s points to it", a.Buffer, a.Param)
			}
			a.Ptr = uint64(p)
		case manifest.KindWorkspace:
			p, err := k.workspace(a.Workspace, stream)
			if err != nil {
				return err
			}
			a.Ptr = uint64(p)
		}
	}
	return nil
}

package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// workspace returns the kernel's workspace of w's size: allocated (and its
// first ZeroBytes zeroed) the first time a plan needs that size, then the
// same memory for every plan of that size until Close frees it. Plans keep
// their pointer, so a size once allocated is never freed before Close.
// The kernel leaves the zeroed bytes zero, so launches that run one after
// the other (one stream) share it; launches of one Kernel on streams that
// may overlap would race on it.
func (k *Kernel) workspace(w *manifest.WorkspaceSize) (cu.DevicePtr, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.ws[w.Bytes]; ok {
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
		k.ws = map[int64]cu.DevicePtr{}
	}
	k.ws[w.Bytes] = p
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
// buffer from bufs, a workspace from k.
func (k *Kernel) pointerArgs(l *manifest.Launch, bufs map[string]cu.DevicePtr) error {
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
			p, err := k.workspace(a.Workspace)
			if err != nil {
				return err
			}
			a.Ptr = uint64(p)
		}
	}
	return nil
}

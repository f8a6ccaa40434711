package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// workspace returns the kernel's workspace of w's size on stream (a
// scratch buffer: one per stream and size, its first ZeroBytes zeroed when
// allocated and kept by the kernel from then on, so launches on one stream
// share it).
func (k *Kernel) workspace(w *manifest.WorkspaceSize, stream *cu.Stream) (cu.DevicePtr, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ws.get(scratchKey{stream: stream, bytes: w.Bytes}, func() (cu.DevicePtr, error) {
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
		return p, nil
	})
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
	var release func(cu.DevicePtr) error
	if k.alloc == nil {
		release = func(p cu.DevicePtr) error {
			if err := k.ctx.MemFree(p); err != nil {
				return fmt.Errorf("launch: %s: free workspace: %w", k.Man.Name, err)
			}
			return nil
		}
	}
	return k.ws.free(release)
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

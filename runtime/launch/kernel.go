// Package launch is the host side of swigen kernels: it loads a cubin with
// its manifest and launches it as the manifest says (tensor maps encoded
// with TMA's rules checked on the host, parameters in kernel order, the
// persistent grid sized for the device). It reads nothing but the
// manifest: verify, bench, tune and the generated Go bindings all go
// through it.
package launch

import (
	"fmt"
	"sync"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// Kernel is a loaded swigen kernel: its module, function and manifest.
type Kernel struct {
	ctx    *cu.Context
	mod    *cu.Module
	fn     *cu.Function
	Man    manifest.Manifest
	numSMs int
	// clusters is the co-resident cluster count, once queried; mu guards
	// it, as plans may be made from several goroutines.
	mu       sync.Mutex
	clusters int
	// encode, when set, replaces the driver's tensor-map encoder: tests
	// record the encode arguments through it without a GPU.
	encode func(cu.TensorMapParams, string) (*cu.TensorMap, error)
	// ws are the workspaces by stream and size (guarded by mu); alloc,
	// when set, replaces the device allocation (tests, without a GPU).
	ws    scratch
	alloc func(*manifest.WorkspaceSize) (cu.DevicePtr, error)
}

// Load loads a cubin built from the manifest's source and prepares the
// function for launch (dynamic shared memory attribute). An sm_100a kernel
// of which more CTAs could share an SM than TMEM holds allocations for is
// refused with an error wrapping ErrTMEMCoResidency.
func Load(ctx *cu.Context, dev cu.Device, cubin []byte, man manifest.Manifest) (*Kernel, error) {
	if err := man.Validate(); err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	sms, err := dev.Attribute(cu.AttrMultiprocessorCount)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: SM count: %w", man.Name, err)
	}
	mod, err := ctx.LoadModule(cubin)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: load module: %w", man.Name, err)
	}
	fn, err := mod.Function(man.Entry)
	if err != nil {
		mod.Unload()
		return nil, fmt.Errorf("launch: %s: %w", man.Name, err)
	}
	if err := fn.SetMaxDynamicSharedMemory(man.DynamicSmemBytes); err != nil {
		mod.Unload()
		return nil, fmt.Errorf("launch: %s: dynamic smem %d bytes: %w", man.Name, man.DynamicSmemBytes, err)
	}
	if err := checkTMEMOccupancy(fn, man); err != nil {
		mod.Unload()
		return nil, err
	}
	return &Kernel{ctx: ctx, mod: mod, fn: fn, Man: man, numSMs: sms}, nil
}

// maxClusters is the number of co-resident clusters of this kernel
// (cached: it depends only on the function and its launch shape).
func (k *Kernel) maxClusters() (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.clusters > 0 {
		return k.clusters, nil
	}
	m := k.Man
	n, err := k.ctx.MaxActiveClusters(k.fn, cu.LaunchConfig{
		Block:     [3]uint32{uint32(m.BlockThreads), 1, 1},
		SharedMem: uint32(m.DynamicSmemBytes),
		Cluster:   [3]uint32{uint32(m.ClusterDims[0]), uint32(m.ClusterDims[1]), 1},
	})
	if err != nil {
		return 0, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	if n < 1 {
		return 0, fmt.Errorf("launch: %s: no cluster of %v CTAs with %d bytes of shared memory fits on this GPU", m.Name, m.ClusterDims, m.DynamicSmemBytes)
	}
	k.clusters = n
	return n, nil
}

// encodeTiled encodes one tensor map of k's launches through the driver,
// or through k.encode where a test recorder is installed.
func (k *Kernel) encodeTiled(p cu.TensorMapParams, name string) (*cu.TensorMap, error) {
	if k.encode != nil {
		return k.encode(p, name)
	}
	return k.ctx.EncodeTiled(p, name)
}

// Close frees the kernel's workspaces and unloads the module.
func (k *Kernel) Close() error {
	werr := k.freeWorkspaces()
	if err := k.mod.Unload(); err != nil {
		return err
	}
	return werr
}

// NumSMs is the multiprocessor count the persistent grid is sized from.
func (k *Kernel) NumSMs() int { return k.numSMs }

// LimitSMs sizes the grids of k's later plans for n of the device's
// multiprocessors (1 <= n <= NumSMs), as on a MIG slice of n SMs: a GPU
// test runs a stream-K grid (one CTA per SM) the whole device does not
// give, such as 16, 64 or 128. Plans made before keep their grids; call it
// before planning, not while another goroutine plans.
func (k *Kernel) LimitSMs(n int) error {
	if n < 1 || n > k.numSMs {
		return fmt.Errorf("launch: %s: limit to %d SMs: want 1 to %d (the device's)", k.Man.Name, n, k.numSMs)
	}
	k.numSMs = n
	return nil
}

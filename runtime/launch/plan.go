package launch

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// Plan is a launch with its tensor maps encoded and its parameters packed,
// ready to be launched many times (benchmarks launch one plan repeatedly).
type Plan struct {
	k      *Kernel
	params []byte           // the parameters packed (manifest.Pack)
	args   []unsafe.Pointer // one per kernel parameter, into params
	cfg    cu.LaunchConfig
	stream *cu.Stream
	ws     cu.DevicePtr           // the kernel's workspace it passes (0: none)
	wsSize manifest.WorkspaceSize // its size at this launch
}

// Plan resolves k's manifest for a: it checks the sizes against the shape
// rules, encodes every tensor map on its buffer, passes k's own workspace
// where the kernel has one (allocated on the first plan that needs its
// size), packs the parameters in kernel order and sizes the grid for the
// device.
func (k *Kernel) Plan(a Args) (*Plan, error) {
	kind, c := a.call()
	m := &k.Man
	if kind != "" && kind != m.Kernel {
		return nil, fmt.Errorf("launch: %s: %T are for a %s kernel, not a %s one", m.Name, a, kind, m.Kernel)
	}
	if err := m.CheckSizes(c.Sizes); err != nil {
		return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	dev := manifest.Device{SMs: k.numSMs}
	if m.CapsByClusters() {
		// Not every SM pair can host a cluster: a persistent grid with more
		// clusters than fit at once would run a second wave.
		n, err := k.maxClusters()
		if err != nil {
			return nil, err
		}
		dev.Clusters = n
	}
	l, err := m.Resolve(c.Sizes, dev)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	if err := k.pointerArgs(&l, c.Buffers, c.Stream); err != nil {
		return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	tps, err := EncodeParams(l, c.Buffers)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	descs := make([][]byte, len(tps))
	for i, tp := range tps {
		if tp == nil {
			continue
		}
		t, err := k.encodeTiled(*tp, l.Args[i].Map.Buffer)
		if err != nil {
			return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
		}
		descs[i] = t.Bytes()
	}
	packed, err := manifest.Pack(m.Params, l.Args, descs)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	p := &Plan{k: k, stream: c.Stream, params: packed.Bytes}
	for _, a := range l.Args {
		if a.Kind == manifest.KindWorkspace {
			p.ws, p.wsSize = cu.DevicePtr(a.Ptr), *a.Workspace
		}
	}
	for _, off := range packed.Offsets {
		p.args = append(p.args, unsafe.Pointer(&p.params[off]))
	}
	p.cfg = launchConfig(l, c.Stream)
	return p, nil
}

// EncodeParams is the cuTensorMapEncodeTiled call of each of l's tensor
// maps on its buffer in bufs (nil for an i32 argument), computed without a
// device: what Plan encodes, and what a loader in another language must
// pass the driver. A map of a buffer that bufs lacks (or gives as 0) is an
// error naming both.
func EncodeParams(l manifest.Launch, bufs map[string]cu.DevicePtr) ([]*cu.TensorMapParams, error) {
	out := make([]*cu.TensorMapParams, len(l.Args))
	for i, a := range l.Args {
		switch a.Kind {
		case manifest.KindTensorMap:
			ptr := bufs[a.Map.Buffer]
			if ptr == 0 {
				return nil, fmt.Errorf("buffer %s is 0, but parameter %s maps it", a.Map.Buffer, a.Param)
			}
			tp, err := tensorMapParams(a.Map, ptr)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: %w", a.Param, err)
			}
			out[i] = &tp
		case manifest.KindI32, manifest.KindI64, manifest.KindPtr, manifest.KindWorkspace:
		default:
			return nil, fmt.Errorf("parameter %s: kind %q", a.Param, a.Kind)
		}
	}
	return out, nil
}

// launchConfig is l's grid, block, cluster and shared memory on stream.
func launchConfig(l manifest.Launch, stream *cu.Stream) cu.LaunchConfig {
	u32 := func(d [3]int) [3]uint32 { return [3]uint32{uint32(d[0]), uint32(d[1]), uint32(d[2])} }
	return cu.LaunchConfig{Grid: u32(l.Grid), Block: u32(l.Block), Cluster: u32(l.Cluster),
		SharedMem: uint32(l.SmemBytes), Stream: stream}
}

// Grid is the number of persistent CTAs the plan launches.
func (p *Plan) Grid() int { return int(p.cfg.Grid[0]) }

// Workspace is the kernel's workspace the plan passes and its size (zero
// values when the kernel has none): what a check poisons between launches
// (the bytes past ZeroBytes, scratch the kernel writes before it reads) or
// inspects (stream-K's flags and epoch header, tiling.StreamKWorkspace).
func (p *Plan) Workspace() (cu.DevicePtr, manifest.WorkspaceSize) { return p.ws, p.wsSize }

// Launch enqueues the kernel on the plan's stream.
func (p *Plan) Launch() error {
	if err := p.k.ctx.Launch(p.k.fn, p.cfg, p.args...); err != nil {
		return fmt.Errorf("launch: %s: %w", p.k.Man.Name, err)
	}
	return nil
}

// Sync waits for the stream with a deadline, naming the kernel on timeout.
func (p *Plan) Sync(timeout time.Duration) error {
	return p.k.ctx.Synchronize(timeout, p.k.Man.Name)
}

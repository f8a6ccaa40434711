// Package launch is the host side of swigen kernels: it builds the tensor
// maps a kernel expects (with TMA's rules checked on the host), sizes the
// persistent grid and launches. verify, bench, tune and the generated Go
// bindings all go through it.
package launch

import (
	"encoding/binary"
	"fmt"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// Kernel is a loaded swigen kernel: its module, function and manifest.
type Kernel struct {
	ctx      *cu.Context
	mod      *cu.Module
	fn       *cu.Function
	Man      gen.Manifest
	numSMs   int
	clusters int // co-resident clusters, once queried
	// encode, when set, replaces the driver's tensor-map encoder: tests
	// record the encode arguments through it without a GPU.
	encode func(cu.TensorMapParams, string) (*cu.TensorMap, error)
}

// Load loads a cubin built from the manifest's source and prepares the
// function for launch (dynamic shared memory attribute).
func Load(ctx *cu.Context, dev cu.Device, cubin []byte, man gen.Manifest) (*Kernel, error) {
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
	return &Kernel{ctx: ctx, mod: mod, fn: fn, Man: man, numSMs: sms}, nil
}

// maxClusters is the number of co-resident clusters of this kernel
// (cached: it depends only on the function and its launch shape).
func (k *Kernel) maxClusters() (int, error) {
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

// Close unloads the module.
func (k *Kernel) Close() error { return k.mod.Unload() }

// NumSMs is the multiprocessor count the persistent grid is sized from.
func (k *Kernel) NumSMs() int { return k.numSMs }

// BwdArgs are the device buffers and sizes of one bwd_dswiglu call. All
// tensors are row-major; WDown is [I,K] (major_b=k) or [K,I] (major_b=mn);
// Out is used only by configs with StoreOut.
type BwdArgs struct {
	M, K, I                    int
	Dy, WDown, De, GradDe, Out cu.DevicePtr
	Stream                     *cu.Stream
}

// BwdPlan is a bwd_dswiglu launch with its tensor maps encoded, ready to be
// launched many times (benchmarks launch the same plan repeatedly). Its
// scalar arguments are M, I, K in the kernel's order.
type BwdPlan struct{ plan }

func tmapDType(d tiling.DType) cu.TensorDType {
	if d == tiling.FP16 {
		return cu.TensorFloat16
	}
	return cu.TensorBfloat16
}

// CheckBwdShape checks the sizes against the rules TMA imposes (16-byte row
// pitches) and the kernel's own.
func CheckBwdShape(cfg tiling.Config, M, K, I int) error {
	var errs []string
	if M < 1 {
		errs = append(errs, fmt.Sprintf("M=%d: must be >= 1", M))
	}
	if K < 8 || K%8 != 0 {
		errs = append(errs, fmt.Sprintf("K=%d: must be a positive multiple of 8 (dy and W_down rows must be 16-byte multiples for TMA)", K))
	}
	if I < 8 || I%8 != 0 {
		errs = append(errs, fmt.Sprintf("I=%d: must be a positive multiple of 8 (the gate half of de starts I elements into each row; TMA needs 16-byte strides)", I))
	}
	if len(errs) > 0 {
		return fmt.Errorf("launch: %s: bad shape: %s", cfg.Name(), joinLines(errs))
	}
	return nil
}

func joinLines(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// PlanBwd encodes the tensor maps of a bwd_dswiglu call.
func (k *Kernel) PlanBwd(a BwdArgs) (*BwdPlan, error) {
	cfg := k.Man.Config
	if cfg.Kernel != tiling.KernelBwdDSwiGLU {
		return nil, fmt.Errorf("launch: %s: PlanBwd on a %s kernel", k.Man.Name, cfg.Kernel)
	}
	if err := CheckBwdShape(cfg, a.M, a.K, a.I); err != nil {
		return nil, err
	}
	boxes, err := gen.TMABoxes(cfg)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	u32 := func(b [3]int) [5]uint32 { return [5]uint32{uint32(b[0]), uint32(b[1]), uint32(b[2])} }
	dt := tmapDType(cfg.DType)
	const eb = 2
	M, K, I := uint64(a.M), uint64(a.K), uint64(a.I)
	enc := func(name string, p cu.TensorMapParams) (*cu.TensorMap, error) {
		p.DType = dt
		p.Swizzle = cu.Swizzle128B
		p.L2Promotion = cu.L2Promotion256B
		for i := 0; i < p.Rank; i++ {
			p.ElemStrides[i] = 1
		}
		return k.encodeTiled(p, name)
	}
	var maps []*cu.TensorMap
	add := func(name string, p cu.TensorMapParams) error {
		m, err := enc(name, p)
		if err != nil {
			return fmt.Errorf("launch: %s: %w", k.Man.Name, err)
		}
		maps = append(maps, m)
		return nil
	}
	// dy [M,K]
	if err := add("dy", cu.TensorMapParams{Rank: 2, Global: a.Dy, Dims: [5]uint64{K, M}, Strides: [4]uint64{K * eb},
		Box: u32(boxes.A)}); err != nil {
		return nil, err
	}
	if cfg.MajorB == tiling.MNMajor { // W_down [K,I]
		if err := add("W_down", cu.TensorMapParams{Rank: 2, Global: a.WDown, Dims: [5]uint64{I, K}, Strides: [4]uint64{I * eb},
			Box: u32(boxes.B)}); err != nil {
			return nil, err
		}
	} else if cfg.Debug == tiling.DebugPermStore { // W_down [I,K], rows permuted within 32-row blocks
		// Dims {K, e 2, t 4, b 4, a I/32} with row strides {1, 8, 2, 32}:
		// the box puts row 32a + 8t + 2b + e at shared row e + 2t + 8b + 32a
		// (sw_load_b_kperm). A partial 32-row block cannot be expressed.
		if a.I%32 != 0 {
			return nil, fmt.Errorf("launch: %s: I=%d: debug pstg permutes W_down in 32-row blocks and needs I %% 32 == 0", k.Man.Name, a.I)
		}
		if err := add("W_down", cu.TensorMapParams{Rank: 5, Global: a.WDown, Dims: [5]uint64{K, 2, 4, 4, I / 32},
			Strides: [4]uint64{K * eb, 8 * K * eb, 2 * K * eb, 32 * K * eb},
			Box:     [5]uint32{uint32(boxes.B[0]), 2, 4, 4, uint32(cfg.TileN / 32)}}); err != nil {
			return nil, err
		}
	} else { // W_down [I,K]
		if err := add("W_down", cu.TensorMapParams{Rank: 2, Global: a.WDown, Dims: [5]uint64{K, I}, Strides: [4]uint64{K * eb},
			Box: u32(boxes.B)}); err != nil {
			return nil, err
		}
	}
	// de and grad_de as [M][2][I]: a 3-D view keeps the left and gate halves
	// apart, so a ragged I clips at the half boundary instead of spilling
	// into the other half.
	half := func(name string, p cu.DevicePtr) error {
		return add(name, cu.TensorMapParams{Rank: 3, Global: p, Dims: [5]uint64{I, 2, M}, Strides: [4]uint64{I * eb, 2 * I * eb},
			Box: u32(boxes.De)})
	}
	if err := half("de", a.De); err != nil {
		return nil, err
	}
	if err := half("grad_de", a.GradDe); err != nil {
		return nil, err
	}
	if cfg.StoreOut {
		if err := add("out", cu.TensorMapParams{Rank: 2, Global: a.Out, Dims: [5]uint64{I, M}, Strides: [4]uint64{I * eb},
			Box: u32(boxes.Out)}); err != nil {
			return nil, err
		}
	}
	grid, err := k.persistentGrid(cfg, a.M, a.I)
	if err != nil {
		return nil, err
	}
	pl := &BwdPlan{plan{k: k, maps: maps, dims: [3]int32{int32(a.M), int32(a.I), int32(a.K)}, grid: uint32(grid), stream: a.Stream}}
	if cfg.Debug == tiling.DebugDirectStore || cfg.Debug == tiling.DebugPermStore {
		// The variants store grad_de through a raw pointer with 32-bit
		// element offsets.
		if uint64(a.M)*2*uint64(a.I) >= 1<<32 {
			return nil, fmt.Errorf("launch: %s: M*2I = %d elements: debug stg indexes grad_de with 32 bits", k.Man.Name, uint64(a.M)*2*uint64(a.I))
		}
		pl.ptrs = []cu.DevicePtr{a.GradDe}
	}
	if cfg.Schedule == tiling.Handoff {
		// The handoff epilogue warpgroup reads de and writes grad_de with
		// 16-byte global accesses (64-bit offsets).
		pl.ptrs = []cu.DevicePtr{a.De, a.GradDe}
	}
	return pl, nil
}

// traceBuffer is the trace variant's record buffer (gen.TraceSymbol).
func (k *Kernel) traceBuffer() (cu.DevicePtr, uint64, error) {
	p, n, err := k.mod.Global(gen.TraceSymbol)
	if err != nil {
		return 0, 0, fmt.Errorf("launch: %s: trace buffer (only the trace variant has one): %w", k.Man.Name, err)
	}
	return p, n, nil
}

// ClearTrace zeroes the trace variant's record buffer, so that a Trace
// after the next launches holds only their records.
func (k *Kernel) ClearTrace() error {
	p, n, err := k.traceBuffer()
	if err != nil {
		return err
	}
	return k.ctx.MemsetD8(p, 0, n)
}

// Trace reads the trace variant's record buffer back: gen.TraceCtas CTAs x
// 2 consumers x gen.TraceTiles tiles of 10 words (bench.ParseTrace).
// Synchronize first: the buffer is read as the last launch left it.
func (k *Kernel) Trace() ([]uint64, error) {
	p, n, err := k.traceBuffer()
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if err := k.ctx.MemcpyDtoH(b, p); err != nil {
		return nil, fmt.Errorf("launch: %s: read trace: %w", k.Man.Name, err)
	}
	w := make([]uint64, n/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w, nil
}

package launch

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// plan is a launch of a gemm, fwd_gateup or fwd_down kernel with
// its tensor maps encoded: the maps in the kernel's parameter order, then
// the three i32 sizes (M, N or I, K as the kernel names them).
type plan struct {
	k      *Kernel
	maps   []*cu.TensorMap
	dims   [3]int32
	ptrs   []cu.DevicePtr // raw pointers after the sizes (the bwd debug variant stg)
	grid   uint32
	stream *cu.Stream
}

// Grid is the number of persistent CTAs the plan launches.
func (p *plan) Grid() int { return int(p.grid) }

// Launch enqueues the kernel on the plan's stream.
func (p *plan) Launch() error {
	if err := p.k.ctx.Launch(p.k.fn, p.launchConfig(), p.args()...); err != nil {
		return fmt.Errorf("launch: %s: %w", p.k.Man.Name, err)
	}
	return nil
}

// args are the kernel's parameters in order, one pointer per parameter.
func (p *plan) args() []unsafe.Pointer {
	params := make([]unsafe.Pointer, 0, len(p.maps)+3)
	for _, m := range p.maps {
		params = append(params, m.Ptr())
	}
	params = append(params, unsafe.Pointer(&p.dims[0]), unsafe.Pointer(&p.dims[1]), unsafe.Pointer(&p.dims[2]))
	for i := range p.ptrs {
		params = append(params, unsafe.Pointer(&p.ptrs[i]))
	}
	return params
}

// launchConfig is the grid, block, cluster and shared memory of the plan.
func (p *plan) launchConfig() cu.LaunchConfig {
	man := p.k.Man
	cfg := cu.LaunchConfig{
		Grid:      [3]uint32{p.grid, 1, 1},
		Block:     [3]uint32{uint32(man.BlockThreads), 1, 1},
		SharedMem: uint32(man.DynamicSmemBytes),
		Stream:    p.stream,
	}
	if man.ClusterDims[0]*man.ClusterDims[1] > 1 {
		cfg.Cluster = [3]uint32{uint32(man.ClusterDims[0]), uint32(man.ClusterDims[1]), 1}
	}
	return cfg
}

// Sync waits for the stream with a deadline, naming the kernel on timeout.
func (p *plan) Sync(timeout time.Duration) error {
	return p.k.ctx.Synchronize(timeout, p.k.Man.Name)
}

// GemmArgs are the device buffers and sizes of one gemm call C = A @ B,
// all row-major: A is [M,K] (major_a=k) or [K,M] (major_a=mn), B is [N,K]
// (major_b=k) or [K,N] (major_b=mn), C is [M,N] in the operand type.
type GemmArgs struct {
	M, N, K int
	A, B, C cu.DevicePtr
	Stream  *cu.Stream
}

// GemmPlan is a gemm launch with its tensor maps encoded, ready to be
// launched many times.
type GemmPlan struct{ plan }

// mapEncoder encodes the 16-bit, 128B-swizzled tensor maps of one plan.
type mapEncoder struct {
	k    *Kernel
	dt   cu.TensorDType
	maps []*cu.TensorMap
}

// add encodes a row-major tensor whose dims are given innermost first
// (elements) with the given box; strides follow from the dims, except
// where strides is non-nil (bytes, dims 1..rank-1).
func (e *mapEncoder) add(name string, ptr cu.DevicePtr, dims []uint64, strides []uint64, box [3]int) error {
	const eb = 2
	p := cu.TensorMapParams{DType: e.dt, Rank: len(dims), Global: ptr, Swizzle: cu.Swizzle128B, L2Promotion: cu.L2Promotion256B}
	pitch := uint64(eb)
	for i, d := range dims {
		p.Dims[i] = d
		p.Box[i] = uint32(box[i])
		p.ElemStrides[i] = 1
		if i > 0 {
			p.Strides[i-1] = pitch
			if strides != nil {
				p.Strides[i-1] = strides[i-1]
			}
		}
		pitch *= d
	}
	m, err := e.k.encodeTiled(p, name)
	if err != nil {
		return fmt.Errorf("launch: %s: %w", e.k.Man.Name, err)
	}
	e.maps = append(e.maps, m)
	return nil
}

// checkKind fails unless the kernel is of kind want, and returns its TMA
// boxes (gen.TMABoxes: sm_90a and sm_100a).
func (k *Kernel) checkKind(op string, want tiling.Kernel) (tiling.Config, gen.TMABoxSet, error) {
	cfg := k.Man.Config
	if cfg.Kernel != want {
		return cfg, gen.TMABoxSet{}, fmt.Errorf("launch: %s: %s on a %s kernel (want %s)", k.Man.Name, op, cfg.Kernel, want)
	}
	boxes, err := gen.TMABoxes(cfg)
	if err != nil {
		return cfg, gen.TMABoxSet{}, fmt.Errorf("launch: %s: %w", op, err)
	}
	return cfg, boxes, nil
}

// persistentGrid sizes the grid for an M x cols accumulator (cols: the
// GEMM's N in accumulator columns), capped by the co-resident clusters.
func (k *Kernel) persistentGrid(cfg tiling.Config, m, cols int) (int, error) {
	grid := gen.PersistentGrid(cfg, m, cols, k.numSMs)
	if cs := k.Man.ClusterDims[0] * k.Man.ClusterDims[1]; cs > 1 && cfg.Scheduler != tiling.CLCScheduler {
		// Not every SM pair can host a cluster: a persistent grid with
		// more clusters than fit at once would run a second wave.
		n, err := k.maxClusters()
		if err != nil {
			return 0, err
		}
		grid = min(grid, n*cs)
	}
	return grid, nil
}

// pitchRule checks that a row-major tensor's row of n 16-bit elements is a
// positive multiple of 16 bytes (TMA's global-stride rule).
func pitchRule(errs *[]string, what string, dim string, n int) {
	if n < 8 || n%8 != 0 {
		*errs = append(*errs, fmt.Sprintf("%s=%d: must be a positive multiple of 8 (%s rows must be 16-byte multiples for TMA)", dim, n, what))
	}
}

// CheckGemmShape checks the sizes of a gemm call against TMA's rules (every
// row pitch a multiple of 16 bytes, so the contiguous dimension of each
// operand a multiple of 8) and the kernel's own.
func CheckGemmShape(cfg tiling.Config, M, N, K int) error {
	var errs []string
	if M < 1 {
		errs = append(errs, fmt.Sprintf("M=%d: must be >= 1", M))
	}
	if cfg.MajorA == tiling.MNMajor {
		pitchRule(&errs, "A [K,M] (major_a=mn)", "M", M)
	}
	// K is the contiguous dim of A (major_a=k) or B (major_b=k); with both
	// MN-major it is only a row count, but a K of zero has nothing to do.
	if cfg.MajorA == tiling.KMajor || cfg.MajorB == tiling.KMajor {
		pitchRule(&errs, "the K-major operand's", "K", K)
	} else if K < 1 {
		errs = append(errs, fmt.Sprintf("K=%d: must be >= 1", K))
	}
	pitchRule(&errs, "C [M,N]", "N", N)
	if len(errs) > 0 {
		return fmt.Errorf("launch: %s: bad shape: %s", cfg.Name(), joinLines(errs))
	}
	return nil
}

// PlanGemm encodes the tensor maps of a gemm call.
func (k *Kernel) PlanGemm(a GemmArgs) (*GemmPlan, error) {
	cfg, boxes, err := k.checkKind("PlanGemm", tiling.KernelGEMM)
	if err != nil {
		return nil, err
	}
	if err := CheckGemmShape(cfg, a.M, a.N, a.K); err != nil {
		return nil, err
	}
	M, N, K := uint64(a.M), uint64(a.N), uint64(a.K)
	e := &mapEncoder{k: k, dt: tmapDType(cfg.DType)}
	aDims := []uint64{K, M} // A [M,K]
	if cfg.MajorA == tiling.MNMajor {
		aDims = []uint64{M, K} // A [K,M]
	}
	bDims := []uint64{K, N} // B [N,K]
	if cfg.MajorB == tiling.MNMajor {
		bDims = []uint64{N, K} // B [K,N]
	}
	if err := e.add("A", a.A, aDims, nil, boxes.A); err != nil {
		return nil, err
	}
	if err := e.add("B", a.B, bDims, nil, boxes.B); err != nil {
		return nil, err
	}
	if err := e.add("C", a.C, []uint64{N, M}, nil, boxes.Out); err != nil {
		return nil, err
	}
	grid, err := k.persistentGrid(cfg, a.M, a.N)
	if err != nil {
		return nil, err
	}
	return &GemmPlan{plan{k: k, maps: e.maps, dims: [3]int32{int32(a.M), int32(a.N), int32(a.K)}, grid: uint32(grid), stream: a.Stream}}, nil
}

package tiling

import (
	"fmt"
	"slices"

	"github.com/swigen/swigen/internal/join"
)

// MMAShape describes the legal shapes of one tensor-core MMA instruction
// family for one operand type: M is one of M, N runs from NMin to NMax in
// steps of NStep, and K is fixed.
type MMAShape struct {
	Instr    string // PTX instruction family, for messages
	DType    DType
	CTAGroup int // tcgen05 cta_group (1 or 2); 0 for wgmma
	M        []int
	NMin     int
	NMax     int
	NStep    int
	K        int
}

// LegalM reports whether m is a legal instruction M.
func (s MMAShape) LegalM(m int) bool { return slices.Contains(s.M, m) }

// LegalN reports whether n is a legal instruction N.
func (s MMAShape) LegalN(n int) bool {
	return n >= s.NMin && n <= s.NMax && s.NStep > 0 && n%s.NStep == 0
}

// Limits are the hardware limits of one target and the fixed facts of
// swigen's kernel design on it, as data: Validate, the resource model and
// the Space read them from here and nowhere else.
type Limits struct {
	Arch Arch

	// SmemPerBlock is the opt-in dynamic shared memory per block in bytes
	// (227 KiB on both targets). Everything the kernel puts in shared
	// memory counts against it: stages, epilogue buffers, barriers and the
	// alignment slack.
	SmemPerBlock int
	// SmemPerSM is the shared memory of one SM that co-resident CTAs
	// share (228 KiB on sm_90 and sm_100), and SmemReservedPerBlock what
	// the driver reserves of it for each resident CTA on top of the
	// CTA's dynamic shared memory (1 KiB; cuDeviceGetAttribute's
	// MAX_SHARED_MEMORY_PER_MULTIPROCESSOR and
	// RESERVED_SHARED_MEMORY_PER_BLOCK). Together they bound how many CTAs
	// of a kernel can share an SM.
	SmemPerSM, SmemReservedPerBlock int
	// SmemAllocUnit is the granularity the hardware allocates a CTA's
	// shared memory in; padding targets are rounded up to it.
	SmemAllocUnit int
	// MaxThreadsPerSM and MaxBlocksPerSM are the other per-SM residency
	// limits known before compiling (registers are known only after).
	MaxThreadsPerSM, MaxBlocksPerSM int
	// SmemAlign is the alignment of the shared-memory base that 128-byte
	// swizzled TMA tiles and MMA descriptors need; the kernel aligns the
	// dynamic smem pointer up by hand, so it reserves this much as slack.
	SmemAlign int
	// BarrierBytes is the size of one mbarrier.
	BarrierBytes int
	// BarrierRegionAlign is the granularity the barrier region is rounded
	// up to (a swigen design choice: keeps the region a whole number of
	// 128-byte lines).
	BarrierRegionAlign int
	// SwizzleBytes is the width of the 128-byte swizzle atom: a tile's
	// contiguous extent (K for K-major operands) must be a multiple of it.
	SwizzleBytes int

	// TMEMColumns is the tensor-memory capacity in 32-bit columns per SM
	// (128 lanes each); 0 where there is no TMEM (sm_90a).
	TMEMColumns int
	// TMEMMinAlloc is the smallest tcgen05.alloc (a power of two >= 32).
	TMEMMinAlloc int

	// RegsPerSM is the 32-bit register file size per SM.
	RegsPerSM int
	// ConsumerRegs and ProducerRegs are the setmaxnreg budgets per thread
	// of a consumer and the producer warpgroup (sm_90a only; 0 elsewhere).
	ConsumerRegs, ProducerRegs int
	// MaxAccRegs is the most fp32 accumulator registers per thread one
	// consumer warpgroup may hold, leaving the rest of ConsumerRegs for
	// addresses, epilogue math and the pipeline (sm_90a only).
	MaxAccRegs int
	// MaxAccRegsPingPong is MaxAccRegs for a ping-pong consumer, whose
	// epilogue holds no second tile: 192 accumulators (a 128x192 tile)
	// plus the epilogue's ~36 registers fit the 232 that setmaxnreg gives
	// it, with no spills (docs/PERFORMANCE.md#tile-128x192).
	MaxAccRegsPingPong int

	// MaxClusterSize is the portable maximum number of CTAs in a cluster.
	MaxClusterSize int
	// MaxThreadsPerBlock is the hardware limit.
	MaxThreadsPerBlock int
	// Threads is the block size of swigen's kernel design on this target
	// (sm_90a: producer + 2 consumer warpgroups; sm_100a: 8 warps).
	Threads int
	// WarpgroupThreads is the number of threads in a warpgroup.
	WarpgroupThreads int

	// MMA lists the legal instruction shapes per operand type (and, on
	// sm_100a, per cta_group).
	MMA []MMAShape
}

// ErrUnsupportedArch is returned (wrapped) for an Arch swigen has no limits
// for.
var ErrUnsupportedArch = fmt.Errorf("unsupported arch")

const (
	smemPerBlock = 232448 // 227 KiB, sm_90 and sm_100 opt-in maximum
	smemPerSM    = 233472 // 228 KiB per SM, sm_90 and sm_100
	sm90Threads  = 384
	sm100Threads = 256
)

// LimitsFor returns the limits of arch a. The result is a fresh copy: the
// caller may modify it.
func LimitsFor(a Arch) (Limits, error) {
	l := Limits{
		Arch:         a,
		SmemPerBlock: smemPerBlock,
		SmemPerSM:    smemPerSM,
		// 1 KiB per resident CTA since sm_80; the allocation unit is 128
		// bytes.
		SmemReservedPerBlock: 1024,
		SmemAllocUnit:        128,
		MaxThreadsPerSM:      2048,
		MaxBlocksPerSM:       32,
		SmemAlign:            1024,
		BarrierBytes:         8,
		BarrierRegionAlign:   128,
		SwizzleBytes:         128,
		RegsPerSM:            65536,
		MaxClusterSize:       8,
		MaxThreadsPerBlock:   1024,
		WarpgroupThreads:     128,
	}
	switch a {
	case ArchSM90a:
		l.Threads = sm90Threads
		l.ConsumerRegs, l.ProducerRegs = 232, 40
		l.MaxAccRegs, l.MaxAccRegsPingPong = 128, 192
		for _, d := range dtypes {
			l.MMA = append(l.MMA, MMAShape{
				Instr: "wgmma", DType: d.DType, M: []int{64},
				NMin: 8, NMax: 256, NStep: 8, K: d.MMAK,
			})
		}
	case ArchSM100a:
		l.Threads = sm100Threads
		l.TMEMColumns, l.TMEMMinAlloc = 512, 32
		// The dense tcgen05.mma.kind::f16 shapes (no .ws) with an f16 or
		// f32 D, PTX ISA 9.7.16.2.1 "Matrix Shape", Table 39 "Various
		// combinations of .kind and shapes": cta_group::1 M 64 or 128, N
		// 8..256 in steps of 8; cta_group::2 M 128 or 256 (the pair's M),
		// N 16..256 in steps of 16; K 16 for both.
		for _, d := range dtypes {
			l.MMA = append(l.MMA,
				MMAShape{
					Instr: "tcgen05.mma cta_group::1", DType: d.DType, CTAGroup: 1,
					M: []int{64, 128}, NMin: 8, NMax: 256, NStep: 8, K: d.MMAK,
				},
				MMAShape{
					Instr: "tcgen05.mma cta_group::2", DType: d.DType, CTAGroup: 2,
					M: []int{128, 256}, NMin: 16, NMax: 256, NStep: 16, K: d.MMAK,
				})
		}
	default:
		return Limits{}, fmt.Errorf("tiling: limits for arch %q: %w (want one of %s)", a, ErrUnsupportedArch, join.Strings(Arches()))
	}
	return l, nil
}

// AccBudget is the most fp32 accumulator registers per thread that a
// consumer warpgroup of schedule s may hold (sm_90a; 0 elsewhere):
// MaxAccRegsPingPong for ping-pong, MaxAccRegs for the others.
func (l Limits) AccBudget(s Schedule) int {
	if s == PingPong {
		return l.MaxAccRegsPingPong
	}
	return l.MaxAccRegs
}

// accBudget is Limits.AccBudget for arch a (0 for an unknown arch).
func accBudget(a Arch, s Schedule) int {
	l, err := LimitsFor(a)
	if err != nil {
		return 0
	}
	return l.AccBudget(s)
}

// MMAFor returns the instruction shapes for operand type d and, on sm_100a,
// cta_group g (1 or 2; ignored on sm_90a).
func (l Limits) MMAFor(d DType, g int) (MMAShape, bool) {
	for _, s := range l.MMA {
		if s.DType == d && (s.CTAGroup == 0 || s.CTAGroup == g) {
			return s, true
		}
	}
	return MMAShape{}, false
}

// CheckMMA returns nil when M m and N n form a legal instruction shape for
// operand type d and, on sm_100a, cta_group g (1 or 2; ignored on
// sm_90a), or an error naming the legal values.
func (l Limits) CheckMMA(d DType, g, m, n int) error {
	s, ok := l.MMAFor(d, g)
	if !ok {
		return fmt.Errorf("tiling: %s mma: dtype %q cta_group %d: no such instruction (want one of %s; cta_group 1 or 2 on sm_100a)", l.Arch, d, g, join.Strings(DTypes()))
	}
	if !s.LegalM(m) || !s.LegalN(n) {
		return fmt.Errorf("tiling: %s: M=%d N=%d: not a legal shape (want M in {%s}, N a multiple of %d in [%d,%d])", s.Instr, m, n, join.Ints(s.M), s.NStep, s.NMin, s.NMax)
	}
	return nil
}

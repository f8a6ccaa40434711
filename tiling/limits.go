package tiling

import (
	"fmt"
	"slices"
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
	// it, with no spills (bench/results/NOTES.md, run 78).
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
	sm90Threads  = 384
	sm100Threads = 256
)

// LimitsFor returns the limits of arch a. The result is a fresh copy: the
// caller may modify it.
func LimitsFor(a Arch) (Limits, error) {
	l := Limits{
		Arch:               a,
		SmemPerBlock:       smemPerBlock,
		SmemAlign:          1024,
		BarrierBytes:       8,
		BarrierRegionAlign: 128,
		SwizzleBytes:       128,
		RegsPerSM:          65536,
		MaxClusterSize:     8,
		MaxThreadsPerBlock: 1024,
		WarpgroupThreads:   128,
	}
	switch a {
	case ArchSM90a:
		l.Threads = sm90Threads
		l.ConsumerRegs, l.ProducerRegs = 232, 40
		l.MaxAccRegs, l.MaxAccRegsPingPong = 128, 192
		for _, d := range []DType{BF16, FP16} {
			l.MMA = append(l.MMA, MMAShape{
				Instr: "wgmma", DType: d, M: []int{64},
				NMin: 8, NMax: 256, NStep: 8, K: 16,
			})
		}
	case ArchSM100a:
		l.Threads = sm100Threads
		l.TMEMColumns, l.TMEMMinAlloc = 512, 32
		for _, d := range []DType{BF16, FP16} {
			l.MMA = append(l.MMA,
				MMAShape{
					Instr: "tcgen05.mma cta_group::1", DType: d, CTAGroup: 1,
					M: []int{64, 128}, NMin: 16, NMax: 256, NStep: 16, K: 16,
				},
				MMAShape{
					Instr: "tcgen05.mma cta_group::2", DType: d, CTAGroup: 2,
					M: []int{128, 256}, NMin: 16, NMax: 256, NStep: 16, K: 16,
				})
		}
	default:
		return Limits{}, fmt.Errorf("tiling: limits for arch %q: %w (want one of %s)", a, ErrUnsupportedArch, join(Arches()))
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

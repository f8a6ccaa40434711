package tiling

// The resource model of swigen's kernel design. The kernels are written to
// this model (the code generator takes every byte count and offset from
// here), so any change to a kernel's shared-memory or thread layout must
// change this file too, and the other way round.
//
// sm_90a: 384 threads = 1 producer warpgroup (TMA) + 2 consumer
// warpgroups (wgmma + epilogue). Cooperative splits one tile's rows
// between the consumers; PingPong gives each consumer whole tiles.
//
// sm_100a: 256 threads = warp 0 TMA load, warp 1 MMA issue, warp 2 TMEM
// alloc + epilogue TMA load, warp 3 spare, warps 4-7 the epilogue
// warpgroup. Accumulators live in TMEM, double-buffered.
//
// Dynamic shared memory, from the 1024-byte aligned base:
//
//	[operand ring][epilogue ring][barrier region]   + SmemAlign slack
//
// Operand ring: Stages x (A tile, then B tile), 16-bit, 128-byte swizzled.
// Epilogue ring: per consumer, EpiStages slots, each slot EpiTensors()
// buffers of EpiM x EpiN 16-bit elements.
// Barrier region: BarrierCount() mbarriers of 8 bytes, then (sm_100a) with
// CLC CLCDepth 16-byte cluster-launch-control responses and an 8-byte slot
// for the TMEM base address; rounded up to 128 bytes. BarrierMap places
// them.

// SmemLayout is the shared-memory budget of a Config: offsets are from
// the 1024-byte aligned base, sizes in bytes.
type SmemLayout struct {
	OperandStage  int // one stage: A tile + B tile (per CTA)
	OperandB      int // offset of the B tile inside a stage: the A tile's bytes
	OperandOffset int // always 0
	Operands      int // Stages * OperandStage
	EpilogueSlot  int // one EpiM x EpiN 16-bit buffer
	EpilogueOff   int
	Epilogue      int
	BarrierOffset int
	Barriers      int // rounded-up barrier region
	// Bars places every mbarrier (and the words beside them) inside the
	// barrier region.
	Bars  BarrierMap
	Align int // alignment slack reserved for aligning the base
	// TMEMPad (sm_100a) is dynamic shared memory the kernel requests but
	// never uses, so that no more CTAs fit on an SM than tensor memory
	// holds allocations for (TMEMCoResident).
	TMEMPad int
	Total   int // Operands + Epilogue + Barriers + Align + TMEMPad
}

// BarrierMap places the mbarriers in the barrier region: each field is the
// offset (from the aligned base, like every SmemLayout offset) of an array
// of Limits.BarrierBytes barriers, 0 for an array the kernel does not have.
// Arrays follow each other in field order, with no padding.
type BarrierMap struct {
	// Full and Empty: one barrier per operand stage.
	Full, Empty int
	// AccFull and AccEmpty (sm_100a): one per TMEM accumulator buffer
	// (AccStages).
	AccFull, AccEmpty int
	// EpiFull and EpiEmpty: one per epilogue slot of each consumer (sm_90a:
	// consumer c's slot s is barrier c*EpiStages+s).
	EpiFull, EpiEmpty int
	// Order (sm_90a): the two mainloop-order barriers of the ping-pong
	// schedule, reserved for every schedule so the layout does not depend
	// on it.
	Order int
	// CLCFull and CLCEmpty (sm_100a, clc scheduler): one per slot of the
	// response ring (CLCDepth); CLCResponse: the ring's 16-byte responses,
	// 16-byte aligned since an even number of barriers precedes them.
	CLCFull, CLCEmpty, CLCResponse int
	// TMEMSlot (sm_100a): the 8 bytes tcgen05.alloc writes the TMEM base
	// address to.
	TMEMSlot int
	// End is the first byte past the last of them.
	End int
}

// barrierMap lays the barriers of c out from offset off, barrier bytes
// each.
func (c Config) barrierMap(off, barrier int) BarrierMap {
	var m BarrierMap
	next := off
	take := func(bytes int) int { at := next; next += bytes; return at }
	m.Full = take(barrier * c.Stages)
	m.Empty = take(barrier * c.Stages)
	switch c.Arch {
	case ArchSM90a:
		m.EpiFull = take(barrier * c.Consumers() * c.EpiStages)
		m.EpiEmpty = take(barrier * c.Consumers() * c.EpiStages)
		m.Order = take(barrier * 2)
	case ArchSM100a:
		m.AccFull = take(barrier * AccStages)
		m.AccEmpty = take(barrier * AccStages)
		m.EpiFull = take(barrier * c.EpiStages)
		m.EpiEmpty = take(barrier * c.EpiStages)
		if d := c.CLCDepth(); d > 0 {
			m.CLCFull = take(barrier * d)
			m.CLCEmpty = take(barrier * d)
			m.CLCResponse = take(16 * d)
		}
		m.TMEMSlot = take(8)
	}
	m.End = next
	return m
}

// Threads returns the block size (0 for an unknown arch).
func (c Config) Threads() int {
	switch c.Arch {
	case ArchSM90a:
		return sm90Threads
	case ArchSM100a:
		return sm100Threads
	}
	return 0
}

// CTAsPerTile is the number of CTAs that share one scheduled tile: 2 for
// the sm_100a 2-CTA schedule (cta_group::2), else 1.
func (c Config) CTAsPerTile() int {
	if c.Arch == ArchSM100a && c.Schedule == TwoCTA {
		return 2
	}
	return 1
}

// TileMPerCTA is the number of A rows (output rows) one CTA loads: TileM,
// or TileM/2 with the 2-CTA schedule.
func (c Config) TileMPerCTA() int { return c.TileM / c.CTAsPerTile() }

// TileNPerCTA is the number of B rows (output columns) one CTA loads:
// TileN, or TileN/2 with the 2-CTA schedule (the MMA reads the peer CTA's
// half).
func (c Config) TileNPerCTA() int { return c.TileN / c.CTAsPerTile() }

// Consumers is the number of epilogue-running warpgroups per CTA: 2
// consumer warpgroups on sm_90a, 1 epilogue warpgroup on sm_100a.
func (c Config) Consumers() int {
	switch c.Arch {
	case ArchSM90a:
		return 2
	case ArchSM100a:
		return 1
	}
	return 0
}

// RowsPerConsumer is the number of accumulator rows one consumer (sm_90a)
// or the epilogue warpgroup (sm_100a) owns: Cooperative TileM/2, PingPong
// TileM, sm_100a the rows per CTA. 0 for an unknown arch or schedule.
func (c Config) RowsPerConsumer() int {
	switch {
	case c.Arch == ArchSM90a && (c.Schedule == Cooperative || c.Schedule == Overlap):
		return c.TileM / 2
	case c.Arch == ArchSM90a && c.Schedule == PingPong:
		return c.TileM
	case c.Arch == ArchSM100a && (c.Schedule == OneCTA || c.Schedule == TwoCTA):
		return c.TileMPerCTA()
	}
	return 0
}

// AccRegsPerThread is the number of fp32 accumulator registers per thread
// of one sm_90a consumer warpgroup: RowsPerConsumer*TileN/128. 0 on
// sm_100a, where accumulators live in TMEM.
func (c Config) AccRegsPerThread() int {
	if c.Arch != ArchSM90a {
		return 0
	}
	return c.RowsPerConsumer() * c.TileN / 128
}

// WideAccumulator reports whether c's consumers hold more accumulator
// registers per thread than Limits.MaxAccRegs: only ping-pong may
// (MaxAccRegsPingPong), and the generator implements it for bwd_dswiglu
// only. False on sm_100a.
func (c Config) WideAccumulator() bool {
	l, err := LimitsFor(c.Arch)
	return err == nil && c.AccRegsPerThread() > l.MaxAccRegs
}

// TMEMColumns is the tcgen05.alloc size on sm_100a: two accumulator
// buffers of TileN fp32 columns, rounded up to a power of two and at
// least 32. 0 on sm_90a.
func (c Config) TMEMColumns() int {
	if c.Arch != ArchSM100a {
		return 0
	}
	n := 32
	for n < AccStages*c.TileN {
		n *= 2
	}
	return n
}

// EpiTensors is the number of EpiM x EpiN buffers in one epilogue slot:
// bwd_dswiglu stages left and gate (the de tile, reused in place for
// grad_de), plus out when StoreOut; fwd_gateup stages out, plus left and
// gate of de when StoreOut (training); fwd_down stages y (the residual
// is loaded into the same buffer and rewritten in place); gemm stages C.
func (c Config) EpiTensors() int {
	s := spec(c.Kernel)
	if c.StoreOut && s.EpiTensorsStoreOut > 0 {
		return s.EpiTensorsStoreOut
	}
	return max(1, s.EpiTensors)
}

// AccStages is the number of TMEM accumulator buffers of the sm_100a
// kernel: the epilogue drains one while the MMAs fill the other.
const AccStages = 2

// DefaultCLCStages is the CLC response ring depth when CLCStages is 0:
// one response per accumulator buffer in flight plus the one being
// requested (CUTLASS's SM100 block-scaled GEMM builder sizes its scheduler
// pipeline so; its other builders use 2 or 3).
const DefaultCLCStages = AccStages + 1

// maxCLCStages bounds CLCStages: deeper rings only hold responses no role
// is near.
const maxCLCStages = 8

// CLCDepth is the depth of the CLC response ring: CLCStages, or
// DefaultCLCStages when it is 0. 0 without the clc scheduler (or off
// sm_100a).
func (c Config) CLCDepth() int {
	switch {
	case c.Arch != ArchSM100a || c.Scheduler != CLCScheduler:
		return 0
	case c.CLCStages == 0:
		return DefaultCLCStages
	}
	return c.CLCStages
}

// BarrierCount is the number of mbarriers.
//
// sm_90a: full/empty per operand stage (2*Stages) + full/empty per
// epilogue slot per consumer (2*2*EpiStages) + the two mainloop-order
// barriers of the ping-pong schedule (reserved for every schedule, so the
// layout does not depend on it).
//
// sm_100a: full/empty per operand stage (2*Stages) + full/empty per TMEM
// accumulator buffer (2*AccStages) + full/empty per epilogue slot
// (2*EpiStages) + with CLC a full/empty pair per response slot
// (2*CLCDepth).
func (c Config) BarrierCount() int {
	switch c.Arch {
	case ArchSM90a:
		return 2*c.Stages + 2*2*c.EpiStages + 2
	case ArchSM100a:
		return 2*c.Stages + 2*AccStages + 2*c.EpiStages + 2*c.CLCDepth()
	}
	return 0
}

// Smem returns the shared-memory layout. For an unknown arch or dtype it is
// zero.
func (c Config) Smem() SmemLayout {
	l, err := LimitsFor(c.Arch)
	elem := c.DType.Size()
	if err != nil || elem == 0 {
		return SmemLayout{}
	}
	var s SmemLayout
	s.OperandB = c.TileMPerCTA() * c.TileK * elem
	s.OperandStage = s.OperandB + c.TileNPerCTA()*c.TileK*elem
	s.Operands = c.Stages * s.OperandStage
	s.EpilogueSlot = c.EpiM * c.EpiN * elem
	s.EpilogueOff = s.Operands
	s.Epilogue = c.Consumers() * c.EpiStages * s.EpilogueSlot * c.EpiTensors()
	s.BarrierOffset = s.EpilogueOff + s.Epilogue
	s.Bars = c.barrierMap(s.BarrierOffset, l.BarrierBytes)
	s.Barriers = roundUp(s.Bars.End-s.BarrierOffset, l.BarrierRegionAlign)
	s.Align = l.SmemAlign
	s.Total = s.Operands + s.Epilogue + s.Barriers + s.Align
	s.TMEMPad = c.tmemPadding(l, s.Total)
	s.Total += s.TMEMPad
	return s
}

// The sm_100a kernel allocates its TMEM columns once per CTA with
// tcgen05.alloc, which blocks until the columns are free. If more CTAs of
// a kernel are resident on an SM than TMEM holds allocations for, the
// extra ones wait in tcgen05.alloc; with clusters, CTAs of two clusters can
// then hold each other's partners crosswise (each waits at the post-alloc
// cluster barrier for a peer blocked in alloc): a deadlock that no trap
// ends. So the dynamic shared memory is padded until shared memory alone
// keeps the co-resident CTAs within what TMEM holds, and the loader checks
// the driver's occupancy against the same bound (runtime/launch).

// TMEMCoResident is how many CTAs of c can hold their TMEM allocation on
// one SM at once: Limits.TMEMColumns / TMEMColumns. 0 on sm_90a, which has
// no TMEM.
func (c Config) TMEMCoResident() int {
	l, err := LimitsFor(c.Arch)
	if err != nil || c.TMEMColumns() == 0 {
		return 0
	}
	return l.TMEMColumns / c.TMEMColumns()
}

// MaxCoResident is the most CTAs of c that can be resident on one SM as far
// as is known before compiling: by shared memory (SmemBytes plus the
// driver's per-CTA reservation, out of SmemPerSM), threads and the block
// limit. Registers, known only after compiling, can only lower it. 0 for
// an unknown arch.
func (c Config) MaxCoResident() int {
	l, err := LimitsFor(c.Arch)
	if err != nil {
		return 0
	}
	return coResident(l, c.Threads(), c.SmemBytes())
}

// coResident is MaxCoResident for a block of threads threads and smem
// bytes of dynamic shared memory.
func coResident(l Limits, threads, smem int) int {
	n := l.MaxBlocksPerSM
	if threads > 0 {
		n = min(n, l.MaxThreadsPerSM/threads)
	}
	return min(n, l.SmemPerSM/(smem+l.SmemReservedPerBlock))
}

// tmemPadding is the padding Smem adds to a total of smem bytes: 0 unless
// more CTAs could co-reside than TMEMCoResident, else what lifts each
// CTA's footprint (smem plus the reservation) above SmemPerSM divided by
// TMEMCoResident+1, rounded up to SmemAllocUnit.
func (c Config) tmemPadding(l Limits, smem int) int {
	fit := c.TMEMCoResident()
	if fit == 0 || coResident(l, c.Threads(), smem) <= fit {
		return 0
	}
	need := roundUp(l.SmemPerSM/(fit+1)+1-l.SmemReservedPerBlock, l.SmemAllocUnit)
	return max(0, need-smem)
}

// SmemBytes is the dynamic shared memory the kernel requests: everything
// in Smem, alignment slack included.
func (c Config) SmemBytes() int { return c.Smem().Total }

// MaxStages returns the largest Stages in [2,8] for which c fits in shared
// memory, or 0 if none does (or the arch is unknown).
func (c Config) MaxStages() int {
	l, err := LimitsFor(c.Arch)
	if err != nil {
		return 0
	}
	for s := maxStages; s >= minStages; s-- {
		c.Stages = s
		if c.SmemBytes() <= l.SmemPerBlock {
			return s
		}
	}
	return 0
}

const (
	minStages    = 2
	maxStages    = 8
	minEpiStages = 1
	maxEpiStages = 4
)

func roundUp(n, m int) int {
	if m <= 0 {
		return n
	}
	return (n + m - 1) / m * m
}

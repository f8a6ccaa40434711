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
// Barrier region: BarrierCount() mbarriers of 8 bytes, then (sm_100a) an
// 8-byte slot for the TMEM base address and, with CLC, a 16-byte
// cluster-launch-control response; rounded up to 128 bytes.

// SmemLayout is the shared-memory budget of a Config: offsets are from
// the 1024-byte aligned base, sizes in bytes.
type SmemLayout struct {
	OperandStage  int // one stage: A tile + B tile (per CTA)
	OperandOffset int // always 0
	Operands      int // Stages * OperandStage
	EpilogueSlot  int // one EpiM x EpiN 16-bit buffer
	EpilogueOff   int
	Epilogue      int
	BarrierOffset int
	Barriers      int // rounded-up barrier region
	Align         int // alignment slack reserved for aligning the base
	Total         int // Operands + Epilogue + Barriers + Align
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
	for n < 2*c.TileN {
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
	switch c.Kernel {
	case KernelBwdDSwiGLU:
		if c.StoreOut {
			return 3
		}
		return 2
	case KernelFwdGateUp:
		if c.StoreOut {
			return 3
		}
		return 1
	}
	return 1
}

// BarrierCount is the number of mbarriers.
//
// sm_90a: full/empty per operand stage (2*Stages) + full/empty per
// epilogue slot per consumer (2*2*EpiStages) + the two mainloop-order
// barriers of the ping-pong schedule (reserved for every schedule, so the
// layout does not depend on it).
//
// sm_100a: full/empty per operand stage (2*Stages) + full/empty per TMEM
// accumulator buffer (2*2) + full/empty per epilogue slot (2*EpiStages) +
// with CLC a full/empty pair for the response buffer.
func (c Config) BarrierCount() int {
	switch c.Arch {
	case ArchSM90a:
		return 2*c.Stages + 2*2*c.EpiStages + 2
	case ArchSM100a:
		n := 2*c.Stages + 2*2 + 2*c.EpiStages
		if c.Scheduler == CLCScheduler {
			n += 2
		}
		return n
	}
	return 0
}

// Smem returns the shared-memory layout. For an unknown arch it is zero.
func (c Config) Smem() SmemLayout {
	l, err := LimitsFor(c.Arch)
	if err != nil {
		return SmemLayout{}
	}
	const elem = 2 // both operand types are 16-bit
	var s SmemLayout
	s.OperandStage = (c.TileMPerCTA() + c.TileNPerCTA()) * c.TileK * elem
	s.Operands = c.Stages * s.OperandStage
	s.EpilogueSlot = c.EpiM * c.EpiN * elem
	s.EpilogueOff = s.Operands
	s.Epilogue = c.Consumers() * c.EpiStages * s.EpilogueSlot * c.EpiTensors()
	s.BarrierOffset = s.EpilogueOff + s.Epilogue
	raw := c.BarrierCount() * l.BarrierBytes
	if c.Arch == ArchSM100a {
		raw += 8 // TMEM base address written by tcgen05.alloc
		if c.Scheduler == CLCScheduler {
			raw += 16 // clusterlaunchcontrol.try_cancel response
		}
	}
	s.Barriers = roundUp(raw, l.BarrierRegionAlign)
	s.Align = l.SmemAlign
	s.Total = s.Operands + s.Epilogue + s.Barriers + s.Align
	return s
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

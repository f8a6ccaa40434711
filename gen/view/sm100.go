package view

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// SM100 is the view of an sm_100a kernel: a persistent, warp-specialized
// TMA + tcgen05 GEMM with the accumulator in TMEM (sm100a_kernel.cuh.tmpl)
// and the kind's epilogue.
//
// Nothing rendered from it has executed: there is no sm_100 GPU here. The
// kernels are compile-verified (ptxas, SASS opcodes) and the layouts are
// checked structurally by tests.
type SM100 struct {
	Name        string   // the kernel's entry symbol (the manifest's)
	ConfigLines []string // the config, one field per line, for the header
	Params      string   // the C parameter list, from the manifest's table

	Hang    Hang
	Kind    Kind
	Elem    Elem
	Sched   SM100Schedule
	Tile    Tile
	Pair    SM100Pair
	Cluster Cluster
	Ring    SM100Ring
	A, B    Operand
	// IDesc is the tcgen05.mma instruction descriptor, a hex literal.
	IDesc string
	TMEM  SM100TMEM
	// Smem is tiling's shared-memory layout: every offset the kernel uses,
	// the barriers, the CLC responses and the TMEM address slot included.
	Smem tiling.SmemLayout
	Epi  SM100Epilogue
}

// SM100Schedule is the warp roles' schedule: warp 0 loads operands, warp 1
// issues the MMAs, warp 2 allocates TMEM (and loads epilogue operands),
// warp 3 runs the CLC scheduler, warps 4-7 are the epilogue.
type SM100Schedule struct {
	Doc     string // the schedule in a sentence, for the header
	Threads int    // the block size (the manifest's)
	// CLC: the cluster-launch-control scheduler (else static persistent),
	// with a ring of CLCStages responses; CLCEmptyArrivals free a slot.
	CLC              bool
	CLCStages        int
	CLCEmptyArrivals int
}

// SM100Pair is how a tile maps onto CTAs: one (cta_group::1), or the CTA
// pair of a 2x1 cluster (TwoCTA, cta_group::2), each CTA holding
// RowsPerCTA rows of A and the accumulator and NPerCTA rows of B.
type SM100Pair struct {
	TwoCTA                bool
	CTAGroup, CTAsPerTile int
	RowsPerCTA, NPerCTA   int
	// Mask is the tcgen05.commit multicast mask of the pair (its cluster
	// ranks), a hex literal. RankNOff is what the odd CTA adds to its B n
	// coordinate: kTileNPerCTA (its half of the B rows), or NName for
	// fwd_gateup (it loads the gate half).
	Mask, RankNOff string
}

// SM100Ring is the operand ring: Stages stages of the CTA's A and B rows.
type SM100Ring struct {
	Stages int
	// TxBytes land on the leader's full barrier: both CTAs' bytes in a
	// pair (ptx.md §B8).
	TxBytes int
	Doc     string // the ring's operands, for the header
}

// SM100TMEM is the tensor memory: Cols columns allocated per CTA (two
// accumulator buffers of AccCols columns, AccCols naming the kernel
// constant: kTileN, or kAccN where it differs from the output tile), freed
// for the MMAs by EmptyArrivals epilogue threads. The epilogue reads it
// with tcgen05.ld of LdCols registers: LdRegList and LdOperands are the
// inline-asm operand lists.
type SM100TMEM struct {
	Cols, EmptyArrivals   int
	AccCols               string
	LdCols                int
	LdRegList, LdOperands string
}

// SM100Epilogue is the sm_100a epilogue warpgroup (warps Warp0..Warp0+3,
// warp%4 selecting the TMEM lane quarter): per tile NB sub-tiles of M x N,
// each a 128B-swizzled buffer per tensor with RowBytes per row, Chunks
// 16-byte chunks of it, chunk j of row r at (j ^ (r & SwizzleMask)) << 4.
type SM100Epilogue struct {
	Epilogue
	M, N, Chunks, RowBytes int
	SwizzleMask, Warp0     int
	// Warp2Doc is what warp 2 does besides the TMEM allocation.
	Warp2Doc string
}

// Facts of the sm_100a design (tiling/resources.go, ptx.md §B).
const (
	sm100EpiWarp0   = 4   // warps 4-7: warp%4 selects the TMEM lane quarter
	SM100EpiThreads = 128 // one epilogue warpgroup
	// sm100RoleConsumers are the threads of one CTA that read every CLC
	// response besides the MMA thread: scheduler, operand loader,
	// epilogue-operand loader and the epilogue warpgroup.
	sm100RoleConsumers = 3 + SM100EpiThreads
)

// NewSM100 computes the view of the sm_100a kernel of c, of any kind,
// whose launch contract is m: the kernel's name, block size and parameters
// come from m. It trusts k's legality (tiling.Check) and re-derives no
// rule.
func NewSM100(k tiling.Checked, m manifest.Manifest) (*SM100, error) {
	c := k.Config()
	kind, halves, err := kindOf(c)
	if err != nil {
		return nil, err
	}
	docs := sm100DocsOf(c)
	v := &SM100{Name: m.Name, ConfigLines: configLines(c), Hang: defaultHang(), Kind: kind, Smem: c.Smem()}
	if v.Params, err = cParams(m.Params); err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	if v.Elem, err = elemOf(c); err != nil {
		return nil, err
	}
	v.Tile = newTile(c, v.Elem, halves, swizzleAtomBytes/v.Elem.Bytes) // one 128-byte swizzle row
	v.Pair = sm100Pair(c, docs)
	v.Cluster = Cluster{Size: c.ClusterM * c.ClusterN, M: c.ClusterM, N: c.ClusterN, Sync: c.ClusterM*c.ClusterN > 1}
	v.Ring = SM100Ring{Stages: c.Stages, TxBytes: v.Pair.CTAsPerTile * v.Smem.OperandStage, Doc: docs.ring}
	v.TMEM = sm100TMEM(c, v.Pair, docs)
	if v.A, v.B, v.IDesc, err = sm100Operands(c, v.Elem, m.Boxes, v.Pair, halves); err != nil {
		return nil, err
	}
	if s, _ := tiling.KindOf(c.Kernel); s.ExpertsAlongK {
		// tiling.Implemented admits MN-major B only; the grouped
		// scheduler's file defines the load (sched_grouped_sm100a.sched.tmpl).
		v.B.Expert, v.B.Func = true, "sw_load_b_mnmajor_e"
	}
	v.Epi = sm100Epilogue(c, v.Elem, kind, v.Smem, docs)
	if v.Sched, err = sm100Schedule(c, m.BlockThreads, v.Epi.Loads, docs); err != nil {
		return nil, err
	}
	return v, nil
}

// sm100Schedule is c's scheduler on a block of threads threads. Every
// CTA's roles read each CLC response: the scheduler, the operand loader,
// the epilogue-operand loader (kinds with epilogue loads) and the epilogue
// warpgroup; the MMA thread only where MMAs are issued (the even CTA of a
// pair).
func sm100Schedule(c tiling.Config, threads int, epiLoads bool, d sm100Docs) (SM100Schedule, error) {
	s := SM100Schedule{Threads: threads, Doc: d.schedule}
	switch c.Scheduler {
	case tiling.StaticScheduler, tiling.GroupedScheduler:
		// The grouped walk is static over the experts' tile sequence.
		return s, nil
	case tiling.CLCScheduler:
	default:
		return s, fmt.Errorf("view: scheduler %q: want static, clc or grouped", c.Scheduler)
	}
	s.CLC, s.CLCStages = true, c.CLCDepth()
	roles := sm100RoleConsumers
	if !epiLoads {
		roles--
	}
	cluster := c.ClusterM * c.ClusterN
	s.CLCEmptyArrivals = cluster*roles + cluster/c.CTAsPerTile()
	return s, nil
}

// sm100Pair maps c's tile onto its CTAs. A 2cta tile's cluster is exactly
// its CTA pair (tiling.Check: 2x1), so the pair starts at rank 0 and the
// commit's multicast mask is a constant; the kernel's grid is 1-D, so the
// pair is consecutive blockIdx.x: ranks 0 and 1.
func sm100Pair(c tiling.Config, d sm100Docs) SM100Pair {
	p := SM100Pair{CTAsPerTile: c.CTAsPerTile(), RowsPerCTA: c.TileMPerCTA(), NPerCTA: c.TileNPerCTA(), RankNOff: d.rankNOff}
	p.CTAGroup, p.TwoCTA = p.CTAsPerTile, p.CTAsPerTile == 2
	if p.TwoCTA {
		p.Mask = fmt.Sprintf("%#x", (1<<p.CTAsPerTile)-1)
	}
	return p
}

// sm100TMEM sizes the tensor memory of c: two TileN-column accumulators
// in the power-of-two allocation tiling.Config.TMEMColumns rounds them up
// to, read EpiN columns at a time.
func sm100TMEM(c tiling.Config, p SM100Pair, d sm100Docs) SM100TMEM {
	t := SM100TMEM{Cols: c.TMEMColumns(), EmptyArrivals: SM100EpiThreads * p.CTAsPerTile, AccCols: d.accCols, LdCols: c.EpiN}
	t.LdRegList, t.LdOperands = regList(t.LdCols, "=f", "v")
	return t
}

// sm100Epilogue is c's epilogue in layout lay: EpiM x EpiN sub-tiles of
// element type el, one 128-byte swizzle row per TMEM lane.
func sm100Epilogue(c tiling.Config, el Elem, k Kind, lay tiling.SmemLayout, d sm100Docs) SM100Epilogue {
	e := SM100Epilogue{Epilogue: epilogueOf(c, k, lay.EpilogueSlot), M: c.EpiM, N: c.EpiN,
		RowBytes: c.EpiN * el.Bytes, SwizzleMask: swizzleRepeat/swizzleAtomBytes - 1, Warp0: sm100EpiWarp0, Warp2Doc: d.warp2}
	e.Chunks = e.RowBytes / 16
	return e
}

// epiChunkOffset is the byte offset, inside one EpiM x EpiN buffer, of the
// 16-byte chunk j of row r: the template's 128B-swizzle formula
// r*RowBytes + ((j ^ (r & SwizzleMask)) << 4).
func (e SM100Epilogue) epiChunkOffset(r, j int) int {
	return r*e.RowBytes + (j^(r&e.SwizzleMask))<<4
}

// epiThreadRow is the tile row (TMEM lane) epilogue thread tid (threadIdx.x)
// owns: 32*(warp%4) + lane, as in the template.
func epiThreadRow(tid int) int {
	return 32*((tid/32)%4) + tid%32
}

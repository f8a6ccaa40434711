package view

import (
	"fmt"
	"strings"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// SM90 is the view of an sm_90a kernel: a persistent, warp-specialized
// TMA + wgmma GEMM (sm90a_kernel.cuh.tmpl) with the kind's epilogue.
type SM90 struct {
	Name        string   // the kernel's entry symbol (the manifest's)
	ConfigLines []string // the config, one field per line, for the header
	Params      string   // the C parameter list, from the manifest's table

	Hang  Hang
	Kind  Kind
	Elem  Elem
	Sched SM90Schedule
	// Scheduler is the tile scheduler's part (the blocks of
	// sched_<scheduler>_sm90a.sched.tmpl).
	Scheduler SM90Scheduler
	Tile      Tile
	Ring      SM90Ring
	A, B      Operand
	Cluster   Cluster
	// Smem is tiling's shared-memory layout: every offset the kernel uses,
	// the barriers' included.
	Smem  tiling.SmemLayout
	Epi   SM90Epilogue
	Wgmma Wgmma
	// Trace sizes the trace probe's record buffer; zero without it.
	Trace manifest.TraceLayout
}

// SM90Schedule is how the producer and the two consumer warpgroups share
// the work.
type SM90Schedule struct {
	Name tiling.Schedule
	Doc  string // the schedule in a sentence, for the header
	// Threads is the block size (the manifest's). ProducerRegs and
	// ConsumerRegs are the setmaxnreg targets: setmaxnreg only
	// redistributes the registers allocated at launch (Threads x the entry
	// count, 168 at 384 threads), so ProducerRegs + 2*ConsumerRegs must
	// not exceed 3 x 168, or the consumers' setmaxnreg.inc never returns.
	Threads, ProducerRegs, ConsumerRegs int
	// Consumer c runs local tiles c*TileStart, += TileStep, rows
	// [c*ConsumerRows, +64*MB) of each.
	TileStart, TileStep, ConsumerRows int
	// OrderWait 1: the consumers take turns in the mainloop (ping-pong).
	OrderWait int
	Overlap   SM90Overlap
}

// SM90Scheduler is the sm_90a tile scheduler. The static one needs no
// numbers; stream-K's (tiling.StreamKPlan) are its work list's minimum
// range (MinKBlocks) and its workspace: FlagBytes of flags per CTA and the
// HeaderBytes of the epoch header after them, then a slot of SlotBytes per
// CTA holding Parts consumer parts of PartBytes each
// (one consumer's fp32 accumulators: cooperative 2 row halves, ping-pong 1
// whole tile). Library reports whether the CUDA library
// (templates/include) has kernel bodies under the scheduler and schedule
// (not the overlap one), so a kind with a thin unit renders it; without,
// a kernel renders whole.
type SM90Scheduler struct {
	Name                                        tiling.Scheduler
	MinKBlocks, FlagBytes, SlotBytes, PartBytes int
	HeaderBytes, Parts                          int
	Library                                     bool
	// TokenK (the K-grouped walk, tiling.KindSpec.KGrouped): a tile's
	// k-blocks start at its expert's first token, k_row0, which the
	// producer adds to each load's k coordinate.
	TokenK bool
}

// sm90Library are the schedulers of the CUDA library's kernel bodies.
var sm90Library = map[tiling.Scheduler]bool{tiling.StaticScheduler: true, tiling.StreamKScheduler: true}

// sm90Scheduler is c's scheduler view; w is the consumers' accumulators.
func sm90Scheduler(c tiling.Config, s SM90Schedule, w Wgmma) (SM90Scheduler, error) {
	// The overlap schedule's consumer (sm90a_overlap.cuh.tmpl) has no walk
	// in the library: its configs render whole.
	v := SM90Scheduler{Name: c.Scheduler, Library: sm90Library[c.Scheduler] && !s.Overlap.On}
	if s, _ := tiling.KindOf(c.Kernel); s.KGrouped {
		v.TokenK = true
	}
	if c.Scheduler != tiling.StreamKScheduler {
		return v, nil
	}
	_, slot, _ := tiling.StreamKWorkspace(1, c.TileM, c.TileN)
	v.MinKBlocks, v.FlagBytes, v.SlotBytes = tiling.StreamKMinKBlocks, tiling.StreamKFlagBytes, slot
	v.HeaderBytes = tiling.StreamKHeaderBytes
	v.PartBytes = w.MB * w.AccPerMB * 128 * 4
	v.Parts = 1
	if s.TileStep == 1 {
		v.Parts = 2
	}
	if v.Parts*v.PartBytes != slot || 4*v.Parts > v.FlagBytes {
		return v, fmt.Errorf("view: stream-K: %d consumer parts of %d bytes in a %d-byte slot, %d bytes of flags: the workspace layout does not hold the accumulators", v.Parts, v.PartBytes, slot, v.FlagBytes)
	}
	return v, nil
}

// SM90Overlap is the overlap schedule (bwd_dswiglu): the consumers keep a
// finished tile's dout as bf16x2 and run its epilogue in Slices slices of
// Frags accumulator fragments between the next tile's k-blocks
// (sm90a_overlap.cuh.tmpl). SliceIdx is 0..Slices-1, the cases of the
// template's switch: every slice has compile-time register indices, or
// dout would go to local memory.
type SM90Overlap struct {
	On            bool
	Slices, Frags int
	SliceIdx      []int
}

// SM90Ring is the operand ring: Stages stages of one A and one B tile.
type SM90Ring struct {
	Stages int
	// TxBytes land on a stage's full barrier: the whole stage, since every
	// CTA of a cluster receives whole tiles.
	TxBytes int
	// EmptyArrivals free a stage: one per consumer warp that read it
	// (ping-pong: one consumer's 4, cooperative: both consumers' 8), of
	// every CTA of the cluster.
	EmptyArrivals int
	// L2Keep (tiling.Config.L2KeepOperands): the operand loads go through
	// the _keep forms of their helpers, which carry an L2 evict_last policy.
	L2Keep bool
}

// Cluster is the thread-block cluster, 1-D along x: Size CTAs. On sm_90a
// CTA rank r takes tile (sm*M + r*RankM, sn*N + r*RankN) of super tile
// (sm, sn) and multicasts its share of the operand the cluster shares (B
// for 2x1, A for 1x2) with McMask; a consumer releases a stage in its own
// CTA only when ReleaseLocalCond holds. On sm_100a Sync makes the
// block-wide syncs around setup and teardown cluster barriers.
type Cluster struct {
	Size, M, N           int
	RankM, RankN, McMask int
	ReleaseLocalCond     string
	Sync                 bool
}

// SM90Epilogue is the sm_90a epilogue: per consumer a ring of Stages
// slots of 64x64 sub-tiles.
type SM90Epilogue struct {
	Epilogue
	// ConsumerBytes is one consumer's ring.
	ConsumerBytes int
	// GateAcc (fwd_gateup) is the accumulator index of gate column 0.
	GateAcc int
	// EmptyArrivals free a slot: 1 (the consumer thread that stores), 4
	// for bwd_dswiglu (one per consumer warp; the producer stores).
	// FullArrivals fill one: 1 (the producer's expect-tx).
	EmptyArrivals, FullArrivals int
	// ProducerStores (bwd_dswiglu): the producer's epilogue-operand warp
	// TMA-stores each finished sub-tile before reloading its slot, so the
	// consumers never wait for a store.
	ProducerStores bool
	// Group (bwd_dswiglu): accumulator fragments (of 16 per warp and
	// sub-tile) whose shared-memory loads the epilogue issues together;
	// ResGroup (fwd_down with a residual) the same for residual words, one
	// register each, so twice Group in the same register room.
	Group, ResGroup int
	// Matrix (bwd_dswiglu ping-pong and cooperative): the epilogue moves de
	// and grad_de between the slot and its registers with
	// ldmatrix/stmatrix x4 (four fragments per instruction) instead of
	// 32-bit ld/st.shared: 0.5-0.9% faster on the H200 in every config
	// timed (docs/PERFORMANCE.md#epilogue-ldmatrix-stmatrix).
	Matrix bool
	// SubCols is the sub-tile's width: 64, or 32 for bwd_dswiglu's deeper
	// ring of 64x32 sub-tiles (docs/PERFORMANCE.md#seed-epilogue-levers).
	// ColGroups (SubCols/8) are its 8-column accumulator groups, Frags
	// (2*ColGroups) the accumulator fragments each consumer warp holds of
	// it, Swizzle how it lies in its slot.
	SubCols, ColGroups, Frags int
	Swizzle                   EpiSwizzle
	// Narrow: SubCols is 32 (bwd_dswiglu only, tiling.Implemented).
	Narrow bool
	// Pipe (tiling.Config.EpiPipe, bwd_dswiglu): dout rounded after the
	// mainloop, each sub-tile's de loaded before the previous one's math.
	Pipe bool
	// RowEnd (moe_bwd_dswiglu): a tile's rows start at row0 and its
	// expert's end at row_end (the grouped scheduler's coordinates): the
	// epilogue loader and the consumer skip sub-tiles from row_end on, the
	// producer TMA-stores only sub-tiles whose 64 rows are all the
	// expert's, the consumer stores an expert's ragged last one row by row.
	RowEnd bool
}

// Wgmma is the shape of a consumer's wgmmas and their inline-asm operand
// lists: AccPerMB fp32 accumulators per 64-row block, MB blocks, then the
// two descriptors and the scale-d flag.
type Wgmma struct {
	MB, AccPerMB                 int
	RegList, Operands            string
	ScaleIdx, DescAIdx, DescBIdx int
}

// epiGroup is how many accumulator fragments the sm_90a bwd_dswiglu
// epilogue loads at once: enough independent loads to overlap their
// shared-memory latency, few enough (2 registers each, 3 with out) to fit
// beside the accumulators. 128x128 builds at 8 and 16 too and times the
// same; 128x192 spills at 8 (docs/PERFORMANCE.md#epilogue-grouped-fragments).
// The ldmatrix/stmatrix epilogue moves exactly one group of 4 per x4.
const epiGroup = 4

// EpiSubRows is the rows of the sm_90a epilogue's sub-tile: one wgmma M;
// its width is the config's EpiN (SM90Epilogue.SubCols).
const EpiSubRows = 64

// NewSM90 computes the view of the sm_90a kernel of k, of any kind, whose
// launch contract is m: the kernel's name, block size and parameters come
// from m. It trusts k's legality (tiling.Check) and re-derives no rule.
func NewSM90(k tiling.Checked, m manifest.Manifest) (*SM90, error) {
	c := k.Config()
	kind, halves, err := kindOf(c)
	if err != nil {
		return nil, err
	}
	v := &SM90{Name: m.Name, ConfigLines: configLines(c), Hang: defaultHang(), Kind: kind, Smem: c.Smem()}
	if v.Params, err = cParams(m.Params); err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	if v.Elem, err = elemOf(c); err != nil {
		return nil, err
	}
	arrivals := 0
	if v.Sched, arrivals, err = sm90Schedule(c, m.BlockThreads); err != nil {
		return nil, err
	}
	v.Tile = newTile(c, v.Elem, halves, c.EpiN)
	v.Sched.Overlap = sm90Overlap(c, v.Tile)
	v.Cluster = sm90Cluster(c)
	v.Ring = SM90Ring{Stages: c.Stages, TxBytes: v.Smem.OperandStage, EmptyArrivals: arrivals * v.Cluster.Size, L2Keep: c.L2KeepOperands}
	v.Wgmma = sm90Wgmma(c, v.Sched)
	if v.Scheduler, err = sm90Scheduler(c, v.Sched, v.Wgmma); err != nil {
		return nil, err
	}
	boxes := m.Boxes
	if v.A, err = sm90OperandA(c, v.Elem, boxes, v.Sched.ConsumerRows); err != nil {
		return nil, err
	}
	if v.B, err = sm90OperandB(c, v.Elem, boxes, halves); err != nil {
		return nil, err
	}
	if s, _ := tiling.KindOf(c.Kernel); s.ExpertsAlongK || s.ExpertMapB {
		// tiling.Implemented admits no _l2k here, and for ExpertsAlongK
		// MN-major B only.
		v.B.Expert, v.B.Func = true, "sw_load_b_kmajor_e"
		if c.MajorB == tiling.MNMajor {
			v.B.Func = "sw_load_b_mnmajor_e"
		}
	}
	if v.Epi, err = sm90Epilogue(c, v.Elem, kind, v.Smem); err != nil {
		return nil, err
	}
	if err := checkRegisterSplit(v.Sched.Threads, v.Sched.ProducerRegs, v.Sched.ConsumerRegs); err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	return v, nil
}

// sm90Schedule lays out the consumers' work for c's schedule on a block of
// threads threads; arrivals is how many consumer warps of one CTA release
// each stage.
func sm90Schedule(c tiling.Config, threads int) (s SM90Schedule, arrivals int, err error) {
	s = SM90Schedule{Name: c.Schedule, Threads: threads, ProducerRegs: 40, ConsumerRegs: 232}
	rows := c.TileM // rows per consumer warpgroup
	switch c.Schedule {
	case tiling.Cooperative, tiling.Overlap:
		rows = c.TileM / 2
		s.TileStart, s.TileStep, s.ConsumerRows = 0, 1, rows
		arrivals = 8 // lane 0 of each of the 8 consumer warps
		s.Doc = "both consumers work on every tile, consumer c on rows [c*TileM/2, (c+1)*TileM/2)."
		if c.Schedule == tiling.Overlap {
			s.Doc = strings.TrimSuffix(s.Doc, ".") + "; each runs the previous tile's epilogue in slices between the next tile's k-blocks."
			s.ProducerRegs, s.ConsumerRegs = overlapRegs(c)
		}
	case tiling.PingPong:
		s.TileStart, s.TileStep = 1, 2
		arrivals = 4
		// The consumers share one operand ring but wait on its barriers
		// for different tiles; a consumer may only wait for the phase in
		// flight, so consumer c starts tile j's mainloop after the other
		// consumer finished tile j-1's (this also keeps their mainloops
		// from competing for the tensor cores).
		s.OrderWait = 1
		s.Doc = "consumer c owns the CTA's local tiles j with j%2 == c, so one consumer's epilogue overlaps the other's mainloop."
	default:
		return s, 0, fmt.Errorf("view: schedule %q: sm_90a supports cooperative, pingpong or overlap", c.Schedule)
	}
	return s, arrivals, nil
}

// overlapRegs is the overlap schedule's register split. Its consumers hold
// accumulators and the previous tile's dout: from 128x192 on (96 + 48
// registers) they need 240 registers, and the producer gets the 24 left
// (24 + 2 x 240 = 504 = 3 x 168, the pool setmaxnreg redistributes), except
// under a cluster, whose multicast producer needs its 40. 128x128 keeps
// the default split: its producer spills at 24.
func overlapRegs(c tiling.Config) (producer, consumer int) {
	if c.TileN > 128 && c.ClusterM*c.ClusterN == 1 {
		return 24, 240
	}
	return 40, 232
}

// sm90Overlap sizes the overlap schedule's slices (zero for the other
// schedules). Small slices pay a fixed cost each, large ones hold up the
// next k-block's wgmma issue; the default of 4 fragments gives 12 slices
// per 128x192 tile, one per k-block at K=768
// (docs/PERFORMANCE.md#schedule-overlap).
func sm90Overlap(c tiling.Config, t Tile) SM90Overlap {
	if c.Schedule != tiling.Overlap {
		return SM90Overlap{}
	}
	o := SM90Overlap{On: true, Frags: c.OverlapSliceFrags()}
	o.Slices = t.NB * 16 / o.Frags
	for q := 0; q < o.Slices; q++ {
		o.SliceIdx = append(o.SliceIdx, q)
	}
	return o
}

// sm90Cluster is c's cluster: along M (2x1) the CTAs share B, along N
// (1x2) A, and the second CTA's tile is one step along that dimension.
func sm90Cluster(c tiling.Config) Cluster {
	cl := Cluster{Size: c.ClusterM * c.ClusterN, M: c.ClusterM, N: c.ClusterN, ReleaseLocalCond: "kClusterSize == 1"}
	if c.ClusterM == 2 {
		cl.RankM = 1
	}
	if c.ClusterN == 2 {
		cl.RankN = 1
	}
	cl.McMask = 1<<cl.Size - 1
	return cl
}

// sm90Wgmma is the wgmma shape of a consumer of schedule s: 64-row blocks
// of its rows, N/2 accumulator registers per block per thread.
func sm90Wgmma(c tiling.Config, s SM90Schedule) Wgmma {
	rows := c.TileM
	if s.ConsumerRows > 0 {
		rows = s.ConsumerRows
	}
	w := Wgmma{MB: rows / 64, AccPerMB: c.TileN / 2}
	n := w.AccPerMB
	w.RegList, w.Operands = regList(n, "+f", "d")
	w.DescAIdx, w.DescBIdx, w.ScaleIdx = n, n+1, n+2
	return w
}

// sm90Epilogue is c's epilogue of element type el in layout lay.
func sm90Epilogue(c tiling.Config, el Elem, k Kind, lay tiling.SmemLayout) (SM90Epilogue, error) {
	swz, err := EpiSwizzleOf(c.EpiN, el.Bytes)
	if err != nil {
		return SM90Epilogue{}, err
	}
	e := SM90Epilogue{
		Epilogue:      epilogueOf(c, k, lay.EpilogueSlot),
		ConsumerBytes: lay.Epilogue / c.Consumers(),
		EmptyArrivals: 1, FullArrivals: 1,
		Group: epiGroup, ResGroup: 2 * epiGroup,
		SubCols: c.EpiN, ColGroups: c.EpiN / 8, Frags: c.EpiN / 4, Swizzle: swz,
		Narrow: c.EpiN < 64, Pipe: c.EpiPipe,
	}
	if k.GateUp {
		// Gate column 0 of the accumulator is column TileN/2: 8-column
		// groups hold 4 registers each.
		e.GateAcc = c.TileN / 2 / 8 * 4
	}
	if k.Bwd {
		e.EmptyArrivals = 4 // one per consumer warp
		e.ProducerStores = true
		// StoreOut above 128 accumulators keeps 32-bit accesses: out's
		// third x4 takes the registers that the x4 addresses need at
		// 128x192 (8 bytes of stack).
		e.Matrix = c.Schedule != tiling.Overlap && !(c.StoreOut && c.WideAccumulator())
		e.RowEnd = c.Kernel.Grouped()
	}
	return e, nil
}

// checkRegisterSplit checks the setmaxnreg targets of a kernel of threads
// threads (one producer warpgroup, the rest consumers) against the
// registers its launch allocates: 65536 / threads per thread, rounded down
// to a multiple of 8, which ptxas assigns the entry under
// __launch_bounds__(threads, 1). Targets must be multiples of 8 in
// [24, 256].
func checkRegisterSplit(threads, producer, consumer int) error {
	groups := threads / 128
	consumers := groups - 1
	if threads%128 != 0 || consumers < 1 {
		return fmt.Errorf("register split: %d threads: want a producer warpgroup and at least one consumer warpgroup", threads)
	}
	for _, r := range []int{producer, consumer} {
		if r%8 != 0 || r < 24 || r > 256 {
			return fmt.Errorf("register split: setmaxnreg target %d: must be a multiple of 8 in [24, 256]", r)
		}
	}
	entry := entryRegs(threads)
	if total, pool := producer+consumers*consumer, groups*entry; total > pool {
		return fmt.Errorf("register split: producer %d + %d consumers x %d = %d registers per thread row, over the %d the launch allocates (%d warpgroups x %d): setmaxnreg.inc would never return",
			producer, consumers, consumer, total, pool, groups, entry)
	}
	return nil
}

// entryRegs is the per-thread register count a kernel of threads threads
// starts with under __launch_bounds__(threads, 1): 65536 / threads, rounded
// down to a multiple of 8.
func entryRegs(threads int) int { return 65536 / threads / 8 * 8 }

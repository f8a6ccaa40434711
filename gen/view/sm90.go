package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// SM90 is the typed, precomputed data an sm_90a kernel template receives. Every
// offset, byte count and trip count is computed here; templates only
// substitute.
type SM90 struct {
	Name        string
	ConfigLines []string
	Schedule    tiling.Schedule
	ScheduleDoc string

	HangTimeoutMs int
	HangTimeoutNs int64

	Threads int
	// ProducerRegs and ConsumerRegs are the setmaxnreg targets of the
	// producer and consumer warpgroups. setmaxnreg only redistributes the
	// registers allocated at launch (Threads x the entry count, 168 at 384
	// threads), so ProducerRegs + 2*ConsumerRegs must not exceed 3 x 168:
	// otherwise the consumers' setmaxnreg.inc never returns.
	ProducerRegs int
	ConsumerRegs int

	// Element type: the PTX type name and the pack/unpack helpers.
	PTXType string
	Unpack  string
	Pack    string

	// Kernel kind: exactly one switch is true; the skeleton template picks
	// the kind's partials by them.
	IsBwd, IsGemm, IsGateUp, IsDown bool
	// IsOverlap (schedule overlap, bwd_dswiglu): the consumers keep a
	// finished tile's dout as bf16x2 and run its epilogue in OverlapSlices
	// slices of OverlapFrags accumulator fragments between the next tile's
	// k-blocks (sm90a_overlap.cuh.tmpl). OverlapSliceIdx is
	// 0..OverlapSlices-1, the cases of the template's switch: every slice
	// has compile-time register indices, or dout would go to local memory.
	IsOverlap       bool
	OverlapSlices   int
	OverlapFrags    int
	OverlapSliceIdx []int
	// NName names the kernel's output-column size parameter: I (bwd_dswiglu,
	// fwd_gateup) or N (gemm, fwd_down).
	NName string

	// TileN is the wgmma N (accumulator columns per tile); TileNOut the
	// output columns one tile covers: TileN, except for fwd_gateup, whose
	// accumulator holds TileN/2 left columns then the TileN/2 matching gate
	// columns.
	TileM, TileN, TileK int
	TileNOut            int
	Stages, EpiStages   int
	MB, NB, K16         int
	AccPerMB            int
	SwizzleGroup        int
	TileFunc            string

	// Shared-memory layout (bytes, relative to the 1024-aligned base).
	StageBytes, StageTxBytes, BOff         int
	EpiOff, EpiConsumerBytes               int
	EpiSlotBytes, EpiGateOff, EpiOutOff    int
	EpiTxBytes                             int
	BarFull, BarEmpty, BarEFull, BarEEmpty int
	BarOrder                               int // two mainloop-order barriers (ping-pong)
	OrderWait                              int // 1: consumers take turns in the mainloop
	EmptyArrivals                          int

	TileStart, TileStep                    int
	ConsumerRowStride, ConsumerASmemStride int

	DescA, DescB   string // hex literals
	AK16, BK16     string // comma-separated constant arrays
	AMB            string
	TransA, TransB int
	// AMNMajor: A is stored [K,M]; its loads swap the coordinates.
	AMNMajor bool

	ALoads, BLoads       []int // only their lengths are used by templates
	ALoadK, ALoadSmem    string
	ALoadRow, ALoadRank  string // rank -1: every CTA loads its own; r: CTA r multicasts
	BLoadK, BLoadN       string
	BLoadSmem            string
	BLoadRank            string
	BLoadFunc, ALoadFunc string
	// Params is the kernel's C parameter list, rendered from the
	// manifest's parameter table (cParams).
	Params string
	// BHalves (fwd_gateup): B loads read the left or the gate half of W,
	// BLoadHalf[i] in {0,1}; the half's first row/column is NName past the
	// left one's.
	BHalves   bool
	BLoadHalf string

	// Thread-block cluster (1-D along x): ClusterSize CTAs; CTA rank r
	// takes tile (sm*ClusterM + r*RankM, sn*ClusterN + r*RankN) of super
	// tile (sm, sn) and multicasts its share of the operand the cluster
	// shares (B for 2x1, A for 1x2) with McMask.
	ClusterSize, ClusterM, ClusterN int
	RankM, RankN, McMask            int

	WgmmaRegList                                string
	WgmmaOperands                               string
	WgmmaScaleIdx, WgmmaDescAIdx, WgmmaDescBIdx int

	StoreOut bool

	// FastSigmoid selects the tanh-based sigmoid; DSwiGLUFn is the
	// epilogue function the template calls.
	FastSigmoid bool
	DSwiGLUFn   string

	// Epilogue shape. EpiLoads: producer warps 1 and 2 TMA-load an
	// epilogue operand per sub-tile (bwd_dswiglu: de; fwd_down: the
	// residual), described by EpiLoadDoc, into the slot the consumer then
	// rewrites in place. EpiStoreOnly: the epilogue only stores, and the
	// consumer guards its slots by waiting for the slot's previous TMA
	// store. GateAcc (fwd_gateup) is the accumulator index of gate column 0;
	// EpiLeftOff the slot offset of the staged left half of de.
	EpiLoads, EpiStoreOnly bool
	EpiLoadDoc             string
	GateAcc                int
	EpiLeftOff             int
	Residual               bool

	// L2Keep (tiling.Config.L2KeepOperands): the operand loads go through
	// the _keep forms of their helpers, which carry an L2 evict_last policy.
	L2Keep bool
	// EpiEmptyArrivals frees an epilogue slot: 1 (the consumer thread
	// that stores), 4 for bwd_dswiglu (one per consumer warp; the producer
	// stores). EpiFullArrivals fills one: 1 (the producer's expect-tx).
	EpiEmptyArrivals int
	EpiFullArrivals  int
	// ProducerStores (bwd_dswiglu): the producer's epilogue-operand warp
	// TMA-stores each finished sub-tile before reloading its slot, so the
	// consumers never wait for a store.
	ProducerStores bool
	// EpiGroup (bwd_dswiglu): accumulator fragments (of 16 per warp and
	// sub-tile) whose shared-memory loads the epilogue issues together.
	EpiGroup int
	// EpiMatrix (bwd_dswiglu ping-pong and cooperative): the epilogue
	// moves de and grad_de between the slot and its registers with
	// ldmatrix/stmatrix x4 (four fragments per instruction) instead of
	// 32-bit ld/st.shared. H200, call 103, A/B twice: 0.5-0.9% faster in
	// every config timed (S1 128x192 228.4/228.7 vs 229.7/230.4 us).
	EpiMatrix bool
	// ResGroup (fwd_down with a residual): accumulator fragments whose
	// residual words the epilogue loads together; one register each, so
	// twice EpiGroup in the same register room.
	ResGroup int
	// Trace sizes the trace probe's record buffer; zero without it.
	Trace manifest.TraceLayout
	// ReleaseLocalCond is the C condition under which a consumer releases
	// an operand stage in its own CTA only.
	ReleaseLocalCond string
}

// epiGroup is how many accumulator fragments the sm_90a bwd_dswiglu
// epilogue loads at once: enough independent loads to overlap their
// shared-memory latency, few enough (2 registers each, 3 with out) to fit
// beside the accumulators. With 232 consumer registers (since run 56)
// 128x128 builds at 8 and 16 too, and times the same (call 102: 230.3 and
// 229.7 vs 230.2 us at S1); 128x192 spills at 8. The ldmatrix/stmatrix
// epilogue (SM90.EpiMatrix) moves exactly one group of 4 per x4.
const epiGroup = 4

// Hardware facts the sm_90a layout depends on (ptx.md §A2, §A7).
const (
	swizzleAtomBytes = 128  // one 128B-swizzle row: 64 16-bit elements
	swizzleRepeat    = 1024 // 8 rows of an atom
	elemBytes        = 2    // bf16 / fp16
	epiSubRows       = 64
	epiSubCols       = 64
	smemAlignSlack   = 1024
	// defaultHangTimeoutMs bounds every mbarrier wait: far above any
	// legitimate wait of a kernel that runs for milliseconds, far below a
	// human's patience.
	defaultHangTimeoutMs = 4000
)

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// NewSM90 computes the view of the sm_90a kernel of c, of any kind, whose
// launch contract is m: the kernel's name and parameters come from m. The
// shared skeleton (operand ring, schedule, cluster, descriptors) is built
// here, the kind's operand naming and epilogue in sm90Kind (sm90_kinds.go).
func NewSM90(c tiling.Config, m manifest.Manifest) (*SM90, error) {
	if c.TileK%64 != 0 {
		return nil, fmt.Errorf("view: %s: tile_k=%d: must be a multiple of 64 (one 128-byte swizzle atom)", c.Name(), c.TileK)
	}
	if c.EpiM != epiSubRows || c.EpiN != epiSubCols {
		return nil, fmt.Errorf("view: %s: epilogue sub-tile %dx%d: sm_90a supports 64x64", c.Name(), c.EpiM, c.EpiN)
	}
	if ok, why := tiling.Implemented(c); !ok {
		return nil, fmt.Errorf("view: %s: %s", c.Name(), why)
	}
	params, err := cParams(m.Params)
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", c.Name(), err)
	}
	v := &SM90{
		Name:          m.Name,
		Params:        params,
		Schedule:      c.Schedule,
		HangTimeoutMs: defaultHangTimeoutMs,
		HangTimeoutNs: defaultHangTimeoutMs * 1_000_000,
		Threads:       m.BlockThreads,
		ProducerRegs:  40,
		ConsumerRegs:  232,
		TileM:         c.TileM, TileN: c.TileN, TileK: c.TileK, TileNOut: c.TileN,
		Stages: c.Stages, EpiStages: c.EpiStages,
		SwizzleGroup: c.SwizzleGroup,
		StoreOut:     c.StoreOut,
		FastSigmoid:  c.FastSigmoid,
		DSwiGLUFn:    map[bool]string{false: "sw_dswiglu", true: "sw_dswiglu_tanh"}[c.FastSigmoid],
	}
	kd, err := sm90KindOf(c)
	if err != nil {
		return nil, err
	}
	switch c.DType {
	case tiling.BF16:
		v.PTXType, v.Unpack, v.Pack = "bf16", "sw_unpack_bf16x2", "sw_pack_bf16x2"
	case tiling.FP16:
		v.PTXType, v.Unpack, v.Pack = "f16", "sw_unpack_f16x2", "sw_pack_f16x2"
	default:
		return nil, fmt.Errorf("view: %s: dtype %q: want bf16 or fp16", c.Name(), c.DType)
	}
	switch c.Raster {
	case tiling.RasterN:
		v.TileFunc = "sw_tile_raster_n"
	default:
		v.TileFunc = "sw_tile_raster_m"
	}
	rows := c.TileM // rows per consumer warpgroup
	switch c.Schedule {
	case tiling.Cooperative, tiling.Overlap:
		rows = c.TileM / 2
		v.TileStart, v.TileStep = 0, 1
		v.ConsumerRowStride = rows
		v.EmptyArrivals = 8 // lane 0 of each of the 8 consumer warps
		v.ScheduleDoc = "both consumers work on every tile, consumer c on rows [c*TileM/2, (c+1)*TileM/2)."
		if c.Schedule != tiling.Overlap {
			break
		}
		v.IsOverlap = true
		// The consumers hold accumulators and the previous tile's dout:
		// from 128x192 on (96 + 48 registers) they need 240 registers, and
		// the producer gets the 24 left (24 + 2 x 240 = 504 = 3 x 168, the
		// pool setmaxnreg redistributes). 128x128 keeps the default split:
		// its producer spills at 24.
		if c.TileN > 128 {
			v.ProducerRegs, v.ConsumerRegs = 24, 240
			if c.ClusterM*c.ClusterN > 1 {
				v.ProducerRegs, v.ConsumerRegs = 40, 232
			}
		}
		v.ScheduleDoc = strings.TrimSuffix(v.ScheduleDoc, ".") + "; each runs the previous tile's epilogue in slices between the next tile's k-blocks."
	case tiling.PingPong:
		v.TileStart, v.TileStep = 1, 2
		v.EmptyArrivals = 4
		// The consumers share one operand ring but wait on its barriers
		// for different tiles; a consumer may only wait for the phase in
		// flight, so consumer c starts tile j's mainloop after the other
		// consumer finished tile j-1's (this also keeps their mainloops
		// from competing for the tensor cores).
		v.OrderWait = 1
		v.ScheduleDoc = "consumer c owns the CTA's local tiles j with j%2 == c, so one consumer's epilogue overlaps the other's mainloop."
	default:
		return nil, fmt.Errorf("view: %s: schedule %q: sm_90a supports cooperative, pingpong or overlap", c.Name(), c.Schedule)
	}
	if rows%64 != 0 {
		return nil, fmt.Errorf("view: %s: %d rows per consumer: must be a multiple of 64 (wgmma M)", c.Name(), rows)
	}
	v.MB = rows / 64
	if c.TileN%(epiSubCols*kd.halves) != 0 {
		return nil, fmt.Errorf("view: %s: tile_n=%d: the sm_90a %s epilogue needs a multiple of %d", c.Name(), c.TileN, c.Kernel, epiSubCols*kd.halves)
	}
	v.TileNOut = c.TileN / kd.halves
	v.NB = v.TileNOut / epiSubCols
	if v.IsOverlap {
		// Fragments per slice, measured at S1 with 128x192 (calls 70-71):
		// 1: 368.0 us, 2: 283.6, 4: 252.7, 8: 276.7, 16: 288.0. Small slices
		// pay a fixed cost each; large ones hold up the next k-block's
		// wgmma issue. 4 gives 12 slices per tile, one per k-block at K=768.
		v.OverlapFrags = c.OverlapSliceFrags()
		v.OverlapSlices = v.NB * 16 / v.OverlapFrags
		for q := 0; q < v.OverlapSlices; q++ {
			v.OverlapSliceIdx = append(v.OverlapSliceIdx, q)
		}
	}
	v.K16 = c.TileK / 16
	v.AccPerMB = c.TileN / 2

	atoms := c.TileK / 64
	// The layout is tiling's (Config.Smem), the one the tuner prunes with.
	lay := c.Smem()
	v.StageBytes = lay.OperandStage
	v.StageTxBytes = lay.OperandStage // every CTA receives whole tiles
	v.BOff = lay.OperandB
	// The TMA boxes are the manifest's, the ones the host encodes.
	boxes, err := manifest.BoxesOf(c)
	if err != nil {
		return nil, err
	}

	v.ClusterM, v.ClusterN, v.ClusterSize = c.ClusterM, c.ClusterN, c.ClusterM*c.ClusterN
	if c.ClusterM == 2 {
		v.RankM = 1
	}
	if c.ClusterN == 2 {
		v.RankN = 1
	}
	v.McMask = 1<<v.ClusterSize - 1
	// part is a load's multicast rank: -1 (every CTA loads its own) without
	// a shared operand, else the CTA that loads this share.
	part := func(r, parts int) int {
		if parts > 1 {
			return r
		}
		return -1
	}
	// slabRank is the multicast rank that loads slab q of n: the slabs are
	// split into parts runs of consecutive slabs, the first runs one
	// shorter when n is not a multiple of parts (128x192 under a 2x1
	// cluster has 3 B slabs: ranks 0, 0, 1). Each CTA still expects the
	// whole stage's bytes, so an uneven split only moves load issue work.
	slabRank := func(q, n, parts int) int { return part(q*parts/n, parts) }

	// A: a 1x2 cluster shares it; CTA r loads its share and multicasts.
	aParts := c.ClusterN // 1, or 2 when A is shared (K-major: from the box)
	var ak16, amb, aK, aSmem, aRow, aRank []int
	switch c.MajorA {
	case tiling.KMajor:
		// A [M,K]: atom a holds k in [64a, 64a+64) for TileM rows; a share
		// is TileM/2 consecutive rows of each atom.
		for k := 0; k < v.K16; k++ {
			ak16 = append(ak16, (k/4)*c.TileM*swizzleAtomBytes+(k%4)*32)
		}
		for mb := 0; mb < v.MB; mb++ {
			amb = append(amb, mb*64*swizzleAtomBytes)
		}
		// One box is one atom of boxes.A[1] rows: a 1x2 cluster's share.
		rows := boxes.A[1]
		aParts = c.TileM / rows
		for a := 0; a < atoms; a++ {
			for r := 0; r < aParts; r++ {
				aK = append(aK, 64*a)
				aRow = append(aRow, r*rows)
				aSmem = append(aSmem, a*c.TileM*swizzleAtomBytes+r*rows*swizzleAtomBytes)
				aRank = append(aRank, part(r, aParts))
			}
		}
		v.ConsumerASmemStride = v.ConsumerRowStride * swizzleAtomBytes
		v.DescA, err = descHex90(16)
		v.ALoadFunc = "sw_tma_load_2d"
	case tiling.MNMajor:
		// A [K,M]: slab q holds m in [64q, 64q+64) for TileK k-rows (the
		// transpose of B's MN-major layout, trans-a = 1). One wgmma's 64
		// rows are one slab, so LBO (the slab stride) is never stepped
		// over; a k16 step is 16 k-rows. A share is half the slabs.
		slab := boxes.A[1] * swizzleAtomBytes // one box: TileK k-rows of 64 m
		for k := 0; k < v.K16; k++ {
			ak16 = append(ak16, k*16*swizzleAtomBytes)
		}
		for mb := 0; mb < v.MB; mb++ {
			amb = append(amb, mb*slab)
		}
		slabs := c.TileM / 64
		for q := 0; q < slabs; q++ {
			aK, aRow = append(aK, 0), append(aRow, 64*q)
			aSmem = append(aSmem, q*slab)
			aRank = append(aRank, slabRank(q, slabs, aParts))
		}
		v.ConsumerASmemStride = v.ConsumerRowStride / 64 * slab
		v.DescA, err = descHex90(slab)
		v.TransA = 1
		v.AMNMajor = true
		v.ALoadFunc = "sw_load_a_mnmajor"
	default:
		return nil, fmt.Errorf("view: %s: major_a %q: want k or mn", c.Name(), c.MajorA)
	}
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", c.Name(), err)
	}
	v.AK16, v.AMB, v.ALoadK, v.ALoadSmem = joinInts(ak16), joinInts(amb), joinInts(aK), joinInts(aSmem)
	v.ALoadRow, v.ALoadRank = joinInts(aRow), joinInts(aRank)
	v.ALoads = aK

	// B: a 2x1 cluster shares it; CTA r loads its share and multicasts.
	// fwd_gateup's B tile is two halves (left rows of W, then the matching
	// gate rows), each loaded on its own.
	bParts := c.ClusterM // K-major: from the box
	var bk16, bK, bN, bSmem, bRank, bHalf []int
	switch c.MajorB {
	case tiling.KMajor:
		// B [N,K]: like A, atom a holds k in [64a, 64a+64) for TileN rows;
		// a share is 1/bParts of each half's consecutive rows.
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, (k/4)*c.TileN*swizzleAtomBytes+(k%4)*32)
		}
		// One box is one atom of boxes.B[1] rows of one half: a 2x1
		// cluster's share of it.
		hRows := c.TileN / kd.halves
		rows := boxes.B[1]
		bParts = hRows / rows
		for a := 0; a < atoms; a++ {
			for h := 0; h < kd.halves; h++ {
				for r := 0; r < bParts; r++ {
					bK, bN, bHalf = append(bK, 64*a), append(bN, r*rows), append(bHalf, h)
					bSmem = append(bSmem, a*c.TileN*swizzleAtomBytes+(h*hRows+r*rows)*swizzleAtomBytes)
					bRank = append(bRank, part(r, bParts))
				}
			}
		}
		v.DescB, err = descHex90(16)
		v.TransB = 0
		v.BLoadFunc = "sw_load_b_kmajor"
	case tiling.MNMajor:
		// B [K,N]: slab q holds n in [64q, 64q+64) for TileK k-rows; LBO is
		// the slab stride, a k16 step is 16 k-rows. A share is half the
		// slabs; with halves, the first half of the slabs is the left one.
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, k*16*swizzleAtomBytes)
		}
		slabs := c.TileN / 64
		perHalf := slabs / kd.halves
		for q := 0; q < slabs; q++ {
			bK, bN, bHalf = append(bK, 0), append(bN, 64*(q%perHalf)), append(bHalf, q/perHalf)
			bSmem = append(bSmem, q*boxes.B[1]*swizzleAtomBytes)
			bRank = append(bRank, slabRank(q, slabs, bParts))
		}
		v.DescB, err = descHex90(boxes.B[1] * swizzleAtomBytes)
		v.TransB = 1
		v.BLoadFunc = "sw_load_b_mnmajor"
	default:
		return nil, fmt.Errorf("view: %s: major_b %q: want k or mn", c.Name(), c.MajorB)
	}
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", c.Name(), err)
	}
	v.BK16, v.BLoadK, v.BLoadN, v.BLoadSmem = joinInts(bk16), joinInts(bK), joinInts(bN), joinInts(bSmem)
	v.BLoadRank = joinInts(bRank)
	v.BLoads = bK
	if kd.halves > 1 {
		v.BHalves, v.BLoadHalf = true, joinInts(bHalf)
	}
	v.ReleaseLocalCond = "kClusterSize == 1"
	v.EmptyArrivals *= v.ClusterSize // consumers of every CTA release every stage

	// An epilogue slot holds EpiTensors buffers of one 64x64 sub-tile
	// (8 KB, a multiple of 1024); the kind places its tensors in them.
	sub := lay.EpilogueSlot
	v.EpiSlotBytes = c.EpiTensors() * sub
	if err := kd.apply(v, c, sub); err != nil {
		return nil, err
	}
	v.EpiOff = lay.EpilogueOff
	v.EpiConsumerBytes = lay.Epilogue / c.Consumers()
	v.BarFull, v.BarEmpty = lay.Bars.Full, lay.Bars.Empty
	v.BarEFull, v.BarEEmpty = lay.Bars.EpiFull, lay.Bars.EpiEmpty
	v.BarOrder = lay.Bars.Order

	// wgmma operand lists: N/2 accumulators, then the two descriptors and
	// the scale-d flag.
	n := v.AccPerMB
	regs := make([]string, n)
	ops := make([]string, n)
	for i := 0; i < n; i++ {
		regs[i] = "%" + strconv.Itoa(i)
		ops[i] = fmt.Sprintf(`"+f"(d[%d])`, i)
	}
	v.WgmmaRegList = "{" + strings.Join(regs, ", ") + "}"
	v.WgmmaOperands = strings.Join(ops, ", ")
	v.WgmmaDescAIdx, v.WgmmaDescBIdx, v.WgmmaScaleIdx = n, n+1, n+2

	v.EpiEmptyArrivals, v.EpiFullArrivals, v.EpiGroup, v.ResGroup = 1, 1, epiGroup, 2*epiGroup
	if v.IsBwd {
		v.EpiEmptyArrivals = 4 // one per consumer warp
		// StoreOut above 128 accumulators keeps 32-bit accesses: out's
		// third x4 takes the registers that the x4 addresses need at
		// 128x192 (8 bytes of stack).
		v.EpiMatrix = !v.IsOverlap && !(c.StoreOut && c.WideAccumulator())
	}
	if c.L2KeepOperands {
		v.L2Keep = true
		v.ALoadFunc += "_keep"
		v.BLoadFunc += "_keep"
	}
	v.ProducerStores = v.IsBwd
	v.ConfigLines = configLines(c)
	if err := checkRegisterSplit(v.Threads, v.ProducerRegs, v.ConsumerRegs); err != nil {
		return nil, fmt.Errorf("view: %s: %w", c.Name(), err)
	}
	return v, nil
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

// configLines describes the config for the generated file's header, one
// field per line, in a fixed order.
func configLines(c tiling.Config) []string {
	lines := []string{
		fmt.Sprintf("kernel=%s arch=%s dtype=%s", c.Kernel, c.Arch, c.DType),
		fmt.Sprintf("tile=%dx%dx%d stages=%d cluster=%dx%d", c.TileM, c.TileN, c.TileK, c.Stages, c.ClusterM, c.ClusterN),
		fmt.Sprintf("schedule=%s scheduler=%s raster=%s swizzle_group=%d", c.Schedule, c.Scheduler, c.Raster, c.SwizzleGroup),
		fmt.Sprintf("epilogue=%dx%d epi_stages=%d major_a=%s major_b=%s store_out=%t", c.EpiM, c.EpiN, c.EpiStages, c.MajorA, c.MajorB, c.StoreOut),
	}
	if c.Residual {
		lines = append(lines, "residual=true")
	}
	return lines
}

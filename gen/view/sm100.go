package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// SM100 is the typed, precomputed data of the sm_100a templates: the
// shared skeleton (sm100a_kernel.cuh.tmpl) and the per-kind partials. As
// with SM90, every offset, count and descriptor is computed here; the
// template only substitutes.
//
// Nothing rendered from it has executed: there is no sm_100 GPU here. The
// kernels are compile-verified (ptxas, SASS opcodes) and the layouts are
// checked structurally by tests.
type SM100 struct {
	Name        string
	ConfigLines []string
	ScheduleDoc string

	HangTimeoutMs int
	HangTimeoutNs int64

	// Kernel kind: exactly one switch is true; the skeleton picks the
	// kind's partials by them.
	IsBwd, IsGemm, IsGateUp, IsDown bool
	// NName names the kernel's output-column size parameter: I (bwd_dswiglu,
	// fwd_gateup) or N (gemm, fwd_down).
	NName string
	// RingDoc names the operand ring in the header; Warp2Doc is what warp 2
	// does besides the TMEM allocation; EpiLoadDoc what it loads.
	RingDoc, Warp2Doc, EpiLoadDoc string

	Threads  int
	CTAGroup int  // tcgen05 .cta_group: 1, or 2 for the CTA pair
	TwoCTA   bool // cta_group::2 over a 2x1 cluster
	CLC      bool // cluster-launch-control scheduler (else static persistent)
	// ClusterSync makes the block-wide syncs around setup and teardown
	// cluster barriers (any cluster of more than one CTA).
	ClusterSync bool
	ClusterSize int

	Unpack, Pack string
	TileFunc     string

	// TileN is the MMA N (accumulator columns per tile); TileNOut the
	// output columns one tile covers: TileN, except for fwd_gateup, whose
	// accumulator holds TileN/2 left columns then the TileN/2 matching gate
	// columns. AccColsConst names the kernel constant of the accumulator
	// width (kTileN, or kAccN where it differs from the output tile).
	TileM, TileN, TileK     int
	TileNOut                int
	AccColsConst            string
	RowsPerCTA, TileNPerCTA int
	CTAsPerTile             int
	Stages, EpiStages       int
	K16                     int
	SwizzleGroup            int

	// Shared-memory layout (bytes from the 1024-aligned base), all taken
	// from tiling.Config.Smem.
	StageBytes, BOff, FullTxBytes int
	EpiOff, EpiSlotBytes          int
	EpiSubBytes                   int // one EpiM x EpiN buffer
	EpiGateOff, EpiOutOff         int
	EpiLeftOff                    int // fwd_gateup with StoreOut: the left half of de
	EpiTxBytes                    int
	BarFull, BarEmpty             int
	BarTFull, BarTEmpty           int
	BarEFull, BarEEmpty           int
	BarClcFull, BarClcEmpty       int
	ClcResp, TmemSlot             int

	TmemCols          int
	TmemEmptyArrivals int
	ClcEmptyArrivals  int
	// ClcStages is the depth of the CLC response ring
	// (tiling.Config.CLCDepth): ClcStages full/empty barrier pairs at
	// BarClcFull/BarClcEmpty and as many 16-byte responses at ClcResp.
	ClcStages int
	// PairMask is the tcgen05.commit multicast mask of the CTA pair
	// (cta_group::2): the cluster ranks of the pair, as a hex literal.
	PairMask string

	// Epilogue: NB sub-tiles of EpiN columns per tile, each a 128B-swizzled
	// EpiM x EpiN buffer per tensor, EpiChunks 16-byte chunks per row.
	// EpiLoads: warp 2 TMA-loads an epilogue operand per sub-tile
	// (bwd_dswiglu: de; fwd_down: the residual) into the slot the epilogue
	// rewrites in place. EpiStoreOnly: the epilogue only stores and guards
	// its slots by waiting for the slot's previous TMA store.
	NB, EpiM, EpiN, EpiChunks int
	EpiRowBytes, SwizzleMask  int
	EpiWarp0                  int
	EpiLoads, EpiStoreOnly    bool
	LdCols                    int
	LdRegList, LdOperands     string

	DescA, DescB string // hex literals: descriptor bits without the start address
	IDesc        string // hex literal
	AK16, BK16   string
	// TransA/TransB: the operand is MN-major (transpose bits 15/16 of the
	// instruction descriptor).
	TransA, TransB bool

	ALoads, BLoads []int // only their lengths are used by templates
	ALoadK         string
	// AMNMajor: A is stored [K,M]; load i is the 64-row slab ALoadRow[i].
	AMNMajor       bool
	ALoadRow       string
	ALoadSmem      string
	BLoadK, BLoadN string
	BLoadSmem      string
	BLoadFunc      string
	// BHalves (fwd_gateup): B load i reads the left or the gate half of W,
	// BLoadHalf[i] in {0,1}; the half's first row/column is NName past the
	// left one's. RankNOff is what the odd CTA of a pair adds to its B n
	// coordinate: kTileNPerCTA (its half of the B rows), or NName for
	// fwd_gateup (it loads the gate half).
	BHalves   bool
	BLoadHalf string
	RankNOff  string
	// Params is the kernel's C parameter list, rendered from the
	// manifest's parameter table (cParams).
	Params string

	StoreOut    bool
	FastSigmoid bool   // tanh-based sigmoid (bwd_dswiglu)
	DSwiGLUFn   string // the epilogue function bwd_dswiglu calls
	Residual    bool
}

// Facts of the sm_100a design (tiling/resources.go, ptx.md §B).
const (
	sm100EpiWarp0   = 4   // warps 4-7: warp%4 selects the TMEM lane quarter
	sm100EpiThreads = 128 // one epilogue warpgroup
	sm100RowsPerCTA = 128 // TMEM lanes; M=128 per CTA (1cta M=128, 2cta M=256)
	sm100EpiN       = 64  // one 128-byte swizzle row of 16-bit elements
	// sm100RoleConsumers are the threads of one CTA that read every CLC
	// response besides the MMA thread: scheduler, operand loader,
	// epilogue-operand loader and the epilogue warpgroup.
	sm100RoleConsumers = 3 + sm100EpiThreads
)

// NewSM100 computes the view of the sm_100a kernel of c, of any kind,
// whose launch contract is m: the kernel's name and parameters come from
// m. The shared skeleton (operand ring, schedule, TMEM, scheduler,
// barriers, descriptors) is built here, the kind's operand naming and
// epilogue in sm100Kind (sm100_kinds.go).
func NewSM100(c tiling.Config, m manifest.Manifest) (*SM100, error) {
	name := c.Name()
	params, err := cParams(m.Params)
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", name, err)
	}
	kd, err := sm100KindOf(c)
	if err != nil {
		return nil, err
	}
	if c.TileK%64 != 0 {
		return nil, fmt.Errorf("view: %s: tile_k=%d: must be a multiple of 64 (one 128-byte swizzle atom)", name, c.TileK)
	}
	if c.TileMPerCTA() != sm100RowsPerCTA {
		return nil, fmt.Errorf("view: %s: %d rows per CTA: the sm_100a kernel supports 128 (1cta tile_m=128, 2cta tile_m=256)", name, c.TileMPerCTA())
	}
	if c.EpiM != sm100RowsPerCTA || c.EpiN != sm100EpiN {
		return nil, fmt.Errorf("view: %s: epilogue sub-tile %dx%d: the sm_100a kernel supports %dx%d (one 128-byte swizzle row per TMEM lane)", name, c.EpiM, c.EpiN, sm100RowsPerCTA, sm100EpiN)
	}
	if c.TileN%(sm100EpiN*kd.halves) != 0 {
		return nil, fmt.Errorf("view: %s: tile_n=%d: the sm_100a %s epilogue needs a multiple of %d", name, c.TileN, c.Kernel, sm100EpiN*kd.halves)
	}
	if c.MajorA != tiling.KMajor && c.Kernel != tiling.KernelGEMM {
		return nil, fmt.Errorf("view: %s: major_a %q: %s reads its activation operand K-major only", name, c.MajorA, c.Kernel)
	}
	cluster := c.ClusterM * c.ClusterN
	if cluster < 1 || cluster > 2 {
		return nil, fmt.Errorf("view: %s: cluster %dx%d: the sm_100a kernel supports clusters of 1 or 2 CTAs", name, c.ClusterM, c.ClusterN)
	}
	v := &SM100{
		Name:          m.Name,
		Params:        params,
		HangTimeoutMs: defaultHangTimeoutMs,
		HangTimeoutNs: defaultHangTimeoutMs * 1_000_000,
		Threads:       m.BlockThreads,
		CTAsPerTile:   c.CTAsPerTile(),
		ClusterSize:   cluster,
		ClusterSync:   cluster > 1,
		TileM:         c.TileM,
		TileN:         c.TileN,
		TileNOut:      c.TileN / kd.halves,
		AccColsConst:  "kTileN",
		TileK:         c.TileK,
		RowsPerCTA:    c.TileMPerCTA(),
		TileNPerCTA:   c.TileNPerCTA(),
		RankNOff:      "kTileNPerCTA",
		Stages:        c.Stages,
		EpiStages:     c.EpiStages,
		K16:           c.TileK / 16,
		SwizzleGroup:  c.SwizzleGroup,
		StoreOut:      c.StoreOut,
		FastSigmoid:   c.FastSigmoid,
		DSwiGLUFn:     map[bool]string{false: "sw_dswiglu", true: "sw_dswiglu_tanh"}[c.FastSigmoid],
		EpiWarp0:      sm100EpiWarp0,
		TmemCols:      c.TMEMColumns(),
	}
	v.CTAGroup = v.CTAsPerTile
	v.TwoCTA = v.CTAsPerTile == 2
	switch c.Scheduler {
	case tiling.StaticScheduler:
	case tiling.CLCScheduler:
		v.CLC = true
		v.ClcStages = c.CLCDepth()
		if v.ClcStages < 2 {
			return nil, fmt.Errorf("view: %s: clc ring of %d: need at least 2 responses in flight", name, v.ClcStages)
		}
	default:
		return nil, fmt.Errorf("view: %s: scheduler %q: want static or clc", name, c.Scheduler)
	}
	switch c.DType {
	case tiling.BF16:
		v.Unpack, v.Pack = "sw_unpack_bf16x2", "sw_pack_bf16x2"
	case tiling.FP16:
		v.Unpack, v.Pack = "sw_unpack_f16x2", "sw_pack_f16x2"
	default:
		return nil, fmt.Errorf("view: %s: dtype %q: want bf16 or fp16", name, c.DType)
	}
	switch c.Raster {
	case tiling.RasterN:
		v.TileFunc = "sw_tile_raster_n"
	default:
		v.TileFunc = "sw_tile_raster_m"
	}
	switch c.Schedule {
	case tiling.OneCTA:
		v.ScheduleDoc = fmt.Sprintf("Schedule 1cta: tcgen05.mma.cta_group::1 M=128 N=%d per CTA.", c.TileN)
	case tiling.TwoCTA:
		v.ScheduleDoc = fmt.Sprintf("Schedule 2cta: tcgen05.mma.cta_group::2 M=256 N=%d over the CTA pair; each CTA loads 128 rows of %s and %s, holds 128 rows of the accumulator and runs their epilogue.", c.TileN, kd.aName, kd.bShare(c))
	default:
		return nil, fmt.Errorf("view: %s: schedule %q: sm_100a supports 1cta or 2cta", name, c.Schedule)
	}
	if v.TwoCTA && (c.ClusterM != 2 || c.ClusterN != 1) {
		return nil, fmt.Errorf("view: %s: cluster %dx%d: 2cta needs 2x1", name, c.ClusterM, c.ClusterN)
	}
	if v.TwoCTA {
		// The pair of a tile is CTAsPerTile consecutive cluster ranks
		// starting at an even one (the MMA-issuing CTA); the cluster is
		// exactly one pair, so it starts at rank 0 and the commit's
		// multicast mask is a constant.
		if cluster != v.CTAsPerTile {
			return nil, fmt.Errorf("view: %s: cluster of %d CTAs: the commit mask assumes the cluster is one CTA pair of %d", name, cluster, v.CTAsPerTile)
		}
		v.PairMask = fmt.Sprintf("%#x", (1<<v.CTAsPerTile)-1)
	}
	if v.TmemCols < 2*c.TileN || v.TmemCols > 512 || v.TmemCols&(v.TmemCols-1) != 0 {
		return nil, fmt.Errorf("view: %s: %d TMEM columns: need a power of two in [%d,512]", name, v.TmemCols, 2*c.TileN)
	}

	// ---- operand ring
	rowsA, rowsB := v.RowsPerCTA, v.TileNPerCTA
	atoms := c.TileK / 64
	// The layout is tiling's (Config.Smem), the one the tuner prunes with;
	// the TMA boxes are the manifest's, the ones the host encodes.
	lay := c.Smem()
	v.StageBytes = lay.OperandStage
	v.BOff = lay.OperandB
	boxes, err := manifest.BoxesOf(c)
	if err != nil {
		return nil, err
	}
	// The leader's full barrier receives both CTAs' bytes (ptx.md §B8).
	v.FullTxBytes = v.CTAsPerTile * v.StageBytes

	// A: K-major [M,K], atom a holds k in [64a, 64a+64) for the CTA's rows;
	// MN-major [K,M], slab q holds m in [64q, 64q+64) for TileK k-rows (LBO
	// is the slab stride, SBO 8 k-rows, a k16 step 16 k-rows; ptx.md §B4).
	var ak16, aK, aRow, aSmem []int
	var descA uint64
	switch c.MajorA {
	case tiling.KMajor:
		for k := 0; k < v.K16; k++ {
			ak16 = append(ak16, (k/4)*rowsA*swizzleAtomBytes+(k%4)*32)
		}
		for a := 0; a < atoms; a++ {
			aK = append(aK, 64*a)
			aSmem = append(aSmem, a*rowsA*swizzleAtomBytes)
		}
		descA, err = sm100SmemDesc(0, 16, swizzleRepeat, swizzle128B)
	case tiling.MNMajor:
		if rowsA%64 != 0 {
			return nil, fmt.Errorf("view: %s: %d A rows per CTA: major_a=mn needs a multiple of 64", name, rowsA)
		}
		for k := 0; k < v.K16; k++ {
			ak16 = append(ak16, k*16*swizzleAtomBytes)
		}
		slab := boxes.A[1] * swizzleAtomBytes // one box: TileK k-rows of 64 m
		for q := 0; q < rowsA/64; q++ {
			aK, aRow = append(aK, 0), append(aRow, 64*q)
			aSmem = append(aSmem, q*slab)
		}
		descA, err = sm100SmemDesc(0, uint32(slab), swizzleRepeat, swizzle128B)
		v.TransA, v.AMNMajor = true, true
	default:
		return nil, fmt.Errorf("view: %s: major_a %q: want k or mn", name, c.MajorA)
	}
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", name, err)
	}
	v.DescA = fmt.Sprintf("0x%016x", descA)
	v.AK16, v.ALoadK, v.ALoadRow, v.ALoadSmem = joinInts(ak16), joinInts(aK), joinInts(aRow), joinInts(aSmem)
	v.ALoads = aK

	// B: like A. fwd_gateup's B tile is two halves (left rows of W, then
	// the matching gate rows), each loaded on its own; in a CTA pair each
	// CTA holds one half, so its loads are all half 0 and the odd CTA's n
	// origin is the gate half's (RankNOff).
	loadHalves := kd.halves
	if kd.halves > 1 && v.TwoCTA {
		loadHalves = 1
	}
	var bk16, bK, bN, bSmem, bHalf []int
	var descB uint64
	switch c.MajorB {
	case tiling.KMajor:
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, (k/4)*rowsB*swizzleAtomBytes+(k%4)*32)
		}
		hRows := boxes.B[1] // one box: an atom of one half's rows
		for a := 0; a < atoms; a++ {
			for h := 0; h < loadHalves; h++ {
				bK, bN, bHalf = append(bK, 64*a), append(bN, 0), append(bHalf, h)
				bSmem = append(bSmem, a*rowsB*swizzleAtomBytes+h*hRows*swizzleAtomBytes)
			}
		}
		descB, err = sm100SmemDesc(0, 16, swizzleRepeat, swizzle128B)
		v.BLoadFunc = "sw_load_b_kmajor"
	case tiling.MNMajor:
		if rowsB%(64*loadHalves) != 0 {
			return nil, fmt.Errorf("view: %s: %d B rows per CTA: major_b=mn needs a multiple of %d", name, rowsB, 64*loadHalves)
		}
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, k*16*swizzleAtomBytes)
		}
		slab := boxes.B[1] * swizzleAtomBytes // one box: TileK k-rows of 64 n
		slabs := rowsB / 64
		perHalf := slabs / loadHalves
		for q := 0; q < slabs; q++ {
			bK, bN, bHalf = append(bK, 0), append(bN, 64*(q%perHalf)), append(bHalf, q/perHalf)
			bSmem = append(bSmem, q*slab)
		}
		descB, err = sm100SmemDesc(0, uint32(slab), swizzleRepeat, swizzle128B)
		v.TransB = true
		v.BLoadFunc = "sw_load_b_mnmajor"
	default:
		return nil, fmt.Errorf("view: %s: major_b %q: want k or mn", name, c.MajorB)
	}
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", name, err)
	}
	v.DescB = fmt.Sprintf("0x%016x", descB)
	v.BK16, v.BLoadK, v.BLoadN, v.BLoadSmem = joinInts(bk16), joinInts(bK), joinInts(bN), joinInts(bSmem)
	v.BLoads = bK
	if kd.halves > 1 {
		v.BHalves, v.BLoadHalf = true, joinInts(bHalf)
	}
	idesc, err := sm100InstrDesc(c.DType, v.CTAGroup, c.TileM, c.TileN, v.TransA, v.TransB)
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", name, err)
	}
	v.IDesc = fmt.Sprintf("0x%08x", idesc)

	// ---- epilogue
	v.EpiM, v.EpiN = c.EpiM, c.EpiN
	v.NB = v.TileNOut / c.EpiN
	v.EpiRowBytes = c.EpiN * elemBytes
	v.EpiChunks = v.EpiRowBytes / 16
	v.SwizzleMask = swizzleRepeat/swizzleAtomBytes - 1
	v.EpiSubBytes = lay.EpilogueSlot
	v.EpiSlotBytes = c.EpiTensors() * v.EpiSubBytes
	v.LdCols = c.EpiN
	regs := make([]string, v.LdCols)
	ops := make([]string, v.LdCols)
	for i := range regs {
		regs[i] = "%" + strconv.Itoa(i)
		ops[i] = fmt.Sprintf(`"=f"(v[%d])`, i)
	}
	v.LdRegList = "{" + strings.Join(regs, ", ") + "}"
	v.LdOperands = strings.Join(ops, ", ")
	v.TmemEmptyArrivals = sm100EpiThreads * v.CTAsPerTile
	kd.apply(v, c)
	v.EpiStoreOnly = !v.EpiLoads
	// Every CTA's roles read each CLC response: the scheduler, the operand
	// loader, the epilogue-operand loader (kinds with epilogue loads) and
	// the epilogue warpgroup; the MMA thread only where MMAs are issued
	// (the even CTA of a pair).
	roles := sm100RoleConsumers
	if !v.EpiLoads {
		roles--
	}
	v.ClcEmptyArrivals = cluster*roles + cluster/v.CTAsPerTile

	v.EpiOff = lay.EpilogueOff
	b := lay.Bars
	v.BarFull, v.BarEmpty = b.Full, b.Empty
	v.BarTFull, v.BarTEmpty = b.AccFull, b.AccEmpty
	v.BarEFull, v.BarEEmpty = b.EpiFull, b.EpiEmpty
	v.BarClcFull, v.BarClcEmpty, v.ClcResp = b.CLCFull, b.CLCEmpty, b.CLCResponse
	v.TmemSlot = b.TMEMSlot
	v.ConfigLines = configLines(c)
	return v, nil
}

// epiChunkOffset is the byte offset, inside one EpiM x EpiN buffer, of the
// 16-byte chunk j of row r: the template's 128B-swizzle formula
// r*EpiRowBytes + ((j ^ (r & SwizzleMask)) << 4).
func (v *SM100) epiChunkOffset(r, j int) int {
	return r*v.EpiRowBytes + (j^(r&v.SwizzleMask))<<4
}

// epiThreadRow is the tile row (TMEM lane) epilogue thread tid (threadIdx.x)
// owns: 32*(warp%4) + lane, as in the template.
func (v *SM100) epiThreadRow(tid int) int {
	return 32*((tid/32)%4) + tid%32
}

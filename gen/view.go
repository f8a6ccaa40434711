package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// View is the typed, precomputed data a kernel template receives. Every
// offset, byte count and trip count is computed here; templates only
// substitute.
type View struct {
	Name        string
	ConfigLines []string
	Schedule    tiling.Schedule
	ScheduleDoc string

	HangTimeoutMs int
	HangTimeoutNs int64

	Threads      int
	ProducerRegs int
	ConsumerRegs int

	// Element type: the PTX type name and the pack/unpack helpers.
	PTXType string
	Unpack  string
	Pack    string

	TileM, TileN, TileK int
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
	SmemBytes                              int // dynamic smem to request, alignment slack included
	EmptyArrivals                          int

	TileStart, TileStep                    int
	ConsumerRowStride, ConsumerASmemStride int

	DescA, DescB string // hex literals
	AK16, BK16   string // comma-separated constant arrays
	AMB          string
	TransB       int

	ALoads, BLoads      []int // only their lengths are used by templates
	ALoadK, ALoadSmem   string
	ALoadRow, ALoadRank string // rank -1: every CTA loads its own; r: CTA r multicasts
	BLoadK, BLoadN      string
	BLoadSmem           string
	BLoadRank           string
	BLoadFunc, TmapBDoc string

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

	// Debug variants (tiling.Debug): 0 or 1 each.
	DbgHang, DbgNoEpi, DbgNoMma int
}

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

// descBits encodes the fixed fields of a Hopper wgmma shared-memory matrix
// descriptor (ptx.md §A2): 128B swizzle in bits 62-63, LBO and SBO (each
// >>4) in bits 16-29 and 32-45. The start address is OR-ed in at run time.
func descBits(lbo, sbo int) uint64 {
	return 1<<62 | uint64(sbo>>4)<<32 | uint64(lbo>>4)<<16
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// newSM90View computes the view of a bwd_dswiglu sm_90a kernel.
func newSM90View(c tiling.Config) (*View, error) {
	if c.TileK%64 != 0 {
		return nil, fmt.Errorf("gen: %s: tile_k=%d: must be a multiple of 64 (one 128-byte swizzle atom)", c.Name(), c.TileK)
	}
	if c.EpiM != epiSubRows || c.EpiN != epiSubCols {
		return nil, fmt.Errorf("gen: %s: epilogue sub-tile %dx%d: sm_90a supports 64x64", c.Name(), c.EpiM, c.EpiN)
	}
	if ok, why := tiling.Implemented(c); !ok {
		return nil, fmt.Errorf("gen: %s: %s", c.Name(), why)
	}
	v := &View{
		Name:          c.Name(),
		Schedule:      c.Schedule,
		HangTimeoutMs: defaultHangTimeoutMs,
		HangTimeoutNs: defaultHangTimeoutMs * 1_000_000,
		Threads:       384,
		ProducerRegs:  40,
		ConsumerRegs:  232,
		TileM:         c.TileM, TileN: c.TileN, TileK: c.TileK,
		Stages: c.Stages, EpiStages: c.EpiStages,
		SwizzleGroup: c.SwizzleGroup,
		StoreOut:     c.StoreOut,
	}
	switch c.DType {
	case tiling.BF16:
		v.PTXType, v.Unpack, v.Pack = "bf16", "sw_unpack_bf16x2", "sw_pack_bf16x2"
	case tiling.FP16:
		v.PTXType, v.Unpack, v.Pack = "f16", "sw_unpack_f16x2", "sw_pack_f16x2"
	default:
		return nil, fmt.Errorf("gen: %s: dtype %q: want bf16 or fp16", c.Name(), c.DType)
	}
	switch c.Raster {
	case tiling.RasterN:
		v.TileFunc = "sw_tile_raster_n"
	default:
		v.TileFunc = "sw_tile_raster_m"
	}
	rows := c.TileM // rows per consumer warpgroup
	switch c.Schedule {
	case tiling.Cooperative:
		rows = c.TileM / 2
		v.TileStart, v.TileStep = 0, 1
		v.ConsumerRowStride = rows
		v.ConsumerASmemStride = rows * swizzleAtomBytes
		v.EmptyArrivals = 8 // lane 0 of each of the 8 consumer warps
		v.ScheduleDoc = "both consumers work on every tile, consumer c on rows [c*TileM/2, (c+1)*TileM/2)."
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
		return nil, fmt.Errorf("gen: %s: schedule %q: sm_90a supports cooperative or pingpong", c.Name(), c.Schedule)
	}
	if rows%64 != 0 {
		return nil, fmt.Errorf("gen: %s: %d rows per consumer: must be a multiple of 64 (wgmma M)", c.Name(), rows)
	}
	v.MB = rows / 64
	v.NB = (c.TileN + epiSubCols - 1) / epiSubCols
	if c.TileN%epiSubCols != 0 {
		return nil, fmt.Errorf("gen: %s: tile_n=%d: the sm_90a epilogue needs a multiple of 64", c.Name(), c.TileN)
	}
	v.K16 = c.TileK / 16
	v.AccPerMB = c.TileN / 2

	atoms := c.TileK / 64
	aBytes := c.TileM * c.TileK * elemBytes
	bBytes := c.TileN * c.TileK * elemBytes
	v.StageBytes = aBytes + bBytes
	v.StageTxBytes = aBytes + bBytes
	v.BOff = aBytes

	v.ClusterM, v.ClusterN, v.ClusterSize = c.ClusterM, c.ClusterN, c.ClusterM*c.ClusterN
	if c.ClusterM == 2 {
		v.RankM = 1
	}
	if c.ClusterN == 2 {
		v.RankN = 1
	}
	v.McMask = 1<<v.ClusterSize - 1

	// A (dy [M,K], K-major): atom a holds k in [64a, 64a+64) for TileM
	// rows. A 1x2 cluster shares A: CTA r loads rows [r*TileM/2, ...) of
	// each atom and multicasts them.
	var ak16, amb, aK, aSmem, aRow, aRank []int
	for k := 0; k < v.K16; k++ {
		ak16 = append(ak16, (k/4)*c.TileM*swizzleAtomBytes+(k%4)*32)
	}
	for mb := 0; mb < v.MB; mb++ {
		amb = append(amb, mb*64*swizzleAtomBytes)
	}
	aParts := c.ClusterN // 1, or 2 when A is shared
	for a := 0; a < atoms; a++ {
		for r := 0; r < aParts; r++ {
			rows := c.TileM / aParts
			aK = append(aK, 64*a)
			aRow = append(aRow, r*rows)
			aSmem = append(aSmem, a*c.TileM*swizzleAtomBytes+r*rows*swizzleAtomBytes)
			aRank = append(aRank, map[bool]int{true: r, false: -1}[aParts > 1])
		}
	}
	v.DescA = fmt.Sprintf("0x%016x", descBits(16, swizzleRepeat))
	v.AK16, v.AMB, v.ALoadK, v.ALoadSmem = joinInts(ak16), joinInts(amb), joinInts(aK), joinInts(aSmem)
	v.ALoadRow, v.ALoadRank = joinInts(aRow), joinInts(aRank)
	v.ALoads = aK

	// B: a 2x1 cluster shares it; CTA r loads its share and multicasts.
	bParts := c.ClusterM
	var bk16, bK, bN, bSmem, bRank []int
	switch c.MajorB {
	case tiling.KMajor:
		// W_down [I,K]: like A, atom a holds k in [64a, 64a+64) for TileN
		// rows; a share is TileN/2 consecutive rows.
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, (k/4)*c.TileN*swizzleAtomBytes+(k%4)*32)
		}
		rows := c.TileN / bParts
		for a := 0; a < atoms; a++ {
			for r := 0; r < bParts; r++ {
				bK, bN = append(bK, 64*a), append(bN, r*rows)
				bSmem = append(bSmem, a*c.TileN*swizzleAtomBytes+r*rows*swizzleAtomBytes)
				bRank = append(bRank, map[bool]int{true: r, false: -1}[bParts > 1])
			}
		}
		v.DescB = fmt.Sprintf("0x%016x", descBits(16, swizzleRepeat))
		v.TransB = 0
		v.BLoadFunc = "sw_load_b_kmajor"
		v.TmapBDoc = fmt.Sprintf("W_down [I,K] (K-major), box {64, %d}, 128B swizzle", rows)
	case tiling.MNMajor:
		// W_down [K,I]: slab q holds n in [64q, 64q+64) for TileK k-rows;
		// LBO is the slab stride, a k16 step is 16 k-rows. A share is half
		// the slabs.
		for k := 0; k < v.K16; k++ {
			bk16 = append(bk16, k*16*swizzleAtomBytes)
		}
		slabs := c.TileN / 64
		for q := 0; q < slabs; q++ {
			bK, bN = append(bK, 0), append(bN, 64*q)
			bSmem = append(bSmem, q*c.TileK*swizzleAtomBytes)
			bRank = append(bRank, map[bool]int{true: q / (slabs / bParts), false: -1}[bParts > 1])
		}
		v.DescB = fmt.Sprintf("0x%016x", descBits(c.TileK*swizzleAtomBytes, swizzleRepeat))
		v.TransB = 1
		v.BLoadFunc = "sw_load_b_mnmajor"
		v.TmapBDoc = fmt.Sprintf("W_down [K,I] (MN-major), box {64, %d}, 128B swizzle", c.TileK)
	default:
		return nil, fmt.Errorf("gen: %s: major_b %q: want k or mn", c.Name(), c.MajorB)
	}
	v.BK16, v.BLoadK, v.BLoadN, v.BLoadSmem = joinInts(bk16), joinInts(bK), joinInts(bN), joinInts(bSmem)
	v.BLoadRank = joinInts(bRank)
	v.BLoads = bK
	v.EmptyArrivals *= v.ClusterSize // consumers of every CTA release every stage

	sub := epiSubRows * epiSubCols * elemBytes // 8 KB, a multiple of 1024
	v.EpiGateOff = sub
	v.EpiSlotBytes = 2 * sub
	if c.StoreOut {
		v.EpiOutOff = 2 * sub
		v.EpiSlotBytes = 3 * sub
	}
	v.EpiTxBytes = 2 * sub
	// Offsets come from tiling's resource model, so the layout emitted is
	// the one the tuner prunes with.
	lay := c.Smem()
	if lay.OperandStage != v.StageBytes || lay.EpilogueSlot != sub {
		return nil, fmt.Errorf("gen: %s: layout disagrees with tiling.Smem (stage %d vs %d, slot %d vs %d)", c.Name(), v.StageBytes, lay.OperandStage, sub, lay.EpilogueSlot)
	}
	v.EpiOff = lay.EpilogueOff
	v.EpiConsumerBytes = c.EpiStages * v.EpiSlotBytes
	v.BarFull = lay.BarrierOffset
	v.BarEmpty = v.BarFull + 8*c.Stages
	v.BarEFull = v.BarFull + 16*c.Stages
	v.BarEEmpty = v.BarEFull + 8*2*c.EpiStages
	v.BarOrder = v.BarEEmpty + 8*2*c.EpiStages
	if v.EpiOff+2*v.EpiConsumerBytes != lay.BarrierOffset || v.BarOrder+16 > lay.BarrierOffset+lay.Barriers {
		return nil, fmt.Errorf("gen: %s: epilogue/barrier layout disagrees with tiling.Smem", c.Name())
	}
	v.SmemBytes = lay.Total

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

	switch c.Debug {
	case tiling.DebugNone:
	case tiling.DebugHang:
		v.DbgHang = 1
	case tiling.DebugNoEpilogue:
		v.DbgNoEpi = 1
	case tiling.DebugNoMainloop:
		v.DbgNoMma = 1
	default:
		return nil, fmt.Errorf("gen: %s: debug %q: unknown variant", c.Name(), c.Debug)
	}
	v.ConfigLines = configLines(c)
	return v, nil
}

// configLines describes the config for the generated file's header, one
// field per line, in a fixed order.
func configLines(c tiling.Config) []string {
	lines := []string{
		fmt.Sprintf("kernel=%s arch=%s dtype=%s", c.Kernel, c.Arch, c.DType),
		fmt.Sprintf("tile=%dx%dx%d stages=%d cluster=%dx%d", c.TileM, c.TileN, c.TileK, c.Stages, c.ClusterM, c.ClusterN),
		fmt.Sprintf("schedule=%s scheduler=%s raster=%s swizzle_group=%d", c.Schedule, c.Scheduler, c.Raster, c.SwizzleGroup),
		fmt.Sprintf("epilogue=%dx%d epi_stages=%d major_a=%s major_b=%s store_out=%t", c.EpiM, c.EpiN, c.EpiStages, c.MajorA, c.MajorB, c.StoreOut),
	}
	if c.Debug != tiling.DebugNone {
		lines = append(lines, fmt.Sprintf("DEBUG VARIANT %q: test/measurement only, results are wrong by design", c.Debug))
	}
	return lines
}

package tiling

import (
	"slices"
	"strings"
)

// spaceStages are the operand-ring depths the sm_90a Space tries.
var spaceStages = []int{3, 4, 5, 6}

// Space returns the tuning space of kernel k on arch a for type d: valid
// configs that the generator implements (see Implemented), with default
// majors and epilogue, sorted by Name. It is kept to tens of configs so a
// sweep stays cheap. Unknown kernel, arch or dtype, or a kernel without a
// template, gives nil.
//
// The hardware-legal candidates are:
//
// sm_90a: pingpong TileM 64/128 and cooperative TileM 128/256, TileN
// 64..256 in steps of 64 where the accumulator fits the register budget,
// TileK 64, clusters 1x1, 2x1, 1x2, and for each tile the two deepest
// operand rings of {3,4,5,6} that fit (deeper rings beyond what fits buy
// nothing; one fewer leaves room to compare); for bwd_dswiglu also the
// overlap schedule at 128x128 and 128x192, cluster 1x1; next to each
// ping-pong 128-row tile on cluster 1x1, the other tile orders the kind's
// rules give it (ruleOrders): for fwd_gateup inference ping-pong 128x128
// in raster n, group 4, for bwd_dswiglu ping-pong 128x128 and 128x192 in
// raster n, group 2 or 4, with the operands kept in L2 (_l2k), also with
// StoreOut at 128x128. A kind may have its own list instead
// (KindSpec.sm90Cands; gemm's gemmCands: the tiles, clusters, orders and
// stream-K that win some step GEMM).
//
// sm_100a: 1cta 128 x {64,128,256} with clusters 1x1, 2x1, 1x2; 2cta 256 x
// {128,256} on the 2x1 pair; the operand ring as deep as shared memory
// allows (TMEM double-buffering already hides the epilogue, so depth is
// the only lever); static and CLC schedulers.
//
// Space drops the candidates that Implemented rejects (today: fwd_gateup
// tiles not a multiple of 128 wide, and sm_90a clusters sharing an
// MN-major operand) rather than leaving them out of the enumeration, so
// that implementing a feature in the generator and in Implemented brings
// its configs back with no change here. (sm_90a clusters run at ~1x since
// the cross-CTA stage release uses a cluster-scope arrive, and win some
// gemm shapes: docs/PERFORMANCE.md#clusters-multicast.)
func Space(k Kernel, a Arch, d DType) []Config {
	return implementedOnly(legalSpace(k, a, d, false))
}

// SpaceStoreOut is Space with StoreOut set on every config: bwd_dswiglu
// also stores out, fwd_gateup also stores de (training). The second
// output's epilogue buffers take shared memory, so each tile gets the two
// deepest operand rings that fit with them. Kinds without a second output
// (gemm, fwd_down) give nil.
func SpaceStoreOut(k Kernel, a Arch, d DType) []Config {
	if !spec(k).StoreOut {
		return nil
	}
	return implementedOnly(legalSpace(k, a, d, true))
}

// implementedOnly keeps the configs of cs that pass Check.
func implementedOnly(cs []Config) []Config {
	var out []Config
	for _, c := range cs {
		if legality(c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// legalSpace is Space (with storeOut: SpaceStoreOut) before the
// Implemented filter: every candidate that Validate accepts, sorted by
// Name.
func legalSpace(k Kernel, a Arch, d DType, storeOut bool) []Config {
	if !slices.Contains(AllKernels(), k) || !slices.Contains(DTypes(), d) || (k.Grouped() && spec(k).sm90Cands == nil) {
		return nil
	}
	base := Config{Kernel: k, Arch: a, DType: d, TileK: 64, StoreOut: storeOut}
	if spec(k).ExpertsAlongK {
		base.MajorB = MNMajor // the one major groupedBwdImplemented takes
	}
	var cands []Config
	switch {
	case a == ArchSM90a && spec(k).sm90Cands != nil:
		cands = ownSpace(base, spec(k).sm90Cands)
	case a == ArchSM90a:
		cands = append(sm90TileCandidates(base), sm90OverlapCandidates(base)...)
		cands = append(cands, decodeSK(base)...)
	case a == ArchSM100a:
		cands = sm100Candidates(base)
	default:
		return nil
	}
	var out []Config
	for _, c := range cands {
		c = c.WithDefaults()
		if c.Validate() == nil {
			out = append(out, c)
		}
	}
	sortByName(out)
	return out
}

// sm90TileCandidates is Space's sm_90a enumeration on base (kind, arch,
// dtype, mode): each schedule's tiles and clusters at the two deepest
// operand rings that fit, and next to each ping-pong 128-row tile on
// cluster 1x1 the other tile orders the kind's rules give it
// (ruleOrders).
func sm90TileCandidates(base Config) []Config {
	orders := ruleOrders(base.Kernel, base.DType, base.StoreOut)
	tiles := []struct {
		s Schedule
		m int
	}{{PingPong, 64}, {PingPong, 128}, {Cooperative, 128}, {Cooperative, 256}}
	stages := spaceStages
	if base.StoreOut {
		// The second output's buffers can leave room for only two operand
		// stages (128x256 with de): keep such tiles in the space, measured
		// and ranked.
		stages = append([]int{2}, spaceStages...)
	}
	var out []Config
	for _, t := range tiles {
		for _, n := range []int{64, 128, 192, 256} {
			for _, cl := range [][2]int{{1, 1}, {2, 1}, {1, 2}} {
				c := base
				c.Schedule, c.TileM, c.TileN = t.s, t.m, n
				c.ClusterM, c.ClusterN = cl[0], cl[1]
				c = c.WithDefaults()
				if c.AccRegsPerThread() > accBudget(base.Arch, t.s) {
					continue
				}
				fit := 0
				for _, s := range stages {
					c.Stages = s
					if c.Validate() == nil {
						fit = s
					}
				}
				for _, s := range []int{fit, fit - 1} {
					if !slices.Contains(stages, s) {
						continue
					}
					c.Stages = s
					out = append(out, c)
					if t.s == PingPong && t.m == 128 && cl == [2]int{1, 1} {
						for _, o := range orders[n] {
							out = append(out, o.on(c))
						}
					}
				}
			}
		}
	}
	return out
}

// decodeSK is the decode candidates of an inference kind (KindSpec.Decode)
// without its own list (the tiles gemmCands also lists): ping-pong 64x128,
// 64x256 and 128x128 on cluster 1x1 under stream-K, each at the deepest
// ring that fits (8, 4 and 6 stages), without StoreOut. Where M fits one or
// two tiles the output has too few tiles to give every SM one, so only a
// split along K pulls the weight through every SM; a 64-row tile wastes no
// wgmma rows at M <= 64 and halves the partial sums' bytes, a 128-row one
// reads each weight k-block once at M = 128 (docs/PERFORMANCE.md#decode).
func decodeSK(base Config) []Config {
	if !spec(base.Kernel).Decode || base.StoreOut {
		return nil
	}
	var out []Config
	for _, t := range [][2]int{{64, 128}, {64, 256}, {128, 128}} {
		c := base
		c.Schedule, c.TileM, c.TileN, c.ClusterM, c.ClusterN = PingPong, t[0], t[1], 1, 1
		c.Scheduler = StreamKScheduler
		c = c.WithDefaults()
		c.Stages = c.MaxStages()
		out = append(out, c)
	}
	return out
}

// tileOrder is a tile walk: raster, swizzle group and the operands' L2
// policy.
type tileOrder struct {
	raster Raster
	group  int
	l2Keep bool
}

// on is c walked in order o.
func (o tileOrder) on(c Config) Config {
	c.Raster, c.SwizzleGroup, c.L2KeepOperands = o.raster, o.group, o.l2Keep
	return c
}

// ruleOrders are the tile orders other than the default that kind k's
// sm_90a rules (ruleConfig, over every RuleFacts) give a ping-pong
// 128-row tile on cluster 1x1 in mode storeOut, by tile width: the space
// measures each next to the default order, so tune can confirm or refute
// the rules (today fwd_gateup inference's gateUpInferenceGroup and
// bwd_dswiglu's L2-kept operands, l2KeepMaxWeightBytes).
func ruleOrders(k Kernel, d DType, storeOut bool) map[int][]tileOrder {
	orders := map[int][]tileOrder{}
	for _, f := range allRuleFacts() {
		c, err := ruleConfig(k, ArchSM90a, d, storeOut, f)
		if err != nil || c.Schedule != PingPong || c.TileM != 128 || c.ClusterM*c.ClusterN != 1 {
			continue
		}
		o := tileOrder{c.Raster, c.SwizzleGroup, c.L2KeepOperands}
		if o == (tileOrder{DefaultRaster, DefaultSwizzleGroup, false}) || slices.Contains(orders[c.TileN], o) {
			continue
		}
		orders[c.TileN] = append(orders[c.TileN], o)
	}
	return orders
}

// sm90OverlapCandidates is the overlap schedule of the kinds that have it
// (KindSpec.Overlap) without StoreOut, the only mode it implements:
// 128x128 and 128x192, cluster 1x1, at the two deepest rings. 128x256
// spills (accumulators plus the pending tile's dout), and its clusters
// measured slower than 1x1 (docs/PERFORMANCE.md#clusters-multicast).
func sm90OverlapCandidates(base Config) []Config {
	if !spec(base.Kernel).Overlap || base.StoreOut {
		return nil
	}
	var out []Config
	for _, n := range []int{128, 192} {
		c := base
		c.Schedule, c.TileM, c.TileN, c.ClusterM, c.ClusterN = Overlap, 128, n, 1, 1
		c = c.WithDefaults()
		for _, st := range []int{c.MaxStages(), c.MaxStages() - 1} {
			if slices.Contains(spaceStages, st) {
				c.Stages = st
				out = append(out, c)
			}
		}
	}
	return out
}

// sm100Candidates is Space's sm_100a enumeration on base: 1cta 128 x
// {64,128,256} on clusters 1x1, 2x1, 1x2 and 2cta 256 x {128,256} on the
// pair, each with the static and CLC schedulers (stream-K is sm_90a only)
// at the deepest ring.
func sm100Candidates(base Config) []Config {
	var cands []Config
	for _, n := range []int{64, 128, 256} {
		for _, cl := range [][2]int{{1, 1}, {2, 1}, {1, 2}} {
			c := base
			c.Schedule, c.TileM, c.TileN = OneCTA, 128, n
			c.ClusterM, c.ClusterN = cl[0], cl[1]
			cands = append(cands, c)
		}
	}
	for _, n := range []int{128, 256} {
		c := base
		c.Schedule, c.TileM, c.TileN = TwoCTA, 256, n
		c.ClusterM, c.ClusterN = 2, 1
		cands = append(cands, c)
	}
	var out []Config
	for _, c := range cands {
		for _, sch := range []Scheduler{StaticScheduler, CLCScheduler} {
			c.Scheduler = sch
			c = c.WithDefaults()
			c.Stages = c.MaxStages()
			out = append(out, c)
		}
	}
	return out
}

func sortByName(cs []Config) {
	slices.SortFunc(cs, func(a, b Config) int { return strings.Compare(a.Name(), b.Name()) })
}

// Catalog returns the configs that CI compiles: a small representative
// subset per arch for bwd_dswiglu in bf16, a smaller one in fp16 (the type
// only changes conversions), on sm_90a two bf16 configs and one fp16
// config of each of gemm, fwd_gateup and fwd_down, and on sm_100a two bf16
// configs of each of those (one 1cta, one 2cta; compile-verified only, no
// sm_100 GPU has run them). Each compile takes seconds, so keep it small.
// Sorted by Name. Each kind's list is its descriptor's (KindSpec.catalog
// in tiling/kinds.go).
//
// It lists only configs that pass Check (valid and implemented), since
// CI renders and compiles every one of them: on sm_90a only cluster 1x1
// (both schedules, both B majors, StoreOut once, an MN-major A, a
// residual), on sm_100a bwd_dswiglu with both schedules, clusters 1x1 /
// 2x1 / 1x2, both B majors, StoreOut once and CLC, and the other kinds
// with both schedules, an MN-major A, both fwd_gateup B-tile paths (both
// halves in one CTA, one half per CTA of a pair) and a residual.
func Catalog() []Config {
	var out []Config
	for _, c := range catalogCandidates() {
		if legality(c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// catalogCandidates is the catalog before the Implemented filter, sorted by
// Name: every kind's list (KindSpec.catalog). Its entries should all be
// implemented: a test checks that the filter drops none, so the lists say
// exactly what CI compiles.
func catalogCandidates() []Config {
	var out []Config
	for _, sp := range kinds {
		k := sp.Kernel
		for _, e := range sp.catalog {
			dts := []DType{BF16}
			if e.fp16 {
				dts = append(dts, FP16)
			}
			for _, d := range dts {
				c := Config{
					Kernel: k, Arch: e.a, DType: d, Schedule: e.s,
					TileM: e.m, TileN: e.n, TileK: 64, ClusterM: e.cm, ClusterN: e.cn,
					MajorA: e.majorA, MajorB: e.majorB, StoreOut: e.storeOut, Residual: e.residual, Scheduler: e.scheduler,
				}.WithDefaults()
				c.Stages = c.MaxStages()
				out = append(out, c)
			}
		}
	}
	sortByName(out)
	return out
}

// catalogEntry is one config of a kind's catalog list (KindSpec.catalog):
// TileK 64, the deepest operand ring that fits, the other knobs at their
// defaults, in bf16 and with fp16 also in fp16.
type catalogEntry struct {
	a         Arch
	s         Schedule
	m, n      int
	cm, cn    int
	majorA    Major
	majorB    Major
	storeOut  bool
	residual  bool
	scheduler Scheduler
	fp16      bool // also in fp16
}

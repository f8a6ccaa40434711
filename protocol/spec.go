package protocol

import (
	"errors"
	"fmt"
)

// Arch is the target a Spec describes.
type Arch string

// The targets.
const (
	SM90a  Arch = "sm_90a"
	SM100a Arch = "sm_100a"
)

// Schedule names of the sm_90a consumers (tiling.Schedule values).
const (
	PingPong    = "pingpong"
	Cooperative = "cooperative"
	Overlap     = "overlap"
)

// Parity is how the rendered code computes a wait's parity from the
// counter the role keeps for that barrier (it, e, acc, ci, ...):
// ((n / Div) & 1) ^ Xor. The model derives what each wait means from the
// role's own counters, so a Div or Xor that disagrees with the ring depth
// or the intent shows up as a wait that returns on the wrong phase or
// never.
type Parity struct{ Div, Xor int }

func (p Parity) of(n int) int { return (n/p.Div)&1 ^ p.Xor }

// Spec is a kernel's barrier protocol: every number the rendered code's
// mbarrier operations use (init counts, ring depths, expect-tx bytes, the
// parity formulas) and who arrives where. fromview.ProtocolSpec builds it from
// the view the templates render; the role programs of this package follow
// the templates' control flow.
type Spec struct {
	Name string
	Arch Arch

	// TileM and TileN are the output rows and columns of one scheduled
	// tile (the pair's tile on sm_100a 2-CTA; fwd_gateup's output half);
	// TileK is the K depth of one operand stage.
	TileM, TileN, TileK int
	// SubM and SubN are the epilogue sub-tile: the consumers skip every
	// sub-tile whose first row or column lies past the tensor.
	SubM, SubN int
	// Raster ("m" or "n") and SwizzleGroup are the tile order.
	Raster       string
	SwizzleGroup int
	// ClusterM and ClusterN are the cluster shape in tiles (sm_90a) or
	// CTAs (sm_100a).
	ClusterM, ClusterN int

	Ring Ring
	Epi  Epi
	// Exactly one of SM90 and SM100 is set, by Arch.
	SM90  *SM90
	SM100 *SM100
}

// Ring is the operand ring: Stages full/empty barrier pairs and stages.
type Ring struct {
	Stages int
	// FullInit and EmptyInit are the mbarrier.init counts.
	FullInit, EmptyInit int
	// TxBytes is the expect-tx of one stage fill: what the full barrier's
	// phase waits for (sm_100a 2-CTA: the leader's, both CTAs' bytes).
	TxBytes int
	// StageBytes is one CTA's stage in shared memory: what its loads must
	// fill before a consumer reads it.
	StageBytes int
	// Loads are the TMA loads a CTA issues per stage.
	Loads []Load
	// FullParity and EmptyParity are the parities of the consumers' (MMA
	// issuer's) and the producer's waits, from the iteration counter it.
	FullParity, EmptyParity Parity
}

// Load is one TMA load of a stage.
type Load struct {
	Bytes int
	// Rank (sm_90a clusters): -1, every CTA loads this box for itself; r,
	// CTA r loads it and multicasts it to every CTA of the cluster. On
	// sm_100a every load is the CTA's own (Rank -1), and lands on the
	// pair leader's full barrier.
	Rank int
}

// Epi is the epilogue ring: EpiStages full/empty barrier pairs and slots
// (sm_90a: one ring per consumer warpgroup).
type Epi struct {
	Stages int
	// Loads are the bytes of the epilogue-operand TMA loads of one
	// sub-tile (bwd_dswiglu: de's left and gate; fwd_down: the residual);
	// none for the kinds whose epilogue only stores, which guard their
	// slots with bulk wait_group.read instead of barriers.
	Loads []int
	// FillBytes is the part of a slot the loads fill.
	FillBytes int
	// TxBytes is the loader's expect-tx per slot fill.
	TxBytes             int
	FullInit, EmptyInit int
	// ReleaseArrivals is how many arrivals the epilogue makes on a slot's
	// empty barrier: one per consumer warp (sm_90a bwd_dswiglu), or the
	// one thread that stored the slot.
	ReleaseArrivals int
	// ProducerStores (sm_90a bwd_dswiglu): the loader warp TMA-stores a
	// slot's results before reloading it, and drains the last EpiStages.
	ProducerStores bool
	// StoreLag is N of the store-only epilogue's wait_group.read N before
	// it rewrites a slot.
	StoreLag int
	// FullParity, EmptyParity and DrainParity are the epilogue's wait,
	// the loader's wait, and the loader's drain wait (ProducerStores), all
	// from the sub-tile counter e.
	FullParity, EmptyParity, DrainParity Parity
}

// SM90 is what the sm_90a skeleton adds: the schedule of the two
// consumer warpgroups, their stage releases, the ping-pong order barriers
// and the setmaxnreg split.
type SM90 struct {
	Schedule string
	// Consumer c runs local tiles j = c*TileStart, += TileStep.
	TileStart, TileStep int
	// OrderWait: consumers take turns in the mainloop through the two
	// order barriers (init OrderInit each).
	OrderWait   bool
	OrderInit   int
	OrderParity Parity
	// OrderLead is how many of a tile's k-blocks the consumer has still to
	// issue when it arrives on the partner's order barrier. The template
	// arrives with 0 left: after issuing its last k-block, before the
	// wgmma drain and the release of the last stage (so the partner issues
	// while this consumer drains). A lead of a whole tile lets the partner
	// run a tile ahead.
	OrderLead int
	// ConsumerRowStride is consumer c's first row in a tile (c times it);
	// MB and NB are its 64-row blocks and the tile's sub-tile columns.
	ConsumerRowStride, MB, NB int
	// ReleaseWarps is the arrivals one consumer warpgroup makes per stage
	// release (lane 0 of each warp), on every CTA's barrier if
	// ReleaseAllCTAs (a cluster: each CTA multicasts into the others).
	ReleaseWarps   int
	ReleaseAllCTAs bool
	// OverlapSlices and OverlapSubSlices (schedule overlap): epilogue
	// slices per tile and per sub-tile.
	OverlapSlices, OverlapSubSlices int
	// Threads and the setmaxnreg targets: the producer warpgroup decreases
	// to ProducerRegs, each consumer warpgroup increases to ConsumerRegs,
	// from the pool the launch allocated.
	Threads, ProducerRegs, ConsumerRegs int
	// HangProbe is the hang probe's hook: the producer first waits on a
	// phase that cannot complete (templates/probes/hang.cuh.tmpl). Never
	// set for a product kernel.
	HangProbe bool
	// SharedEpiRing models the ping-pong design reverted in 26b535f: both
	// consumers draw from one epilogue ring of 2*EpiStages slots in tile
	// order, filled by one loader warp. No template renders it; it is kept
	// so the model can show the race the H200 trapped on.
	SharedEpiRing bool
	// StreamKMinKBlocks, above 0, is the stream-K scheduler
	// (tiling.StreamKMinKBlocks): each CTA runs its StreamKItems, the
	// split parts without an epilogue. 0: the static scheduler.
	StreamKMinKBlocks int
	// Grouped is the grouped (MoE) scheduler: the scenario's Counts are
	// the experts' rows, each expert's tiles in turn (GroupedTiles), and
	// a tile's sub-tiles stop at its expert's last row.
	Grouped bool
	// KGrouped is the K-grouped walk (sched_kgrouped_sm90a.sched.tmpl,
	// with Grouped): the scenario's Counts are the experts' tokens, the
	// GEMM's K (sc.K their sum); every expert owns every tile of M x N
	// (KGroupedTiles), a tile's k-blocks are its expert's
	// cdiv(tokens, TileK), none for an empty expert, and the consumer
	// rewrites (zeroes the rows past the expert of) the stage of an
	// expert's ragged last k-block before it reads it.
	KGrouped bool
}

// SM100 is what the sm_100a skeleton adds: the MMA issuer, the TMEM
// accumulator stages, the CTA pair and the CLC scheduler ring.
type SM100 struct {
	// CTAsPerTile is 2 for the CTA pair (cta_group::2), else 1.
	CTAsPerTile int
	// AccStages TMEM accumulator buffers with their full/empty barriers.
	AccStages                 int
	TFullInit, TEmptyInit     int
	TFullParity, TEmptyParity Parity
	// EpiThreads is the epilogue warpgroup: each thread arrives on the
	// leader's accumulator-empty barrier and reads every CLC response.
	EpiThreads int
	// CommitMask is the tcgen05.commit multicast mask of the pair (cluster
	// ranks); 0 without the pair (the commit arrives on the own CTA).
	CommitMask int
	// ProducerDrain: the operand loader waits for the last Stages
	// releases before the CTA may exit, so no commit arrives after it.
	ProducerDrain bool
	// Grouped is the grouped (MoE) walk (sched_grouped_sm100a.sched.tmpl):
	// the scenario's Counts are the experts' rows, each expert's tiles in
	// turn (GroupedTiles); an expert's ragged last sub-tile (not all SubM
	// rows the expert's) is stored row by row from registers, with no bulk
	// group. Store-only kinds (moe_fwd_gateup) then wait until at most
	// RaggedWaitRead bulk groups still read (0); kinds with epilogue loads
	// (moe_bwd_dswiglu) read the loaded slot, rewrite nothing, and free it
	// with RaggedArrivals arrivals on its empty barrier (1: thread 0, after
	// the warpgroup's barrier).
	Grouped        bool
	RaggedWaitRead int
	RaggedArrivals int

	// CLC is the cluster-launch-control scheduler with a response ring of
	// CLCStages slots.
	CLC                           bool
	CLCStages                     int
	CLCFullInit, CLCEmptyInit     int
	CLCTxBytes                    int
	CLCFullParity, CLCEmptyParity Parity
}

// clusterSize is the number of CTAs that share barriers.
func (s *Spec) clusterSize() int { return s.ClusterM * s.ClusterN }

// Validate reports a spec the model cannot run: missing sections,
// non-positive sizes or ring depths. It does not judge the protocol.
func (s *Spec) Validate() error {
	var errs []error
	pos := func(name string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s = %d: must be positive", name, v))
		}
	}
	pos("TileM", s.TileM)
	pos("TileN", s.TileN)
	pos("TileK", s.TileK)
	pos("SubM", s.SubM)
	pos("SubN", s.SubN)
	pos("ClusterM", s.ClusterM)
	pos("ClusterN", s.ClusterN)
	pos("SwizzleGroup", s.SwizzleGroup)
	pos("Ring.Stages", s.Ring.Stages)
	pos("Epi.Stages", s.Epi.Stages)
	for _, p := range []struct {
		name string
		p    Parity
	}{{"Ring.FullParity", s.Ring.FullParity}, {"Ring.EmptyParity", s.Ring.EmptyParity}} {
		pos(p.name+".Div", p.p.Div)
	}
	if len(s.Epi.Loads) > 0 {
		pos("Epi.FullParity.Div", s.Epi.FullParity.Div)
		pos("Epi.EmptyParity.Div", s.Epi.EmptyParity.Div)
		if s.Epi.ProducerStores {
			pos("Epi.DrainParity.Div", s.Epi.DrainParity.Div)
		}
	}
	switch {
	case s.Arch == SM90a && s.SM90 != nil && s.SM100 == nil:
		m := s.SM90
		pos("SM90.TileStep", m.TileStep)
		pos("SM90.MB", m.MB)
		pos("SM90.NB", m.NB)
		pos("SM90.Threads", m.Threads)
		if m.OrderWait {
			pos("SM90.OrderParity.Div", m.OrderParity.Div)
		}
		if m.Schedule == Overlap {
			pos("SM90.OverlapSlices", m.OverlapSlices)
			pos("SM90.OverlapSubSlices", m.OverlapSubSlices)
		}
		switch m.Schedule {
		case PingPong, Cooperative, Overlap:
		default:
			errs = append(errs, fmt.Errorf("SM90.Schedule %q: want %s, %s or %s", m.Schedule, PingPong, Cooperative, Overlap))
		}
	case s.Arch == SM100a && s.SM100 != nil && s.SM90 == nil:
		m := s.SM100
		pos("SM100.CTAsPerTile", m.CTAsPerTile)
		pos("SM100.AccStages", m.AccStages)
		pos("SM100.TFullParity.Div", m.TFullParity.Div)
		pos("SM100.TEmptyParity.Div", m.TEmptyParity.Div)
		if m.CTAsPerTile > 1 && s.clusterSize()%m.CTAsPerTile != 0 {
			errs = append(errs, fmt.Errorf("cluster of %d CTAs holds no whole pairs of %d", s.clusterSize(), m.CTAsPerTile))
		}
		if m.CLC {
			pos("SM100.CLCStages", m.CLCStages)
			pos("SM100.CLCFullParity.Div", m.CLCFullParity.Div)
			pos("SM100.CLCEmptyParity.Div", m.CLCEmptyParity.Div)
		}
	default:
		errs = append(errs, fmt.Errorf("arch %q with SM90 set %t, SM100 set %t: want sm_90a with SM90 or sm_100a with SM100", s.Arch, s.SM90 != nil, s.SM100 != nil))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("protocol: spec %s: %w", s.Name, err)
	}
	return nil
}

// Clone returns a deep copy of s, for tests that mutate it.
func (s Spec) Clone() Spec {
	s.Ring.Loads = append([]Load(nil), s.Ring.Loads...)
	s.Epi.Loads = append([]int(nil), s.Epi.Loads...)
	if s.SM90 != nil {
		m := *s.SM90
		s.SM90 = &m
	}
	if s.SM100 != nil {
		m := *s.SM100
		s.SM100 = &m
	}
	return s
}

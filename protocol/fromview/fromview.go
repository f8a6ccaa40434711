// Package fromview builds the barrier-protocol Spec (package protocol) of
// a kernel from the views its templates render (gen/view) and the tensor-map
// boxes its manifest gives. It is the model's only link to the generator, so
// the generator and the swigen binary do not carry the model.
package fromview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/gen/view"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/tiling"
)

// Numbers of the barrier protocol that the templates write as literals
// rather than take from the view.
const (
	// protoSingleInit: barriers one thread (or one commit) completes:
	// every full barrier (the loader's arrive.expect_tx), the ping-pong
	// order barriers, and on sm_100a the operand-empty and
	// accumulator-full barriers (tcgen05.commit's arrive::one) and the
	// epilogue slots' barriers.
	protoSingleInit = 1
	// protoConsumerWarps: lane 0 of each warp of an sm_90a consumer
	// warpgroup arrives when it releases an operand stage (and, in
	// bwd_dswiglu and overlap, an epilogue slot).
	protoConsumerWarps = 4
	// protoCLCTxBytes: the scheduler's sw_mbar_expect_tx(full, 16).
	protoCLCTxBytes = 16
	// protoAccParityDiv: the accumulator parities acc & 1 and acc >> 1 of
	// sm100a_kernel.cuh.tmpl (two TMEM buffers).
	protoAccParityDiv = 2
)

// ProtocolSpec returns the barrier protocol of k's kernel for the
// protocol package's model: init counts, ring depths, expect-tx and TMA
// box bytes, parities and who arrives where, read off the view the
// templates render (NewSM90, NewSM100) and the tensor-map boxes the host
// encodes (the manifest's Boxes). k's legality is tiling.Check's.
func ProtocolSpec(k tiling.Checked) (protocol.Spec, error) {
	m, err := manifest.New(k)
	if err != nil {
		return protocol.Spec{}, err
	}
	switch arch := k.Config().Arch; arch {
	case tiling.ArchSM90a:
		v, err := view.NewSM90(k, m)
		if err != nil {
			return protocol.Spec{}, err
		}
		return sm90ProtocolSpec(v, m.Boxes, k.Config().Scheduler == tiling.GroupedScheduler)
	case tiling.ArchSM100a:
		v, err := view.NewSM100(k, m)
		if err != nil {
			return protocol.Spec{}, err
		}
		return sm100ProtocolSpec(v, m.Boxes, k.Config().Scheduler == tiling.GroupedScheduler)
	default:
		return protocol.Spec{}, fmt.Errorf("protocol spec: arch %s has no protocol spec", arch)
	}
}

// protoLoads are the TMA loads of one stage: each operand's loads, box
// bytes each (elem bytes an element), with their multicast ranks (-1 without a cluster that
// shares the operand, and on sm_100a).
func protoLoads(v view.Operand, box [3]int, elem int) ([]protocol.Load, error) {
	ranks := make([]int, v.Loads)
	for i := range ranks {
		ranks[i] = -1
	}
	if v.Rank != "" {
		var err error
		if ranks, err = protoInts(v.Rank); err != nil {
			return nil, err
		}
	}
	loads := make([]protocol.Load, len(ranks))
	for i, r := range ranks {
		loads[i] = protocol.Load{Bytes: protoBoxBytes(box, elem), Rank: r}
	}
	return loads, nil
}

// sm90ProtocolSpec reads the sm_90a protocol off v: the loads of a stage
// with their multicast ranks, the epilogue's loads and releases, the
// schedule, the cluster-wide releases and the setmaxnreg split.
func sm90ProtocolSpec(v *view.SM90, b manifest.Boxes, grouped bool) (protocol.Spec, error) {
	aLoads, err := protoLoads(v.A, b.A, v.Elem.Bytes)
	if err != nil {
		return protocol.Spec{}, fmt.Errorf("view: %s: A load ranks: %w", v.Name, err)
	}
	bLoads, err := protoLoads(v.B, b.B, v.Elem.Bytes)
	if err != nil {
		return protocol.Spec{}, fmt.Errorf("view: %s: B load ranks: %w", v.Name, err)
	}
	epiLoads, release := protoEpiLoads(v.Kind.Bwd, v.Kind.Down && v.Epi.Loads, b, v.Elem.Bytes), 1
	if v.Kind.Bwd {
		release = protoConsumerWarps // one arrive per consumer warp (and in the overlap slices)
	}
	s, e := v.Sched, v.Epi
	sp := protocol.Spec{
		Name: v.Name, Arch: protocol.SM90a,
		TileM: v.Tile.M, TileN: v.Tile.NOut, TileK: v.Tile.K,
		SubM: view.EpiSubRows, SubN: v.Epi.SubCols,
		Raster: protoRaster(v.Tile.Func), SwizzleGroup: v.Tile.SwizzleGroup,
		ClusterM: v.Cluster.M, ClusterN: v.Cluster.N,
		Ring: protocol.Ring{
			Stages: v.Ring.Stages, FullInit: protoSingleInit, EmptyInit: v.Ring.EmptyArrivals,
			TxBytes: v.Ring.TxBytes, StageBytes: v.Smem.OperandStage, Loads: append(aLoads, bLoads...),
			FullParity:  protocol.Parity{Div: v.Ring.Stages},
			EmptyParity: protocol.Parity{Div: v.Ring.Stages, Xor: 1},
		},
		Epi: protocol.Epi{
			Stages: e.Stages, Loads: epiLoads, FillBytes: len(epiLoads) * v.Smem.EpilogueSlot, TxBytes: e.TxBytes,
			FullInit: e.FullArrivals, EmptyInit: e.EmptyArrivals, ReleaseArrivals: release,
			ProducerStores: e.ProducerStores, StoreLag: e.Stages - 1,
			FullParity:  protocol.Parity{Div: e.Stages},
			EmptyParity: protocol.Parity{Div: e.Stages, Xor: 1},
			DrainParity: protocol.Parity{Div: e.Stages},
		},
		SM90: &protocol.SM90{
			Schedule: string(s.Name), TileStart: s.TileStart, TileStep: s.TileStep,
			OrderWait: s.OrderWait == 1, OrderInit: protoSingleInit, OrderParity: protocol.Parity{Div: 1},
			ConsumerRowStride: s.ConsumerRows, MB: v.Wgmma.MB, NB: v.Tile.NB,
			// sw_release_stage arrives in the own CTA under
			// ReleaseLocalCond, else on every CTA's copy.
			ReleaseWarps: protoConsumerWarps, ReleaseAllCTAs: v.Cluster.ReleaseLocalCond == "kClusterSize == 1" && v.Cluster.Size > 1,
			Threads: s.Threads, ProducerRegs: s.ProducerRegs, ConsumerRegs: s.ConsumerRegs,
			StreamKMinKBlocks: v.Scheduler.MinKBlocks,
			Grouped:           grouped,
			KGrouped:          v.Scheduler.TokenK,
		},
	}
	if s.Overlap.On {
		// kSubSlices = 16 / kSliceFrags: 16 fragments per 64x64 sub-tile.
		sp.SM90.OverlapSlices, sp.SM90.OverlapSubSlices = s.Overlap.Slices, 16/s.Overlap.Frags
	}
	return sp, nil
}

// sm100ProtocolSpec reads the sm_100a protocol off v: each CTA's loads
// completing on the leader's barrier, the pair's commit mask and
// accumulator release count, the CLC ring and its readers, and (grouped)
// the grouped walk.
func sm100ProtocolSpec(v *view.SM100, b manifest.Boxes, grouped bool) (protocol.Spec, error) {
	aLoads, err := protoLoads(v.A, b.A, v.Elem.Bytes)
	if err != nil {
		return protocol.Spec{}, err
	}
	bLoads, err := protoLoads(v.B, b.B, v.Elem.Bytes)
	if err != nil {
		return protocol.Spec{}, err
	}
	mask := 0
	if v.Pair.TwoCTA {
		m, err := strconv.ParseInt(v.Pair.Mask, 0, 32)
		if err != nil {
			return protocol.Spec{}, fmt.Errorf("view: %s: pair mask %q: %w", v.Name, v.Pair.Mask, err)
		}
		mask = int(m)
	}
	epiLoads, e := protoEpiLoads(v.Kind.Bwd, v.Kind.Down && v.Epi.Loads, b, v.Elem.Bytes), v.Epi
	sp := protocol.Spec{
		Name: v.Name, Arch: protocol.SM100a,
		TileM: v.Tile.M, TileN: v.Tile.NOut, TileK: v.Tile.K,
		SubM: v.Pair.RowsPerCTA, SubN: e.N,
		Raster: protoRaster(v.Tile.Func), SwizzleGroup: v.Tile.SwizzleGroup,
		// The kernel's grid is 1-D: a cluster is Size consecutive CTAs.
		ClusterM: v.Cluster.Size, ClusterN: 1,
		Ring: protocol.Ring{
			Stages: v.Ring.Stages, FullInit: protoSingleInit, EmptyInit: protoSingleInit,
			TxBytes: v.Ring.TxBytes, StageBytes: v.Smem.OperandStage, Loads: append(aLoads, bLoads...),
			FullParity:  protocol.Parity{Div: v.Ring.Stages},
			EmptyParity: protocol.Parity{Div: v.Ring.Stages, Xor: 1},
		},
		Epi: protocol.Epi{
			Stages: e.Stages, Loads: epiLoads, FillBytes: len(epiLoads) * v.Smem.EpilogueSlot, TxBytes: e.TxBytes,
			FullInit: protoSingleInit, EmptyInit: protoSingleInit, ReleaseArrivals: 1,
			StoreLag:    e.Stages - 1,
			FullParity:  protocol.Parity{Div: e.Stages},
			EmptyParity: protocol.Parity{Div: e.Stages, Xor: 1},
		},
		SM100: &protocol.SM100{
			CTAsPerTile: v.Pair.CTAsPerTile, AccStages: tiling.AccStages,
			TFullInit: protoSingleInit, TEmptyInit: v.TMEM.EmptyArrivals,
			TFullParity:  protocol.Parity{Div: protoAccParityDiv},
			TEmptyParity: protocol.Parity{Div: protoAccParityDiv, Xor: 1},
			EpiThreads:   view.SM100EpiThreads, CommitMask: mask, ProducerDrain: true,
			// sched_grouped_sm100a.sched.tmpl; the kind's ragged sub-tile
			// ends with wait_group.read 0 (store-only) or frees its de slot
			// with thread 0's arrive (epilogue loads).
			Grouped: grouped, RaggedWaitRead: 0, RaggedArrivals: 1,
		},
	}
	if s := v.Sched; s.CLC {
		m := sp.SM100
		m.CLC, m.CLCStages = true, s.CLCStages
		m.CLCFullInit, m.CLCEmptyInit, m.CLCTxBytes = protoSingleInit, s.CLCEmptyArrivals, protoCLCTxBytes
		m.CLCFullParity = protocol.Parity{Div: s.CLCStages}
		m.CLCEmptyParity = protocol.Parity{Div: s.CLCStages, Xor: 1}
	}
	return sp, nil
}

// protoEpiLoads are the epilogue-operand TMA loads of one sub-tile, by the
// boxes the host encodes: de's left and gate halves (bwd_dswiglu), or the
// residual (fwd_down).
func protoEpiLoads(de, residual bool, b manifest.Boxes, elem int) []int {
	switch {
	case de:
		return []int{protoBoxBytes(b.De, elem), protoBoxBytes(b.De, elem)}
	case residual:
		return []int{protoBoxBytes(b.Out, elem)}
	}
	return nil
}

// protoBoxBytes is the bytes one TMA box of elem-byte elements moves
// (extents past the map's rank are 0).
func protoBoxBytes(box [3]int, elem int) int {
	n := elem
	for _, e := range box {
		if e > 0 {
			n *= e
		}
	}
	return n
}

// protoRaster is the tile order the view's tile function walks.
func protoRaster(tileFunc string) string {
	if tileFunc == "sw_tile_raster_n" {
		return string(tiling.RasterN)
	}
	return string(tiling.RasterM)
}

// protoInts reads a joinInts list back.
func protoInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

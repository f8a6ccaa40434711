package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/protocol"
	"github.com/swigen/swigen/manifest"
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

// ProtocolSpec returns the barrier protocol of cfg's kernel for
// internal/protocol's model: init counts, ring depths, expect-tx and TMA
// box bytes, parities and who arrives where, read off the view the
// templates render (newSM90View, newSM100View) and the tensor-map boxes
// the host encodes (manifest.BoxesOf).
func ProtocolSpec(cfg tiling.Config) (protocol.Spec, error) {
	boxes, err := manifest.BoxesOf(cfg)
	if err != nil {
		return protocol.Spec{}, err
	}
	switch cfg.Arch {
	case tiling.ArchSM90a:
		v, err := newSM90View(cfg)
		if err != nil {
			return protocol.Spec{}, err
		}
		return sm90ProtocolSpec(cfg, v, boxes)
	case tiling.ArchSM100a:
		v, err := newSM100View(cfg)
		if err != nil {
			return protocol.Spec{}, err
		}
		return sm100ProtocolSpec(v, boxes)
	}
	return protocol.Spec{}, fmt.Errorf("gen: %s: arch %s has no protocol spec", cfg.Name(), cfg.Arch)
}

// sm90ProtocolSpec reads the sm_90a protocol off v: the loads of a stage
// with their multicast ranks, the epilogue's loads and releases, the
// schedule, the cluster-wide releases and the setmaxnreg split.
func sm90ProtocolSpec(cfg tiling.Config, v *View, b manifest.Boxes) (protocol.Spec, error) {
	aRanks, err := protoInts(v.ALoadRank)
	if err != nil {
		return protocol.Spec{}, fmt.Errorf("gen: %s: A load ranks: %w", v.Name, err)
	}
	bRanks, err := protoInts(v.BLoadRank)
	if err != nil {
		return protocol.Spec{}, fmt.Errorf("gen: %s: B load ranks: %w", v.Name, err)
	}
	var loads []protocol.Load
	for _, r := range aRanks {
		loads = append(loads, protocol.Load{Bytes: protoBoxBytes(v.BoxA), Rank: r})
	}
	for _, r := range bRanks {
		loads = append(loads, protocol.Load{Bytes: protoBoxBytes(v.BoxB), Rank: r})
	}
	sub := cfg.Smem().EpilogueSlot
	epiLoads, release := protoEpiLoads(v.IsBwd, v.IsDown && v.EpiLoads, b), 1
	if v.IsBwd {
		release = protoConsumerWarps // one arrive per consumer warp (and in the overlap slices)
	}
	sp := protocol.Spec{
		Name: v.Name, Arch: protocol.SM90a,
		TileM: v.TileM, TileN: v.TileNOut, TileK: v.TileK,
		SubM: epiSubRows, SubN: epiSubCols,
		Raster: protoRaster(v.TileFunc), SwizzleGroup: v.SwizzleGroup,
		ClusterM: v.ClusterM, ClusterN: v.ClusterN,
		Ring: protocol.Ring{
			Stages: v.Stages, FullInit: protoSingleInit, EmptyInit: v.EmptyArrivals,
			TxBytes: v.StageTxBytes, StageBytes: v.StageBytes, Loads: loads,
			FullParity:  protocol.Parity{Div: v.Stages},
			EmptyParity: protocol.Parity{Div: v.Stages, Xor: 1},
		},
		Epi: protocol.Epi{
			Stages: v.EpiStages, Loads: epiLoads, FillBytes: len(epiLoads) * sub, TxBytes: v.EpiTxBytes,
			FullInit: v.EpiFullArrivals, EmptyInit: v.EpiEmptyArrivals, ReleaseArrivals: release,
			ProducerStores: v.ProducerStores, StoreLag: v.EpiStages - 1,
			FullParity:  protocol.Parity{Div: v.EpiStages},
			EmptyParity: protocol.Parity{Div: v.EpiStages, Xor: 1},
			DrainParity: protocol.Parity{Div: v.EpiStages},
		},
		SM90: &protocol.SM90{
			Schedule: string(v.Schedule), TileStart: v.TileStart, TileStep: v.TileStep,
			OrderWait: v.OrderWait == 1, OrderInit: protoSingleInit, OrderParity: protocol.Parity{Div: 1},
			ConsumerRowStride: v.ConsumerRowStride, MB: v.MB, NB: v.NB,
			// sw_release_stage arrives in the own CTA under
			// ReleaseLocalCond, else on every CTA's copy.
			ReleaseWarps: protoConsumerWarps, ReleaseAllCTAs: v.ReleaseLocalCond == "kClusterSize == 1" && v.ClusterSize > 1,
			Threads: v.Threads, ProducerRegs: v.ProducerRegs, ConsumerRegs: v.ConsumerRegs,
		},
	}
	if v.IsOverlap {
		// kSubSlices = 16 / kSliceFrags: 16 fragments per 64x64 sub-tile.
		sp.SM90.OverlapSlices, sp.SM90.OverlapSubSlices = v.OverlapSlices, 16/v.OverlapFrags
	}
	return sp, nil
}

// sm100ProtocolSpec reads the sm_100a protocol off v: each CTA's loads
// completing on the leader's barrier, the pair's commit mask and
// accumulator release count, and the CLC ring and its readers.
func sm100ProtocolSpec(v *SM100View, b manifest.Boxes) (protocol.Spec, error) {
	var loads []protocol.Load
	for range v.ALoads {
		loads = append(loads, protocol.Load{Bytes: protoBoxBytes(v.BoxA), Rank: -1})
	}
	for range v.BLoads {
		loads = append(loads, protocol.Load{Bytes: protoBoxBytes(v.BoxB), Rank: -1})
	}
	mask := 0
	if v.TwoCTA {
		m, err := strconv.ParseInt(v.PairMask, 0, 32)
		if err != nil {
			return protocol.Spec{}, fmt.Errorf("gen: %s: pair mask %q: %w", v.Name, v.PairMask, err)
		}
		mask = int(m)
	}
	epiLoads := protoEpiLoads(v.IsBwd, v.IsDown && v.EpiLoads, b)
	sp := protocol.Spec{
		Name: v.Name, Arch: protocol.SM100a,
		TileM: v.TileM, TileN: v.TileNOut, TileK: v.TileK,
		SubM: v.RowsPerCTA, SubN: v.EpiN,
		Raster: protoRaster(v.TileFunc), SwizzleGroup: v.SwizzleGroup,
		ClusterM: v.ClusterDims[0], ClusterN: v.ClusterDims[1],
		Ring: protocol.Ring{
			Stages: v.Stages, FullInit: protoSingleInit, EmptyInit: protoSingleInit,
			TxBytes: v.FullTxBytes, StageBytes: v.StageBytes, Loads: loads,
			FullParity:  protocol.Parity{Div: v.Stages},
			EmptyParity: protocol.Parity{Div: v.Stages, Xor: 1},
		},
		Epi: protocol.Epi{
			Stages: v.EpiStages, Loads: epiLoads, FillBytes: len(epiLoads) * v.EpiSubBytes, TxBytes: v.EpiTxBytes,
			FullInit: protoSingleInit, EmptyInit: protoSingleInit, ReleaseArrivals: 1,
			StoreLag:    v.EpiStages - 1,
			FullParity:  protocol.Parity{Div: v.EpiStages},
			EmptyParity: protocol.Parity{Div: v.EpiStages, Xor: 1},
		},
		SM100: &protocol.SM100{
			CTAsPerTile: v.CTAsPerTile, AccStages: tiling.AccStages,
			TFullInit: protoSingleInit, TEmptyInit: v.TmemEmptyArrivals,
			TFullParity:  protocol.Parity{Div: protoAccParityDiv},
			TEmptyParity: protocol.Parity{Div: protoAccParityDiv, Xor: 1},
			EpiThreads:   sm100EpiThreads, CommitMask: mask, ProducerDrain: true,
		},
	}
	if v.CLC {
		m := sp.SM100
		m.CLC, m.CLCStages = true, v.ClcStages
		m.CLCFullInit, m.CLCEmptyInit, m.CLCTxBytes = protoSingleInit, v.ClcEmptyArrivals, protoCLCTxBytes
		m.CLCFullParity = protocol.Parity{Div: v.ClcStages}
		m.CLCEmptyParity = protocol.Parity{Div: v.ClcStages, Xor: 1}
	}
	return sp, nil
}

// protoEpiLoads are the epilogue-operand TMA loads of one sub-tile, by the
// boxes the host encodes: de's left and gate halves (bwd_dswiglu), or the
// residual (fwd_down).
func protoEpiLoads(de, residual bool, b manifest.Boxes) []int {
	switch {
	case de:
		return []int{protoBoxBytes(b.De), protoBoxBytes(b.De)}
	case residual:
		return []int{protoBoxBytes(b.Out)}
	}
	return nil
}

// protoBoxBytes is the bytes one TMA box of 16-bit elements moves
// (extents past the map's rank are 0).
func protoBoxBytes(box [3]int) int {
	n := elemBytes
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

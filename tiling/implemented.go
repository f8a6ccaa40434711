package tiling

import "fmt"

// Implemented reports whether the generator (package gen) can render c
// today and, when it cannot, why. It is a statement about swigen's
// templates, not about the hardware: Validate says whether c is legal on its
// arch, Implemented whether swigen has the code for it, so a config can be
// valid yet not implemented (an sm_90a 1x2 cluster with an MN-major A, an
// sm_100a tile_m=64). Space and Catalog return implemented configs only,
// so every config they list renders and compiles.
//
// Implemented assumes c otherwise validates; it does not repeat Validate's
// rules. The reason is a user-facing sentence that names the way out when
// there is one.
func Implemented(c Config) (bool, string) {
	if c.Kernel.Grouped() {
		if ok, why := groupedImplemented(c); !ok {
			return false, why
		}
	}
	if c.Scheduler == StreamKScheduler {
		if ok, why := streamKImplemented(c); !ok {
			return false, why
		}
	}
	switch c.Arch {
	case ArchSM90a:
		// Every kind shares one sm_90a skeleton (templates/cuda/
		// sm90a_kernel.cuh.tmpl) with a per-kind epilogue.
		//
		// Clusters of two CTAs share one operand by TMA multicast (2x1: B,
		// 1x2: A), each CTA loading half of it. An MN-major operand is split
		// by 64-column slabs.
		if c.Schedule == Overlap && (!spec(c.Kernel).Overlap || c.StoreOut) {
			// Experimental: the first version of the schedule runs the plain
			// bwd_dswiglu epilogue only.
			return false, "sm_90a overlap is implemented for bwd_dswiglu without store_out"
		}
		if !spec(c.Kernel).WideAcc && c.WideAccumulator() {
			// Only bwd_dswiglu's ping-pong is measured above 128
			// accumulators (128x192: no spills at 40/232 registers, verified
			// and timed on the H200: docs/PERFORMANCE.md#tile-128x192).
			return false, fmt.Sprintf("sm_90a pingpong with %d accumulator registers per thread (tile %dx%d) is implemented for bwd_dswiglu only; use tile_n <= 128", c.AccRegsPerThread(), c.TileM, c.TileN)
		}
		if c.EpiN != 64 && (!spec(c.Kernel).NarrowEpi || c.Schedule == Overlap || c.StoreOut && c.WideAccumulator()) {
			// 64x32 sub-tiles (a 64-byte swizzle) deepen the de ring at the
			// same shared memory (docs/PERFORMANCE.md#seed-epilogue-levers);
			// only the bwd_dswiglu ldmatrix/stmatrix epilogue has them (wide
			// StoreOut keeps 32-bit accesses and spills with them).
			return false, fmt.Sprintf("sm_90a epilogue sub-tile width epi_n=%d is implemented for bwd_dswiglu pingpong and cooperative only, with store_out up to 128 accumulators; use epi_n=64", c.EpiN)
		}
		if c.EpiPipe && (c.Schedule == Overlap || c.StoreOut || c.EpiN != 32) {
			// The pipelined epilogue holds two sub-tiles' de beside the
			// rounded dout; out's third buffer is not written for it. It
			// waits for the next sub-tile's de before this one's math, one
			// sub-tile after releasing a slot: two 64x64 slots would leave
			// the producer no time to refill (and 128x192 spills 220 bytes
			// with them), the 64x32 ring of 4 leaves it two sub-tiles.
			return false, "sm_90a epi_pipe is implemented for bwd_dswiglu pingpong and cooperative with epi_n=32, without store_out"
		}
		if c.ClusterM*c.ClusterN > 2 {
			return false, fmt.Sprintf("sm_90a cluster %dx%d is not implemented; use 1x1, 2x1 or 1x2", c.ClusterM, c.ClusterN)
		}
		// MN-major operands under clusters need the wgmma descriptors'
		// 14-bit start-address mask: unmasked, the high address bits of a
		// cluster launch land in LBO, which only an MN-major operand
		// stepping to its second 64-column slab uses
		// (docs/PERFORMANCE.md#wgmma-descriptor-mask). With the mask, 2x1
		// and 1x2 with MN-major A and/or B pass verify on the H200.
		if c.TileN%c.EpiN != 0 && (!spec(c.Kernel).RaggedEpi || c.ClusterM*c.ClusterN != 1) {
			// Only the gemm epilogue stores a narrower last sub-tile (as the
			// tile's last 64 columns, overlapping the one before); the
			// kinds with epilogue loads or two halves walk whole sub-tiles.
			return false, fmt.Sprintf("sm_90a tile_n=%d, not a multiple of epi_n=%d, is implemented for gemm with cluster 1x1 only", c.TileN, c.EpiN)
		}
		if spec(c.Kernel).Paired && c.TileN%128 != 0 {
			// The accumulator is [left | gate], each half whole 64-column
			// epilogue sub-tiles.
			return false, fmt.Sprintf("sm_90a fwd_gateup tile_n=%d is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)", c.TileN)
		}
	case ArchSM100a:
		// Every kind shares one sm_100a skeleton (templates/cuda/
		// sm100a_kernel.cuh.tmpl) with a per-kind epilogue. None of it has
		// executed (no sm_100 GPU); it is compile-verified only.
		if c.L2KeepOperands {
			return false, "l2k (the operands' L2 evict_last policy) is implemented for sm_90a only"
		}
		// The sm_100a epilogue maps one TMEM lane to one row, 128 rows per
		// CTA, and streams 64-column sub-tiles (one 128-byte swizzle row per
		// lane). tcgen05 also has M=64 (1cta tile_m=64) and 32-column
		// epilogues are legal, but the template implements neither.
		if c.TileMPerCTA() != 128 {
			return false, fmt.Sprintf("sm_100a tile_m=%d (%d rows per CTA) is not implemented yet; use 1cta tile_m=128 or 2cta tile_m=256", c.TileM, c.TileMPerCTA())
		}
		if c.EpiPipe {
			// The tcgen05 epilogue reads dout from TMEM (tcgen05.ld) sub-tile
			// by sub-tile, so there are no accumulator registers to free by
			// rounding, and its de ring is fed by its own warps.
			return false, "sm_100a epi_pipe is not implemented (the accumulators live in TMEM, not registers)"
		}
		if c.EpiN != 64 {
			return false, fmt.Sprintf("sm_100a epilogue sub-tile width epi_n=%d is not implemented yet; use epi_n=64", c.EpiN)
		}
		if spec(c.Kernel).Paired && c.TileN%128 != 0 {
			// The accumulator is [left | gate], each half whole 64-column
			// epilogue sub-tiles (and, in a CTA pair, one CTA's B rows).
			return false, fmt.Sprintf("sm_100a fwd_gateup tile_n=%d is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)", c.TileN)
		}
	}
	return true, ""
}

// streamKImplemented is where the stream-K scheduler (templates/cuda/
// sched_streamk_sm90a.sched.tmpl) has code: the sm_90a skeleton (every
// kind: the fixup completes the accumulator before the kind's epilogue),
// one CTA per cluster, the cooperative and ping-pong schedules.
func streamKImplemented(c Config) (bool, string) {
	switch {
	case c.Arch != ArchSM90a:
		return false, fmt.Sprintf("scheduler streamk is implemented for sm_90a only (the %s skeleton has no partial-sum fixup); use scheduler static or clc", c.Arch)
	case c.Schedule == Overlap:
		return false, "scheduler streamk is not implemented with the overlap schedule (its tile loop is its own); use cooperative or pingpong"
	case c.ClusterM*c.ClusterN != 1:
		return false, fmt.Sprintf("scheduler streamk needs cluster 1x1, not %dx%d: the CTAs of a split tile run different k-ranges, so no cluster peer shares their operand loads", c.ClusterM, c.ClusterN)
	}
	return true, ""
}

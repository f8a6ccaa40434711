package tiling

import "fmt"

// DefaultSchedulerOf is the tile scheduler a config of kind k gets when
// none is given: the grouped one for grouped kinds, else DefaultScheduler.
func DefaultSchedulerOf(k Kernel) Scheduler {
	if k.Grouped() {
		return GroupedScheduler
	}
	return DefaultScheduler
}

// groupedImplemented is where the grouped kinds have code
// (templates/cuda/<kind>_sm90a.cu.tmpl on sched_grouped_sm90a.sched.tmpl,
// <kind>_sm100a.cu.tmpl on sched_grouped_sm100a.sched.tmpl).
func groupedImplemented(c Config) (bool, string) {
	if c.Raster != DefaultRaster || c.SwizzleGroup != DefaultSwizzleGroup {
		// The knobs would name a distinct kernel identical to the default.
		return false, fmt.Sprintf("%s runs the grouped scheduler, which walks the tiles expert by expert (n fastest): raster=%s swizzle_group=%d would change nothing; leave them at raster=%s swizzle_group=%d",
			c.Kernel, c.Raster, c.SwizzleGroup, DefaultRaster, DefaultSwizzleGroup)
	}
	if ok, why := groupedCommon(c); !ok {
		return false, why
	}
	if spec(c.Kernel).ExpertsAlongK {
		return groupedBwdImplemented(c)
	}
	if spec(c.Kernel).ExpertMapB {
		return groupedGemmImplemented(c)
	}
	if spec(c.Kernel).KGrouped {
		return groupedWgradImplemented(c)
	}
	switch {
	case c.MajorB != KMajor:
		return false, fmt.Sprintf("%s needs major_b=k (W [E,2I,K], nn.Linear's layout per expert): the experts are stacked along W's rows, and an MN-major W would put the next expert's rows into a ragged K", c.Kernel)
	case c.TileN%128 != 0:
		return false, fmt.Sprintf("%s tile_n=%d is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns)", c.Kernel, c.TileN)
	}
	return true, ""
}

// groupedCommon holds the rules every grouped kind shares: one CTA per
// cluster, on sm_90a the ping-pong or cooperative schedule, 64x64 epilogue
// sub-tiles and at most 128 accumulators per thread; on sm_100a
// groupedSM100.
func groupedCommon(c Config) (bool, string) {
	if c.Arch == ArchSM100a {
		return groupedSM100(c)
	}
	switch {
	case c.Arch != ArchSM90a:
		return false, fmt.Sprintf("%s is implemented for sm_90a and sm_100a only, not %s", c.Kernel, c.Arch)
	case c.Schedule == Overlap:
		return false, fmt.Sprintf("%s runs the cooperative or pingpong schedule, not overlap", c.Kernel)
	case c.ClusterM*c.ClusterN != 1:
		return false, fmt.Sprintf("%s needs cluster 1x1, not %dx%d: neighbouring tiles may belong to different experts, so no peer shares an operand", c.Kernel, c.ClusterM, c.ClusterN)
	case c.WideAccumulator():
		return false, fmt.Sprintf("%s with %d accumulator registers per thread is not implemented; use tile_n <= 128", c.Kernel, c.AccRegsPerThread())
	case c.EpiN != 64:
		return false, fmt.Sprintf("%s epi_n=%d is not implemented; use 64", c.Kernel, c.EpiN)
	}
	return true, ""
}

// groupedSM100 is what the sm_100a skeleton's grouped walk
// (sched_grouped_sm100a.sched.tmpl, with moe_fwd_gateup_sm100a.cu.tmpl and
// moe_bwd_dswiglu_sm100a.cu.tmpl) implements: each grouped kind with and
// without store_out and the router score, one CTA per tile (cta_group::1), cluster 1x1; the rest
// is refused with the reason.
func groupedSM100(c Config) (bool, string) {
	switch {
	case spec(c.Kernel).KGrouped:
		return false, fmt.Sprintf("%s is implemented for sm_90a only, not %s (the tcgen05 skeleton has no K-grouped walk: per-expert k-ranges and the ragged k-block's rows zeroed in shared memory)", c.Kernel, c.Arch)
	case spec(c.Kernel).ExpertMapB:
		return false, fmt.Sprintf("%s is implemented for sm_90a only, not %s (the sm_100a grouped walk has no moe_gemm epilogue, and its 3-D expert map for B is moe_bwd_dswiglu's MN-major one only)", c.Kernel, c.Arch)
	case c.Schedule != OneCTA:
		return false, fmt.Sprintf("%s on %s needs schedule %s, not %s: the grouped walk runs one CTA per tile (a CTA pair's 256-row tile, the odd CTA's rows possibly past the expert's end, is not implemented)", c.Kernel, c.Arch, OneCTA, c.Schedule)
	case c.ClusterM*c.ClusterN != 1:
		return false, fmt.Sprintf("%s needs cluster 1x1, not %dx%d: neighbouring tiles may belong to different experts, so no peer shares an operand", c.Kernel, c.ClusterM, c.ClusterN)
	}
	return true, ""
}

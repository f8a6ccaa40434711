package tiling

import "fmt"

// Implemented reports whether the generator (package gen) can render c
// today and, when it cannot, why. It is a statement about swigen's
// templates, not about the hardware: Validate says whether c is legal on its
// arch, Implemented whether swigen has the code for it, so a config can be
// valid yet not implemented (an sm_90a 2x1 cluster, a gemm kernel). Space
// and Catalog return implemented configs only, so every config they list
// renders and compiles.
//
// Implemented assumes c otherwise validates; it does not repeat Validate's
// rules. The reason is a user-facing sentence that names the way out when
// there is one.
func Implemented(c Config) (bool, string) {
	// Only bwd_dswiglu has templates (templates/cuda/bwd_dswiglu_<arch>.cu.tmpl);
	// the forward kernels and the plain GEMM are designed (ARCHITECTURE.md §2)
	// but not written.
	if c.Kernel != KernelBwdDSwiGLU {
		return false, fmt.Sprintf("kernel %s has no template yet", c.Kernel)
	}
	switch c.Arch {
	case ArchSM90a:
		// The sm_90a kernel has no cluster launch, multicast TMA or
		// cluster-scope barriers yet; gen's sm_90a view rejects clusters.
		if c.ClusterM != 1 || c.ClusterN != 1 {
			return false, "sm_90a thread-block clusters are not implemented yet; use cluster 1x1"
		}
	case ArchSM100a:
		if c.Debug != DebugNone {
			return false, "debug variants exist for sm_90a only"
		}
		// The sm_100a epilogue maps one TMEM lane to one row, 128 rows per
		// CTA, and streams 64-column sub-tiles (one 128-byte swizzle row per
		// lane). tcgen05 also has M=64 (1cta tile_m=64) and 32-column
		// epilogues are legal, but the template implements neither.
		if c.TileMPerCTA() != 128 {
			return false, fmt.Sprintf("sm_100a tile_m=%d (%d rows per CTA) is not implemented yet; use 1cta tile_m=128 or 2cta tile_m=256", c.TileM, c.TileMPerCTA())
		}
		if c.EpiN != 64 {
			return false, fmt.Sprintf("sm_100a epilogue sub-tile width epi_n=%d is not implemented yet; use epi_n=64", c.EpiN)
		}
	}
	return true, ""
}

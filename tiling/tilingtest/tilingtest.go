// Package tilingtest provides the config sets that the generator's tests
// sweep: the views' structural tests (gen/view) and the rendered-source
// tests (gen) check the same configs.
package tilingtest

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// SM90Bwd returns the sm_90a bwd_dswiglu configs of the tuning space (of
// every dtype) and of the catalog.
func SM90Bwd() []tiling.Config {
	var cfgs []tiling.Config
	for _, d := range tiling.DTypes() {
		cfgs = append(cfgs, tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, d)...)
	}
	for _, c := range tiling.Catalog() {
		if c.Arch == tiling.ArchSM90a && c.Kernel == tiling.KernelBwdDSwiGLU {
			cfgs = append(cfgs, c)
		}
	}
	return cfgs
}

// SM90Kind is an sm_90a config in the default dtype of kernel k, schedule
// s and tile m x n x 64, edited by edit (when not nil), with the defaults
// filled in and the deepest operand ring that fits.
func SM90Kind(k tiling.Kernel, s tiling.Schedule, m, n int, edit func(*tiling.Config)) tiling.Config {
	c := tiling.Config{Kernel: k, Arch: tiling.ArchSM90a, DType: tiling.DefaultDType, Schedule: s, TileM: m, TileN: n, TileK: 64}
	if edit != nil {
		edit(&c)
	}
	c = c.WithDefaults()
	c.Stages = c.MaxStages()
	return c
}

// SM100 returns the sm_100a configs of every kind in the tuning space and
// the catalog, plus the variants the space leaves out (StoreOut, MN-major
// operands, a residual, raster n) of each space config that the generator
// implements, and the grouped kinds on those tiles where implemented.
func SM100() []tiling.Config {
	var cfgs []tiling.Config
	seen := map[string]bool{}
	add := func(c tiling.Config) {
		if !seen[c.Name()] {
			seen[c.Name()] = true
			cfgs = append(cfgs, c)
		}
	}
	variants := []func(*tiling.Config){
		func(c *tiling.Config) { c.StoreOut = true },
		func(c *tiling.Config) { c.MajorB = tiling.MNMajor },
		func(c *tiling.Config) { c.MajorA, c.MajorB = tiling.MNMajor, tiling.MNMajor },
		func(c *tiling.Config) { c.Residual, c.MajorB = true, tiling.MNMajor },
		func(c *tiling.Config) { c.Raster = tiling.RasterN },
	}
	for _, k := range tiling.Kernels() {
		for _, d := range tiling.DTypes() {
			for _, c := range tiling.Space(k, tiling.ArchSM100a, d) {
				add(c)
				for _, edit := range variants {
					x := c
					edit(&x)
					x.Stages = x.MaxStages()
					if _, err := tiling.Check(x); err == nil {
						add(x)
					}
				}
			}
		}
	}
	for _, c := range tiling.Catalog() {
		if c.Arch == tiling.ArchSM100a {
			add(c)
		}
	}
	// Each grouped kind on every tile above that its sm_100a grouped walk
	// implements (tiling.Check decides: 1cta on cluster 1x1), with and
	// without StoreOut (moe_bwd_dswiglu's MN-major W_down has no StoreOut
	// variant above).
	for _, s := range tiling.Kinds() {
		if !s.Grouped {
			continue
		}
		for _, c := range append([]tiling.Config(nil), cfgs...) {
			x := c
			x.Kernel, x.Scheduler, x.Residual = s.Kernel, tiling.GroupedScheduler, false
			x.Raster, x.SwizzleGroup = tiling.DefaultRaster, tiling.DefaultSwizzleGroup
			out := x
			out.StoreOut = true
			out.Stages = out.MaxStages()
			for _, y := range []tiling.Config{x, out} {
				if _, err := tiling.Check(y); err == nil {
					add(y)
				}
			}
		}
	}
	return cfgs
}

// Check is tiling.Check for tests: it fails t when c is rejected.
func Check(t testing.TB, c tiling.Config) tiling.Checked {
	t.Helper()
	k, err := tiling.Check(c)
	if err != nil {
		t.Fatalf("tiling.Check: %v", err)
	}
	return k
}

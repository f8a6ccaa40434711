package tests

import (
	"errors"
	"testing"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

// legalConfigs enumerates a broad grid of configs that tiling.Validate
// accepts, implemented or not: every kernel, arch, dtype and schedule, a
// range of tiles, every cluster, both B majors, StoreOut, both epilogue
// widths and schedulers, at the deepest ring that fits.
func legalConfigs() []tiling.Config {
	var out []tiling.Config
	for _, k := range tiling.Kernels() {
		for _, a := range tiling.Arches() {
			for _, d := range tiling.DTypes() {
				for _, s := range tiling.SchedulesFor(a) {
					for _, m := range []int{64, 128, 256} {
						for _, n := range []int{64, 128, 192, 256} {
							for _, cl := range [][2]int{{1, 1}, {2, 1}, {1, 2}} {
								for _, mb := range tiling.Majors() {
									for _, so := range []bool{false, true} {
										for _, epiN := range []int{0, 32} { // 0: the arch default
											for _, sch := range tiling.Schedulers() {
												c := tiling.Config{
													Kernel: k, Arch: a, DType: d, Schedule: s,
													TileM: m, TileN: n, TileK: 64,
													ClusterM: cl[0], ClusterN: cl[1],
													MajorB: mb, StoreOut: so, EpiN: epiN, Scheduler: sch,
												}.WithDefaults()
												c.Stages = c.MaxStages()
												if c.Validate() == nil {
													out = append(out, c)
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// TestImplementedMatchesRender checks tiling.Implemented against the
// generator: a legal config passes tiling.Check exactly when Implemented
// says so, and then renders (the views trust Check and re-derive no rule).
// Space and Catalog trust Implemented, so if the generator learns (or
// loses) a feature, this test names the configs whose answer must change.
func TestImplementedMatchesRender(t *testing.T) {
	t.Parallel()
	cfgs := legalConfigs()
	count := map[bool]int{}
	for _, c := range cfgs {
		ok, why := tiling.Implemented(c)
		count[ok]++
		k, err := tiling.Check(c)
		var ni *tiling.NotImplementedError
		switch {
		case ok && err != nil:
			t.Errorf("%s: Implemented says yes, Check fails: %v", c.Name(), err)
		case ok:
			if _, err := gen.Render(k); err != nil {
				t.Errorf("%s: Implemented says yes, Render fails: %v", c.Name(), err)
			}
		case !errors.As(err, &ni) || ni.Reason != why:
			t.Errorf("%s: Implemented says no (%s), Check says %v", c.Name(), why, err)
		case why == "":
			t.Errorf("%s: not implemented but no reason given", c.Name())
		}
	}
	// The grid must exercise both answers, or the test checks nothing.
	if count[true] < 20 || count[false] < 20 {
		t.Errorf("grid of %d legal configs has %d implemented and %d not; want tens of each", len(cfgs), count[true], count[false])
	}
	t.Logf("%d legal configs: %d implemented, %d not", len(cfgs), count[true], count[false])
}

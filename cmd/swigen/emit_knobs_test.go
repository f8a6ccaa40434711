package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// flaglessKnobs are the knobs emit has no flag for: names set them
// (--name). A knob added without a flag joins this list on purpose.
var flaglessKnobs = []string{"residual", "fast-sigmoid", "slice-frags"}

// TestEmitFlagsRoundTrip gives emit, for every config of the tuning
// spaces (Space, SpaceStoreOut) and the catalog, the flag of each knob
// that has one, as the knob formats the config's value, over the
// defaults of the config's kind, arch and dtype: emit's command line
// parses them and its override gives the config back, with no note. A
// knob of one arch is given only with that arch, as emit rejects --l2k
// alone on sm_100a.
func TestEmitFlagsRoundTrip(t *testing.T) {
	t.Parallel()
	var flagless []string
	for _, k := range tiling.Knobs() {
		if k.Usage() == "" {
			flagless = append(flagless, k.Flag())
		}
	}
	if !slices.Equal(flagless, flaglessKnobs) {
		t.Fatalf("knobs without an emit flag %q, want %q", flagless, flaglessKnobs)
	}
	var cfgs []tiling.Config
	for _, k := range tiling.Kernels() {
		for _, a := range tiling.Arches() {
			for _, d := range tiling.DTypes() {
				cfgs = append(cfgs, tiling.Space(k, a, d)...)
				cfgs = append(cfgs, tiling.SpaceStoreOut(k, a, d)...)
			}
		}
	}
	cfgs = append(cfgs, tiling.Catalog()...)
	for _, c := range cfgs {
		var args []string
		for _, k := range tiling.Knobs() {
			if k.Usage() != "" && (k.Arch() == "" || k.Arch() == c.Arch) {
				args = append(args, "--"+k.Flag()+"="+k.Format(c))
			}
		}
		o, err := parseEmit(t, args...)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		base := tiling.Config{Kernel: c.Kernel, Arch: c.Arch, DType: c.DType,
			Residual: c.Residual, FastSigmoid: c.FastSigmoid, SliceFrags: c.SliceFrags}.WithDefaults()
		got, notes, err := o.override([]tiling.Config{base})
		if err != nil {
			t.Fatalf("%s from %q: %v", c.Name(), args, err)
		}
		if d := cmp.Diff([]tiling.Config{c}, got); d != "" {
			t.Errorf("%s from %q (-want +got):\n%s", c.Name(), args, d)
		}
		if len(notes) > 0 {
			t.Errorf("%s from %q: notes %q", c.Name(), args, notes)
		}
	}
}

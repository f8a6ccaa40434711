package tiling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOverrideApply(t *testing.T) {
	t.Parallel()
	s1 := Shape{M: 16384, K: 768, I: 4608}
	h100, err := Heuristic(KernelBwdDSwiGLU, ArchSM100a, BF16, s1)
	if err != nil {
		t.Fatal(err)
	}
	h90, err := Heuristic(KernelBwdDSwiGLU, ArchSM90a, BF16, s1)
	if err != nil {
		t.Fatal(err)
	}
	if h100.Schedule != TwoCTA || h90.Schedule != PingPong || h90.TileN != 192 {
		t.Fatalf("the cases assume the S1 heuristic is 2cta on sm_100a and pingpong 128x192 on sm_90a: %s, %s", h100.Name(), h90.Name())
	}
	mod := func(c Config, f func(c *Config)) Config {
		f(&c)
		return c
	}
	ov := func(flagValues ...string) Override {
		var o Override
		for i := 0; i < len(flagValues); i += 2 {
			if err := o.Set(flagValues[i], flagValues[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	for _, tt := range []struct {
		name      string
		base      Config
		o         Override
		want      Config
		wantNote  string // substring of the one note; "" for none
		wantValid bool
	}{
		{"nothing set", h100, Override{}, h100, "", true},
		{"tile that 2cta takes", h100, ov("tile", "256x128x64"),
			mod(h100, func(c *Config) { c.TileN = 128 }), "", true},
		{"tile 2cta cannot take: 1cta without the pair", h100, ov("tile", "128x128x64"),
			mod(h100, func(c *Config) {
				c.TileM, c.TileN, c.Schedule, c.ClusterM, c.EpiM = 128, 128, OneCTA, 1, 128
			}), "schedule 1cta instead of 2cta, cluster 1x1 instead of 2x1 (2cta rejects the given fields: tile_m=128", true},
		{"explicit schedule stays strict", h100, ov("tile", "128x128x64", "schedule", "2cta"),
			mod(h100, func(c *Config) { c.TileM, c.TileN, c.EpiM = 128, 128, 64 }), "", false},
		{"explicit cluster kept on the fallback", h100, ov("tile", "128x128x64", "cluster", "2x1"),
			mod(h100, func(c *Config) { c.TileM, c.TileN, c.Schedule, c.EpiM = 128, 128, OneCTA, 128 }), "schedule 1cta instead of 2cta", true},
		{"wide tile: cooperative, stages that fit", h90, ov("tile", "128x256x64"),
			mod(h90, func(c *Config) { c.TileN, c.Schedule, c.Stages = 256, Cooperative, 3 }),
			"schedule cooperative instead of pingpong, stages 3 instead of 4 (the deepest ring that fits) (pingpong rejects the given fields: tile_n=256", true},
		// Cooperative 128x256 would take the tile but not 4 stages: no
		// candidate works, so the asked-for schedule's config is returned.
		{"explicit stages never change", h90, ov("tile", "128x256x64", "stages", "4"),
			mod(h90, func(c *Config) { c.TileN = 256 }), "", false},
		{"user's cluster first on sm_90a", mod(h90, func(c *Config) { c.ClusterM = 2 }), ov("tile", "256x128x64"),
			mod(h90, func(c *Config) { c.TileM, c.TileN, c.Schedule, c.ClusterM, c.Stages = 256, 128, Cooperative, 2, 3 }),
			"schedule cooperative instead of pingpong, stages 3 instead of 4", true},
		{"stages only: no fallback needed", h90, ov("stages", "3"), mod(h90, func(c *Config) { c.Stages = 3 }), "", true},
		{"l2k is sm_90a only", h100, ov("l2k", "true"), h100, "", true},
		{"l2k off on sm_90a", h90, ov("l2k", "false"), mod(h90, func(c *Config) { c.L2KeepOperands = false }), "", true},
		{"explicit epilogue kept", h100, ov("tile", "128x128x64", "epi", "128x32"),
			mod(h100, func(c *Config) { c.TileM, c.TileN, c.EpiM, c.EpiN = 128, 128, 128, 32 }), "", false},
		{"every plain field", h90, ov("scheduler", "static", "raster", "m", "swizzle-group", "4", "epi-stages", "3", "major-b", "mn", "store-out", "false"),
			mod(h90, func(c *Config) {
				c.Raster, c.SwizzleGroup, c.EpiStages, c.MajorB = RasterM, 4, 3, MNMajor
				c.Stages = 3 // the deeper epilogue ring leaves room for 3
			}), "stages 3 instead of 4", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, notes := tt.o.Apply(tt.base)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Apply (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantNote == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case tt.wantNote != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.wantNote) || !strings.Contains(notes[0], got.Name())):
				t.Errorf("notes %q, want one naming %s with %q", notes, got.Name(), tt.wantNote)
			}
			if ok := usable(got); ok != tt.wantValid {
				t.Errorf("%s usable = %v, want %v (%s)", got.Name(), ok, tt.wantValid, problem(got))
			}
		})
	}
}

// TestOverrideTileAlone checks, for every kind, arch and tile of the
// tuning spaces, that giving only the tile over the heuristic config
// yields a usable config whenever some schedule of the arch can take
// that tile with the heuristic's other fields.
func TestOverrideTileAlone(t *testing.T) {
	t.Parallel()
	s1 := Shape{M: 16384, K: 768, I: 4608}
	for _, k := range Kernels() {
		for _, a := range Arches() {
			h, err := Heuristic(k, a, BF16, s1)
			if err != nil {
				continue
			}
			tiles := map[[3]int]bool{}
			for _, c := range Space(k, a, BF16) {
				tiles[[3]int{c.TileM, c.TileN, c.TileK}] = true
			}
			for tile := range tiles {
				got, _ := tileOverride(t, tile).Apply(h)
				if !usable(got) {
					t.Errorf("%s with tile %v: %s is not usable: %s", h.Name(), tile, got.Name(), problem(got))
				}
			}
		}
	}
}

// tileOverride is the Override that sets only the tile.
func tileOverride(t *testing.T, tile [3]int) Override {
	t.Helper()
	var o Override
	if err := o.Set("tile", fmt.Sprintf("%dx%dx%d", tile[0], tile[1], tile[2])); err != nil {
		t.Fatal(err)
	}
	return o
}

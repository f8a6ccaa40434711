package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// TestCheckTMEMCoResidency: the loader refuses an sm_100a kernel when the
// driver's occupancy lets more CTAs share an SM than TMEM holds, and only
// then.
func TestCheckTMEMCoResidency(t *testing.T) {
	t.Parallel()
	mkManifest := func(arch tiling.Arch, tileN int) manifest.Manifest {
		c := tiling.Config{Kernel: tiling.KernelGEMM, Arch: arch, DType: tiling.BF16, TileM: 128, TileN: tileN, TileK: 64,
			Stages: 2, EpiStages: 1, ClusterM: 2, ClusterN: 1, Schedule: tiling.OneCTA}
		if arch == tiling.ArchSM90a {
			c.Schedule, c.ClusterM = tiling.PingPong, 1
		}
		c = c.WithDefaults()
		m, err := manifest.New(tilingtest.Check(t, c))
		if err != nil {
			t.Fatal(err)
		}
		m.DynamicSmemBytes = 99456 // unpadded: what a manifest that disagrees with tiling could say
		return m
	}
	for _, tt := range []struct {
		name    string
		man     manifest.Manifest
		perSM   int
		wantErr bool
	}{
		// 128x192: 512 TMEM columns, one allocation per SM.
		{"512 columns, one CTA", mkManifest(tiling.ArchSM100a, 192), 1, false},
		{"512 columns, two CTAs (the D1 hang)", mkManifest(tiling.ArchSM100a, 192), 2, true},
		// 128x128: 256 columns, two allocations.
		{"256 columns, two CTAs", mkManifest(tiling.ArchSM100a, 128), 2, false},
		{"256 columns, three CTAs", mkManifest(tiling.ArchSM100a, 128), 3, true},
		{"sm_90a has no TMEM", mkManifest(tiling.ArchSM90a, 128), 4, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkTMEMCoResidency(tt.man, tt.perSM)
			if (err != nil) != tt.wantErr {
				t.Fatalf("checkTMEMCoResidency(%s, %d) = %v, want error %v", tt.man.Name, tt.perSM, err, tt.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrTMEMCoResidency) {
				t.Errorf("error %v does not wrap ErrTMEMCoResidency", err)
			}
			for _, want := range []string{tt.man.Name, "cuOccupancyMaxActiveBlocksPerMultiprocessor", "TMEM"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

// TestCheckTMEMOccupancySkipsSM90: a kernel whose manifest sets no
// MaxCTAsPerSM (sm_90a) needs no occupancy query (the function is never
// touched).
func TestCheckTMEMOccupancySkipsSM90(t *testing.T) {
	t.Parallel()
	man := manifest.Manifest{Name: "k", Config: tiling.Config{Arch: tiling.ArchSM90a}}
	if err := checkTMEMOccupancy(nil, man); err != nil {
		t.Errorf("checkTMEMOccupancy(sm_90a) = %v", err)
	}
	// With a limit the driver is asked; a nil function is an error, not a
	// panic.
	man.MaxCTAsPerSM = 1
	if err := checkTMEMOccupancy(nil, man); err == nil || !strings.Contains(err.Error(), "TMEM co-residency check") {
		t.Errorf("checkTMEMOccupancy(sm_100a, nil function) = %v, want the query's error", err)
	}
}

package manifest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// mkConfig is a valid config of kernel k on arch a with the given tile,
// cluster and operand majors, at its most stages.
func mkConfig(k tiling.Kernel, a tiling.Arch, s tiling.Schedule, m, n, cm, cn int, ma, mb tiling.Major) tiling.Config {
	c := tiling.Config{Kernel: k, Arch: a, DType: tiling.BF16, Schedule: s, TileM: m, TileN: n, TileK: 64,
		ClusterM: cm, ClusterN: cn, MajorA: ma, MajorB: mb}.WithDefaults()
	c.Stages = c.MaxStages()
	return c
}

func TestBoxesOf(t *testing.T) {
	t.Parallel()
	const (
		bwd, gemm, gateup, down = tiling.KernelBwdDSwiGLU, tiling.KernelGEMM, tiling.KernelFwdGateUp, tiling.KernelFwdDown
		sm90, sm100             = tiling.ArchSM90a, tiling.ArchSM100a
		k, mn                   = tiling.KMajor, tiling.MNMajor
	)
	sm90Epi := Boxes{De: [3]int{64, 1, 64}, Out: [3]int{64, 64}}
	sm100Epi := Boxes{De: [3]int{64, 1, 128}, Out: [3]int{64, 128}}
	with := func(b Boxes, a, bb int) Boxes { b.A, b.B = [3]int{64, a}, [3]int{64, bb}; return b }
	tests := []struct {
		name string
		cfg  tiling.Config
		want Boxes
	}{
		{"sm90 pingpong k-major", mkConfig(bwd, sm90, tiling.PingPong, 128, 128, 1, 1, k, k), with(sm90Epi, 128, 128)},
		{"sm90 cooperative mn-major", mkConfig(bwd, sm90, tiling.Cooperative, 256, 128, 1, 1, k, mn), with(sm90Epi, 256, 64)},
		// A 2x1 cluster loads half of B per CTA and multicasts it, a 1x2
		// cluster half of A.
		{"sm90 2x1 shares B", mkConfig(bwd, sm90, tiling.PingPong, 128, 128, 2, 1, k, k), with(sm90Epi, 128, 64)},
		{"sm90 gemm 1x2 shares A", mkConfig(gemm, sm90, tiling.PingPong, 128, 128, 1, 2, k, k), with(sm90Epi, 64, 128)},
		{"sm90 gemm mn/mn", mkConfig(gemm, sm90, tiling.Cooperative, 128, 256, 1, 1, mn, mn), with(sm90Epi, 64, 64)},
		{"sm90 gateup k-major halves", mkConfig(gateup, sm90, tiling.PingPong, 128, 128, 1, 1, k, k), with(sm90Epi, 128, 64)},
		{"sm90 gateup 1x2 halves of A", mkConfig(gateup, sm90, tiling.Cooperative, 256, 128, 1, 2, k, k), with(sm90Epi, 128, 64)},
		{"sm100 1cta", mkConfig(bwd, sm100, tiling.OneCTA, 128, 256, 1, 1, k, k), with(sm100Epi, 128, 256)},
		{"sm100 2cta", mkConfig(bwd, sm100, tiling.TwoCTA, 256, 256, 2, 1, k, k), with(sm100Epi, 128, 128)},
		{"sm100 2cta mn-major", mkConfig(bwd, sm100, tiling.TwoCTA, 256, 128, 2, 1, k, mn), with(sm100Epi, 128, 64)},
		{"sm100 gemm 2cta mn/mn", mkConfig(gemm, sm100, tiling.TwoCTA, 256, 256, 2, 1, mn, mn), with(sm100Epi, 64, 64)},
		{"sm100 gemm 1cta k/k", mkConfig(gemm, sm100, tiling.OneCTA, 128, 256, 1, 1, k, k), with(sm100Epi, 128, 256)},
		{"sm100 gateup 1cta halves", mkConfig(gateup, sm100, tiling.OneCTA, 128, 256, 1, 1, k, k), with(sm100Epi, 128, 128)},
		{"sm100 gateup 2cta one half per CTA", mkConfig(gateup, sm100, tiling.TwoCTA, 256, 256, 2, 1, k, k), with(sm100Epi, 128, 128)},
		{"sm100 gateup 2cta mn-major", mkConfig(gateup, sm100, tiling.TwoCTA, 256, 256, 2, 1, k, mn), with(sm100Epi, 128, 64)},
		{"sm100 down 2cta", mkConfig(down, sm100, tiling.TwoCTA, 256, 256, 2, 1, k, k), with(sm100Epi, 128, 128)},
	}
	for _, tt := range tests {
		got, err := BoxesOf(tt.cfg)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (%s): (-want +got):\n%s", tt.name, tt.cfg.Name(), d)
		}
	}
	if _, err := BoxesOf(tiling.Config{Arch: "sm_80"}); err == nil || !strings.Contains(err.Error(), `arch "sm_80"`) {
		t.Errorf("BoxesOf(sm_80) = %v; want an error naming the arch", err)
	}
}

func TestGridCTAs(t *testing.T) {
	t.Parallel()
	mk := func(s tiling.Schedule, m, n, cm, cn int, sch tiling.Scheduler) Manifest {
		c := tiling.Config{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM100a, DType: tiling.BF16, Schedule: s,
			TileM: m, TileN: n, TileK: 64, ClusterM: cm, ClusterN: cn, Scheduler: sch}.WithDefaults()
		return Manifest{ClusterDims: [3]int{cm * cn, 1, 1},
			Grid: Grid{Tiles: tiles(c, size("I")), CTAsPerTile: c.CTAsPerTile(), Scheduler: schedulerOf(c)}}
	}
	tests := []struct {
		name          string
		man           Manifest
		m, i          int
		sms, clusters int
		want          int
	}{
		{"1cta static many tiles", mk(tiling.OneCTA, 128, 256, 1, 1, tiling.StaticScheduler), 16384, 4608, 148, 0, 148},
		{"1cta static few tiles", mk(tiling.OneCTA, 128, 256, 1, 1, tiling.StaticScheduler), 256, 512, 148, 0, 4},
		{"1cta cluster 2 odd SMs", mk(tiling.OneCTA, 128, 128, 1, 2, tiling.StaticScheduler), 16384, 4608, 133, 74, 132},
		{"1cta cluster 2 capped by co-resident clusters", mk(tiling.OneCTA, 128, 128, 1, 2, tiling.StaticScheduler), 16384, 4608, 148, 50, 100},
		{"1cta cluster 2 one tile", mk(tiling.OneCTA, 128, 128, 2, 1, tiling.StaticScheduler), 100, 100, 148, 74, 2},
		{"2cta static", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.StaticScheduler), 16384, 4608, 148, 74, 148},
		{"2cta static few tiles", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.StaticScheduler), 300, 256, 148, 74, 4},
		{"2cta clc ignores co-resident clusters", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.CLCScheduler), 16384, 4608, 148, 1, 2 * 64 * 18},
		{"1cta clc cluster 2 odd tiles", mk(tiling.OneCTA, 128, 128, 1, 2, tiling.CLCScheduler), 384, 128, 148, 0, 4},
	}
	for _, tt := range tests {
		got, err := tt.man.GridCTAs(Sizes{"M": tt.m, "I": tt.i}, tt.sms, tt.clusters)
		if err != nil || got != tt.want {
			t.Errorf("%s: GridCTAs = %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
}

// A clc grid rounded up to whole clusters stays within gridDim.x's range
// (swigen_rt's grid_ctas refuses the same).
func TestGridCTAsCLCRoundUpBound(t *testing.T) {
	t.Parallel()
	m := Manifest{Name: "k", ClusterDims: [3]int{2, 1, 1}, Grid: Grid{Tiles: Expr("2147483647"), CTAsPerTile: 1, Scheduler: SchedulerCLC}}
	if g, err := m.GridCTAs(nil, 148, 0); err == nil || !strings.Contains(err.Error(), "in clusters of 2: 2147483648 CTAs") {
		t.Errorf("GridCTAs = %d, %v; want a grid-range error", g, err)
	}
}

func TestCheckSizes(t *testing.T) {
	t.Parallel()
	bwd := mustNew(t, mkConfig(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.PingPong, 128, 192, 1, 1, tiling.KMajor, tiling.KMajor))
	gemmMN := mustNew(t, mkConfig(tiling.KernelGEMM, tiling.ArchSM90a, tiling.Cooperative, 128, 256, 1, 1, tiling.MNMajor, tiling.MNMajor))
	tests := []struct {
		name    string
		man     Manifest
		sizes   Sizes
		wantErr string
	}{
		{"seed", bwd, Sizes{"M": 16384, "K": 768, "I": 4608}, ""},
		{"ragged M, smallest K", bwd, Sizes{"M": 129, "K": 8, "I": 200}, ""},
		{"every bwd rule", bwd, Sizes{"M": 0, "K": 12, "I": 100},
			"bad shape: M=0: must be >= 1; K=12: must be a positive multiple of 8 (dy and W_down rows must be 16-byte multiples for TMA); " +
				"I=100: must be a positive multiple of 8 (the gate half of de starts I elements into each row; TMA needs 16-byte strides)"},
		{"missing size", bwd, Sizes{"M": 1, "K": 8}, "size I not given"},
		{"gemm mn/mn: M is a pitch, K only a count", gemmMN, Sizes{"M": 12, "N": 64, "K": 3},
			"bad shape: M=12: must be a positive multiple of 8 (A [K,M] (major_a=mn) rows must be 16-byte multiples for TMA)"},
		{"gemm mn/mn: K of zero", gemmMN, Sizes{"M": 8, "N": 64, "K": 0}, "bad shape: K=0: must be >= 1"},
	}
	for _, tt := range tests {
		err := tt.man.CheckSizes(tt.sizes)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: CheckSizes = %v; want %q", tt.name, err, tt.wantErr)
		}
	}
}

func mustNew(t *testing.T, cfg tiling.Config) Manifest {
	t.Helper()
	k, err := tiling.Check(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(k)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNewCatalog: every catalog config has a well-formed manifest that
// survives a JSON round trip.
func TestNewCatalog(t *testing.T) {
	t.Parallel()
	for _, cfg := range tiling.Catalog() {
		m := mustNew(t, cfg)
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", cfg.Name(), err)
		}
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Manifest
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		// Boxes are not serialized (the tensor maps carry them); only
		// the view, built from New's manifest, reads the field.
		if d := cmp.Diff(m, back, cmpopts.IgnoreFields(Manifest{}, "Boxes")); d != "" {
			t.Errorf("%s: JSON round trip (-built +read):\n%s", cfg.Name(), d)
		}
	}
}

// goldenNames are the configs whose manifests are pinned as files: one
// per kind, both arches, the optional maps included.
var goldenNames = []string{
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	"gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc",
	"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	"fwd_down_sm100a_bf16_m128n128k64_s6_c1x2_1cta_bmn_res_clc",
	"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
}

// TestManifestGolden pins whole manifests as a loader reads them
// (go test ./manifest -run ManifestGolden -update rewrites them).
func TestManifestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range goldenNames {
		cfg, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(mustNew(t, cfg), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", name+".json")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run ManifestGolden -update writes it)", err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("%s (-golden +built):\n%s", path, d)
		}
	}
}

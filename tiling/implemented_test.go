package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImplemented(t *testing.T) {
	t.Parallel()
	mut := func(c Config, f func(*Config)) Config { f(&c); return c }
	h90 := cfg90(128, 128, 3, PingPong)
	h100 := cfg100(256, 256, 4, TwoCTA)
	one100 := cfg100(128, 128, 4, OneCTA)
	tests := []struct {
		name    string
		c       Config
		wantOK  bool
		wantWhy string
	}{
		{"sm90 pingpong 1x1", h90, true, ""},
		{"sm90 cooperative mn store_out fp16", mut(cfg90(128, 128, 3, Cooperative), func(c *Config) {
			c.MajorB, c.StoreOut, c.DType = MNMajor, true, FP16
		}), true, ""},
		{"sm90 cluster 2x1", mut(h90, func(c *Config) { c.ClusterM = 2 }), true, ""},
		{"sm90 cluster 1x2", mut(h90, func(c *Config) { c.ClusterN = 2 }), true, ""},
		{"sm90 cluster 2x1 mn-major B", mut(h90, func(c *Config) { c.ClusterM, c.MajorB = 2, MNMajor }), true, ""},
		{"sm90 gemm", mut(h90, func(c *Config) { c.Kernel = KernelGEMM }), true, ""},
		{"sm90 cluster 2x1 mn-major B", mut(h90, func(c *Config) { c.ClusterM, c.MajorB = 2, MNMajor }), true, ""},
		{"sm90 gemm cluster 1x2 mn-major B", mut(h90, func(c *Config) { c.Kernel, c.MajorB, c.ClusterN = KernelGEMM, MNMajor, 2 }), true, ""},
		{"sm90 gemm cluster 1x2 mn-major A", mut(h90, func(c *Config) { c.Kernel, c.MajorA, c.ClusterN = KernelGEMM, MNMajor, 2 }), true, ""},
		{"sm90 gemm mn-major A and B", mut(h90, func(c *Config) { c.Kernel, c.MajorA, c.MajorB = KernelGEMM, MNMajor, MNMajor }), true, ""},
		{"sm90 gemm cluster 1x2 mn-major A", mut(h90, func(c *Config) { c.Kernel, c.MajorA, c.ClusterN = KernelGEMM, MNMajor, 2 }), true, ""},
		{"sm90 bwd epi_n 32", mut(h90, func(c *Config) { c.EpiN, c.EpiStages = 32, 4 }), true, ""},
		{"sm90 bwd store_out epi_n 32", mut(h90, func(c *Config) { c.EpiN, c.EpiStages, c.StoreOut = 32, 4, true }), true, ""},
		{"sm90 bwd wide store_out epi_n 32", mut(cfg90(128, 192, 3, PingPong), func(c *Config) { c.EpiN, c.EpiStages, c.StoreOut = 32, 4, true }), false,
			"sm_90a epilogue sub-tile width epi_n=32 is implemented for bwd_dswiglu pingpong and cooperative only, with store_out up to 128 accumulators; use epi_n=64"},
		{"sm90 bwd epi_pipe", mut(h90, func(c *Config) { c.EpiN, c.EpiStages, c.EpiPipe = 32, 4, true }), true, ""},
		{"sm90 bwd epi_pipe epi_n 64", mut(h90, func(c *Config) { c.EpiPipe = true }), false,
			"sm_90a epi_pipe is implemented for bwd_dswiglu pingpong and cooperative with epi_n=32, without store_out"},
		{"sm90 bwd epi_pipe store_out", mut(h90, func(c *Config) { c.EpiN, c.EpiStages, c.EpiPipe, c.StoreOut = 32, 4, true, true }), false,
			"sm_90a epi_pipe is implemented for bwd_dswiglu pingpong and cooperative with epi_n=32, without store_out"},
		{"sm100 epi_pipe", mut(h100, func(c *Config) { c.EpiPipe = true }), false,
			"sm_100a epi_pipe is not implemented (the accumulators live in TMEM, not registers)"},
		{"sm90 fwd_gateup epi_n 32", mut(h90, func(c *Config) { c.Kernel, c.EpiN = KernelFwdGateUp, 32 }), false,
			"sm_90a epilogue sub-tile width epi_n=32 is implemented for bwd_dswiglu pingpong and cooperative only, with store_out up to 128 accumulators; use epi_n=64"},
		{"sm90 fwd_gateup", mut(h90, func(c *Config) { c.Kernel = KernelFwdGateUp }), true, ""},
		{"sm90 fwd_gateup store_out cluster 2x1", mut(h90, func(c *Config) { c.Kernel, c.StoreOut, c.ClusterM = KernelFwdGateUp, true, 2 }), true, ""},
		{"sm90 fwd_gateup tile_n 192", mut(cfg90(128, 192, 3, Cooperative), func(c *Config) { c.Kernel = KernelFwdGateUp }), false,
			"sm_90a fwd_gateup tile_n=192 is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)"},
		{"sm90 gemm tile_n 176", mut(cfg90(128, 176, 4, Cooperative), func(c *Config) { c.Kernel = KernelGEMM }), true, ""},
		{"sm90 gemm tile_n 176 cluster 2x1", mut(cfg90(128, 176, 4, Cooperative), func(c *Config) { c.Kernel, c.ClusterM = KernelGEMM, 2 }), false,
			"sm_90a tile_n=176, not a multiple of epi_n=64, is implemented for gemm with cluster 1x1 only"},
		{"sm90 bwd tile_n 176", cfg90(128, 176, 4, Cooperative), false,
			"sm_90a tile_n=176, not a multiple of epi_n=64, is implemented for gemm with cluster 1x1 only"},
		{"sm90 fwd_down cluster residual", mut(h90, func(c *Config) { c.Kernel, c.ClusterM, c.Residual = KernelFwdDown, 2, true }), true, ""},
		{"sm90 gemm streamk", mut(h90, func(c *Config) { c.Kernel, c.Scheduler = KernelGEMM, StreamKScheduler }), true, ""},
		{"sm90 gemm streamk cooperative", mut(cfg90(128, 256, 3, Cooperative), func(c *Config) { c.Kernel, c.Scheduler = KernelGEMM, StreamKScheduler }), true, ""},
		{"sm90 gemm streamk cluster 2x1", mut(h90, func(c *Config) { c.Kernel, c.Scheduler, c.ClusterM = KernelGEMM, StreamKScheduler, 2 }), false,
			"scheduler streamk needs cluster 1x1, not 2x1: the CTAs of a split tile run different k-ranges, so no cluster peer shares their operand loads"},
		{"sm90 bwd streamk", mut(h90, func(c *Config) { c.Scheduler = StreamKScheduler }), true, ""},
		{"sm90 bwd streamk overlap", mut(cfg90(128, 192, 3, Overlap), func(c *Config) { c.Scheduler = StreamKScheduler }), false,
			"scheduler streamk is not implemented with the overlap schedule (its tile loop is its own); use cooperative or pingpong"},
		{"sm100 gemm streamk", mut(h100, func(c *Config) { c.Kernel, c.Scheduler = KernelGEMM, StreamKScheduler }), false,
			"scheduler streamk is implemented for sm_90a only (the sm_100a skeleton has no partial-sum fixup); use scheduler static or clc"},
		{"sm100 2cta", h100, true, ""},
		{"sm100 1cta cluster 1x2 clc", mut(one100, func(c *Config) { c.ClusterN, c.Scheduler = 2, CLCScheduler }), true, ""},
		{"sm100 gemm", mut(h100, func(c *Config) { c.Kernel = KernelGEMM }), true, ""},
		{"sm100 gemm mn-major A and B", mut(h100, func(c *Config) { c.Kernel, c.MajorA, c.MajorB = KernelGEMM, MNMajor, MNMajor }), true, ""},
		{"sm100 fwd_gateup store_out", mut(one100, func(c *Config) { c.Kernel, c.StoreOut = KernelFwdGateUp, true }), true, ""},
		{"sm100 fwd_gateup 2cta mn-major B", mut(h100, func(c *Config) { c.Kernel, c.MajorB = KernelFwdGateUp, MNMajor }), true, ""},
		{"sm100 fwd_gateup tile_n 64", mut(cfg100(128, 64, 4, OneCTA), func(c *Config) { c.Kernel = KernelFwdGateUp }), false,
			"sm_100a fwd_gateup tile_n=64 is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)"},
		{"sm100 fwd_down residual cluster 1x2 clc", mut(one100, func(c *Config) {
			c.Kernel, c.Residual, c.ClusterN, c.Scheduler = KernelFwdDown, true, 2, CLCScheduler
		}), true, ""},
		{"sm100 fast sigmoid", mut(h100, func(c *Config) { c.FastSigmoid = true }), true, ""},
		{"sm100 1cta m64", cfg100(64, 128, 4, OneCTA), false,
			"sm_100a tile_m=64 (64 rows per CTA) is not implemented yet; use 1cta tile_m=128 or 2cta tile_m=256"},
		{"sm100 epi_n 32", mut(h100, func(c *Config) { c.EpiN = 32 }), false,
			"sm_100a epilogue sub-tile width epi_n=32 is not implemented yet; use epi_n=64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Implemented is about the generator, not the hardware: every
			// case here is legal, implemented or not.
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("test config %s invalid:\n%v", tt.c.Name(), err)
			}
			ok, why := Implemented(tt.c)
			if d := cmp.Diff(struct {
				OK  bool
				Why string
			}{tt.wantOK, tt.wantWhy}, struct {
				OK  bool
				Why string
			}{ok, why}); d != "" {
				t.Errorf("Implemented(%s) (-want +got):\n%s", tt.c.Name(), d)
			}
		})
	}
}

// TestHeuristicImplemented: the no-tune default of bwd_dswiglu must be a
// config the generator renders, on every arch and type.
func TestHeuristicImplemented(t *testing.T) {
	t.Parallel()
	for _, a := range Arches() {
		for _, d := range DTypes() {
			for _, s := range []Shape{{M: 16384, K: 768, I: 4608}, {M: 256, K: 64, I: 128}} {
				c, err := Heuristic(KernelBwdDSwiGLU, a, d, s)
				if err != nil {
					t.Fatalf("Heuristic(%s, %s, %+v): %v", a, d, s, err)
				}
				if ok, why := Implemented(c); !ok {
					t.Errorf("Heuristic(%s, %s, %+v) = %s: not implemented: %s", a, d, s, c.Name(), why)
				}
			}
		}
	}
}

// TestHeuristicImplementedSM90Kinds: `swigen verify --kernel K` without a
// name runs the heuristic config, so for every kind it must render on
// sm_90a.
func TestHeuristicImplementedSM90Kinds(t *testing.T) {
	t.Parallel()
	for _, k := range Kernels() {
		for _, d := range DTypes() {
			c, err := Heuristic(k, ArchSM90a, d, Shape{M: 16384, K: 768, I: 4608})
			if err != nil {
				t.Fatalf("Heuristic(%s, %s): %v", k, d, err)
			}
			if ok, why := Implemented(c); !ok {
				t.Errorf("Heuristic(%s, %s) = %s: not implemented: %s", k, d, c.Name(), why)
			}
		}
	}
}

package tiling

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckSpace: every config of every kind's tuning space (with and
// without store_out), on every arch and dtype, and of the catalog passes
// Check, which hands back the config unchanged.
func TestCheckSpace(t *testing.T) {
	t.Parallel()
	var cfgs []Config
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				cfgs = append(cfgs, Space(k, a, d)...)
				cfgs = append(cfgs, SpaceStoreOut(k, a, d)...)
			}
		}
	}
	cfgs = append(cfgs, Catalog()...)
	if len(cfgs) < 100 {
		t.Fatalf("%d configs: the sweep checks almost nothing", len(cfgs))
	}
	for _, c := range cfgs {
		k, err := Check(c)
		if err != nil {
			t.Errorf("Check(%s): %v", c.Name(), err)
			continue
		}
		if d := cmp.Diff(c, k.Config()); d != "" {
			t.Errorf("Check(%s).Config() (-in +out):\n%s", c.Name(), d)
		}
		if k.Name() != c.Name() {
			t.Errorf("Check(%s).Name() = %s", c.Name(), k.Name())
		}
	}
}

// checkRejects are the bad configs of TestCheckRejects, one per rule the
// kernel views used to re-derive (they now trust Check): each is broken in
// one way only.
var checkRejects = []struct {
	name   string
	c      func() Config
	fields []string // the *ValidationError's fields; nil for a *NotImplementedError
	want   string   // the error text after "config <name>:" and a space, or a newline for several problems
}{
	{"sm90 tile_k 32", func() Config { c := good(ArchSM90a); c.TileK = 32; return c }, []string{"tile_k"}, "tile_k=32: must be a multiple of 64 in [64,256] (128-byte swizzle atom along K for 16-bit types)"},
	{"sm90 epilogue 128x16", func() Config { c := good(ArchSM90a); c.EpiM, c.EpiN = 128, 16; return c }, []string{"epi_m", "epi_n"}, "\n  epi_m=128: must be 64 on sm_90a (one wgmma M of rows)\n  epi_n=16: must be 32 or 64 on sm_90a (one 64- or 128-byte swizzle row wide)"},
	{"sm90 gemm epi_n 32", func() Config { c := good(ArchSM90a); c.Kernel, c.EpiN = KernelGEMM, 32; return c }, nil, "not implemented: sm_90a epilogue sub-tile width epi_n=32 is implemented for bwd_dswiglu pingpong and cooperative only, with store_out up to 128 accumulators; use epi_n=64"},
	{"sm90 schedule", func() Config { c := good(ArchSM90a); c.Schedule = OneCTA; return c }, []string{"schedule"}, "schedule=1cta: not available on sm_90a (want one of cooperative, pingpong, overlap)"},
	{"sm90 major_a mn", func() Config { c := good(ArchSM90a); c.MajorA = MNMajor; return c }, []string{"major_a"}, "major_a=mn: must be k for bwd_dswiglu (the activation operand is [M,K] row-major)"},
	{"sm90 overlap gemm", func() Config {
		c := good(ArchSM90a)
		c.Kernel, c.Schedule, c.TileN = KernelGEMM, Overlap, 128
		return c
	}, nil, "not implemented: sm_90a overlap is implemented for bwd_dswiglu without store_out"},
	{"sm90 fwd_gateup tile_n 64", func() Config { c := good(ArchSM90a); c.Kernel, c.TileN = KernelFwdGateUp, 64; return c }, nil, "not implemented: sm_90a fwd_gateup tile_n=64 is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)"},
	{"sm90 gemm wide accumulator", func() Config { c := good(ArchSM90a); c.Kernel, c.TileN, c.Stages = KernelGEMM, 192, 4; return c }, nil, "not implemented: sm_90a pingpong with 192 accumulator registers per thread (tile 128x192) is implemented for bwd_dswiglu only; use tile_n <= 128"},
	{"sm100 tile_k 32", func() Config { c := good(ArchSM100a); c.TileK = 32; return c }, []string{"tile_k"}, "tile_k=32: must be a multiple of 64 in [64,256] (128-byte swizzle atom along K for 16-bit types)"},
	{"sm100 tile_m 64", func() Config { c := good(ArchSM100a); c.TileM, c.EpiM = 64, 64; return c }, nil, "not implemented: sm_100a tile_m=64 (64 rows per CTA) is not implemented yet; use 1cta tile_m=128 or 2cta tile_m=256"},
	{"sm100 epi_n 32", func() Config { c := good(ArchSM100a); c.EpiN = 32; return c }, nil, "not implemented: sm_100a epilogue sub-tile width epi_n=32 is not implemented yet; use epi_n=64"},
	{"sm100 epi_m 64", func() Config { c := good(ArchSM100a); c.EpiM = 64; return c }, []string{"epi_m"}, "epi_m=64: must be 128 on sm_100a (the rows per CTA: one TMEM lane per row)"},
	{"sm100 cluster 2x2", func() Config { c := good(ArchSM100a); c.ClusterM, c.ClusterN = 2, 2; return c }, []string{"cluster"}, "cluster=2x2: at most 2 CTAs per cluster (one operand is multicast to a CTA pair)"},
	{"sm100 2cta cluster 1x1", func() Config { c := cfg100(256, 256, 5, TwoCTA); c.ClusterM = 1; return c }, []string{"cluster"}, "cluster=1x1: must be 2x1 for 2cta (the CTA pair of cta_group::2)"},
	{"sm100 scheduler unknown", func() Config { c := good(ArchSM100a); c.Scheduler = "dynamic"; return c }, []string{"scheduler"}, "scheduler=dynamic: must be one of static, clc, streamk, grouped"},
	{"sm100 clc ring of one", func() Config { c := good(ArchSM100a); c.Scheduler, c.CLCStages = CLCScheduler, 1; return c }, []string{"clc_stages"}, "clc_stages=1: must be in [2,8] (a ring of one serializes each CLC request behind the last tile's epilogue)"},
	{"sm100 tcgen05 n", func() Config { c := good(ArchSM100a); c.TileN = 264; return c }, []string{"tile_n"}, "tile_n=264: must be a multiple of 8 in [8,256] (tcgen05 N)"},
	{"sm100 major_b mn slab", func() Config {
		c := cfg100(256, 96, 4, TwoCTA)
		c.MajorB, c.EpiN = MNMajor, 32
		return c
	}, []string{"tile_n"}, "tile_n=96: with major_b=mn the B tile columns per CTA (48) must be a multiple of 64 (128-byte swizzle atom along N)"},
	{"sm100 fwd_gateup tile_n 64", func() Config { c := good(ArchSM100a); c.Kernel, c.TileN, c.Stages = KernelFwdGateUp, 64, 4; return c }, nil, "not implemented: sm_100a fwd_gateup tile_n=64 is not implemented: it must be a multiple of 128 (TileN/2 left and TileN/2 gate columns, whole 64-column sub-tiles)"},
	{"sm100 fwd_down major_a mn", func() Config { c := good(ArchSM100a); c.Kernel, c.MajorA = KernelFwdDown, MNMajor; return c }, []string{"major_a"}, "major_a=mn: must be k for fwd_down (the activation operand is [M,K] row-major)"},
	{"sm100 l2k", func() Config { c := good(ArchSM100a); c.L2KeepOperands = true; return c }, nil, "not implemented: l2k (the operands' L2 evict_last policy) is implemented for sm_90a only"},
	{"unknown kernel", func() Config { c := good(ArchSM100a); c.Kernel = "conv"; return c }, []string{"kernel"}, "kernel=conv: must be one of bwd_dswiglu, fwd_gateup, fwd_down, gemm, moe_fwd_gateup, moe_bwd_dswiglu, moe_gemm, moe_wgrad"},
	{"unknown dtype", func() Config { c := good(ArchSM90a); c.DType = "fp8"; return c }, []string{"dtype"}, "dtype=fp8: must be one of bf16, fp16"},
}

// TestCheckRejects: Check rejects each rule once, with a *ConfigError that
// names the config exactly once and unwraps to the rule's error type.
func TestCheckRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range checkRejects {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.c()
			k, err := Check(c)
			if err == nil {
				t.Fatalf("Check(%s) accepted it", c.Name())
			}
			if k != (Checked{}) {
				t.Errorf("Check(%s) returned %+v with its error, want the zero Checked", c.Name(), k)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Name != c.Name() {
				t.Fatalf("Check(%s) = %T %v, want a *ConfigError naming it", c.Name(), err, err)
			}
			if n := strings.Count(err.Error(), c.Name()); n != 1 {
				t.Errorf("error names the config %d times, want once:\n%v", n, err)
			}
			var got []string
			var ve *ValidationError
			var ni *NotImplementedError
			switch {
			case errors.As(err, &ve):
				got = ve.Fields()
			case !errors.As(err, &ni):
				t.Errorf("Check(%s) = %v, want a *ValidationError or a *NotImplementedError inside", c.Name(), err)
			}
			if d := cmp.Diff(tt.fields, got); d != "" {
				t.Errorf("problem fields (-want +got):\n%s", d)
			}
			want := "config " + c.Name() + ": " + tt.want
			if strings.HasPrefix(tt.want, "\n") {
				want = "config " + c.Name() + ":" + tt.want
			}
			if d := cmp.Diff(want, err.Error()); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

// TestConfigErrorLines: several problems go one per indented line under
// the config's name.
func TestConfigErrorLines(t *testing.T) {
	t.Parallel()
	e := &ConfigError{Name: "x", Err: &ValidationError{Problems: []Problem{
		{Field: "tile_k", Value: "32", Rule: "a"}, {Field: "stages", Value: "9", Rule: "b"},
	}}}
	if d := cmp.Diff("config x:\n  tile_k=32: a\n  stages=9: b", e.Error()); d != "" {
		t.Errorf("Error() (-want +got):\n%s", d)
	}
}

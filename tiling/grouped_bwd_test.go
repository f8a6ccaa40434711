package tiling

import (
	"strings"
	"testing"
)

// TestGroupedBwdRules: moe_bwd_dswiglu's names round-trip with the grouped
// scheduler implied and pass Check (with and without store_out); what it
// does not implement is refused with a reason naming the kind and the rule.
func TestGroupedBwdRules(t *testing.T) {
	names := []string{
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_bmn",
		"moe_bwd_dswiglu_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
		"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s5_c1x1_1cta_bmn_tanh",
	}
	for _, name := range names {
		c, err := ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Scheduler != GroupedScheduler || c.Name() != name {
			t.Fatalf("ParseName(%s): scheduler %s, name %s", name, c.Scheduler, c.Name())
		}
		if _, err := Check(c); err != nil {
			t.Fatalf("Check(%s): %v", name, err)
		}
	}
	c, _ := ParseName(names[0])
	bad := []struct {
		what string
		edit func(*Config)
		want string
	}{
		{"static scheduler", func(c *Config) { c.Scheduler = StaticScheduler }, "scheduler=static"},
		{"sm_100a 2cta", func(c *Config) {
			c.Arch, c.Schedule, c.TileM, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, TwoCTA, 256, 256, 3, 0, 0, 0
			c.ClusterM = 2
			*c = c.WithDefaults()
		}, "moe_bwd_dswiglu on sm_100a needs schedule 1cta, not 2cta"},
		{"sm_100a cluster", func(c *Config) {
			c.Arch, c.Schedule, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, OneCTA, 256, 3, 0, 0, 0
			c.ClusterN = 2
			*c = c.WithDefaults()
		}, "moe_bwd_dswiglu needs cluster 1x1, not 1x2"},
		{"sm_100a k-major W_down", func(c *Config) {
			c.Arch, c.Schedule, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, OneCTA, 256, 3, 0, 0, 0
			c.MajorB = KMajor
			*c = c.WithDefaults()
		}, "moe_bwd_dswiglu needs major_b=mn"},
		{"overlap", func(c *Config) { c.Schedule = Overlap }, "not overlap"},
		{"cluster", func(c *Config) { c.ClusterM = 2 }, "needs cluster 1x1, not 2x1"},
		{"k-major W_down", func(c *Config) { c.MajorB = KMajor }, "needs major_b=mn"},
		{"epi_pipe", func(c *Config) { c.EpiPipe, c.EpiN = true, 32 }, "only bwd_dswiglu has the pipelined epilogue"},
		{"narrow epilogue", func(c *Config) { c.EpiN = 32 }, "moe_bwd_dswiglu epi_n=32 is not implemented"},
		{"wide accumulator", func(c *Config) { c.TileN = 192 }, "accumulator registers per thread is not implemented"},
		{"l2k", func(c *Config) { c.L2KeepOperands = true }, "moe_bwd_dswiglu with l2k is not implemented"},
		{"raster n", func(c *Config) { c.Raster, c.SwizzleGroup = RasterN, 4 }, "raster=n swizzle_group=4 would change nothing"},
	}
	for _, b := range bad {
		x := c
		b.edit(&x)
		if _, err := Check(x); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", b.what, err, b.want)
		}
	}
}

// TestGroupedBwdHeuristic: the rules give moe_bwd_dswiglu an implemented
// config (MN-major W_down; on sm_100a 1cta although the shape would give a
// dense kind the CTA pair), without and with store_out, on both arches, so
// `swigen verify --kernel moe_bwd_dswiglu` and `emit --kernel` need no
// --name.
func TestGroupedBwdHeuristic(t *testing.T) {
	for _, a := range []Arch{ArchSM90a, ArchSM100a} {
		for _, storeOut := range []bool{false, true} {
			c, err := RuleHeuristic(KernelMoEBwdDSwiGLU, a, BF16, Shape{M: 16384, K: 768, I: 4608}, storeOut)
			if err != nil {
				t.Fatalf("%s store_out=%v: %v", a, storeOut, err)
			}
			if _, err := Check(c); err != nil || c.MajorB != MNMajor || c.Scheduler != GroupedScheduler {
				t.Errorf("%s store_out=%v: %s: Check = %v, major_b %s, scheduler %s; want an implemented MN-major grouped config", a, storeOut, c.Name(), err, c.MajorB, c.Scheduler)
			}
		}
	}
}

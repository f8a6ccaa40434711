package tiling

import (
	"strings"
	"testing"
)

// TestGroupedGemmRules: moe_gemm's names round-trip with the grouped
// scheduler implied and pass Check in both B majors; what it does not
// implement is refused with a reason naming the kind and the rule.
func TestGroupedGemmRules(t *testing.T) {
	names := []string{
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
		"moe_gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
		"moe_gemm_sm90a_fp16_m128n128k64_s6_c1x1_pingpong_bmn",
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
		{"sm_100a", func(c *Config) {
			c.Arch, c.Schedule, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, OneCTA, 256, 3, 0, 0, 0
			*c = c.WithDefaults()
		}, "moe_gemm is implemented for sm_90a only, not sm_100a (the sm_100a grouped walk has no moe_gemm epilogue"},
		{"overlap", func(c *Config) { c.Schedule = Overlap }, "not overlap"},
		{"cluster", func(c *Config) { c.ClusterN = 2 }, "needs cluster 1x1, not 1x2"},
		{"mn-major A", func(c *Config) { c.MajorA = MNMajor }, "major_a=mn: must be k for moe_gemm"},
		{"ragged tile_n", func(c *Config) { c.TileN = 96 }, "moe_gemm tile_n=96 is not implemented"},
		{"wide accumulator", func(c *Config) { c.TileN, c.Stages = 192, 4 }, "accumulator registers per thread is not implemented"},
		{"l2k", func(c *Config) { c.L2KeepOperands = true }, "moe_gemm with l2k is not implemented"},
		{"store_out", func(c *Config) { c.StoreOut = true }, "store_out"},
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

// TestGroupedGemmHeuristic: the rules give moe_gemm an implemented config
// (K-major B: the forward down projection's W_down [E,H,I]), so `swigen
// verify --kernel moe_gemm` and `emit --kernel` need no --name.
func TestGroupedGemmHeuristic(t *testing.T) {
	c, err := RuleHeuristic(KernelMoEGEMM, ArchSM90a, BF16, Shape{M: 65536, K: 768, I: 2048}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(c); err != nil || c.MajorB != KMajor || c.Scheduler != GroupedScheduler {
		t.Errorf("%s: Check = %v, major_b %s, scheduler %s; want an implemented K-major grouped config", c.Name(), err, c.MajorB, c.Scheduler)
	}
}

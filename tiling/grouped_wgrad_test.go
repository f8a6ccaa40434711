package tiling

import (
	"strings"
	"testing"
)

// TestGroupedWgradRules: moe_wgrad's names round-trip with the grouped
// scheduler implied and pass Check; what it does not implement is refused
// with a reason naming the kind and the rule.
func TestGroupedWgradRules(t *testing.T) {
	names := []string{
		"moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
		"moe_wgrad_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_amn_bmn",
		"moe_wgrad_sm90a_fp16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
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
		}, "moe_wgrad is implemented for sm_90a only, not sm_100a (the tcgen05 skeleton has no K-grouped walk"},
		{"cooperative", func(c *Config) { c.Schedule = Cooperative }, "moe_wgrad runs the pingpong schedule, not cooperative"},
		{"overlap", func(c *Config) { c.Schedule = Overlap }, "not overlap"},
		{"cluster", func(c *Config) { c.ClusterM = 2 }, "needs cluster 1x1, not 2x1"},
		{"k-major A", func(c *Config) { c.MajorA = KMajor }, "moe_wgrad needs major_a=mn and major_b=mn, not major_a=k major_b=mn"},
		{"k-major B", func(c *Config) { c.MajorB = KMajor }, "moe_wgrad needs major_a=mn and major_b=mn, not major_a=mn major_b=k"},
		{"wide accumulator", func(c *Config) { c.TileN, c.Stages = 192, 4 }, "accumulator registers per thread is not implemented"},
		{"l2k", func(c *Config) { c.L2KeepOperands = true }, "moe_wgrad with l2k is not implemented"},
		{"store_out", func(c *Config) { c.StoreOut = true }, "store_out"},
		{"score", func(c *Config) { c.Score = true }, "score"},
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

// TestGroupedWgradHeuristic: the rules give moe_wgrad an implemented
// config (both operands MN-major, ping-pong), so `swigen verify --kernel
// moe_wgrad` and `emit --kernel` need no --name; on sm_100a the rule
// config is refused with the reason.
func TestGroupedWgradHeuristic(t *testing.T) {
	c, err := RuleHeuristic(KernelMoEWgrad, ArchSM90a, BF16, Shape{M: 1536, K: 65536, I: 2048}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(c); err != nil || c.MajorA != MNMajor || c.MajorB != MNMajor || c.Schedule != PingPong || c.Scheduler != GroupedScheduler {
		t.Errorf("%s: Check = %v; want an implemented MN-major ping-pong grouped config", c.Name(), err)
	}
	c, err = RuleHeuristic(KernelMoEWgrad, ArchSM100a, BF16, Shape{M: 1536, K: 65536, I: 2048}, false)
	if err == nil {
		_, err = Check(c)
	}
	if err == nil || !strings.Contains(err.Error(), "sm_90a only") {
		t.Errorf("sm_100a: %v, want the sm_90a-only refusal", err)
	}
}

package tiling

import (
	"strings"
	"testing"
)

// TestGroupedRules: a grouped kind's name round-trips with the grouped
// scheduler implied; the grouped scheduler is refused for other kinds and
// another scheduler for grouped ones; sm_100a 1cta is implemented, its
// 2cta, clusters and MN-major W are refused with a reason naming the kind
// and the value. store_out (the
// training variant) is implemented, within the shared-memory budget: its
// two de buffers per epilogue slot take a shallower operand ring.
func TestGroupedRules(t *testing.T) {
	const name = "moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong"
	c, err := ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	if c.Scheduler != GroupedScheduler || c.Name() != name {
		t.Fatalf("ParseName(%s): scheduler %s, name %s", name, c.Scheduler, c.Name())
	}
	for _, n := range []string{name, "moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta"} {
		x, err := ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(x); err != nil {
			t.Fatalf("Check(%s): %v", n, err)
		}
	}
	bad := []struct {
		what string
		edit func(*Config)
		want string
	}{
		{"static scheduler", func(c *Config) { c.Scheduler = StaticScheduler }, "scheduler=static"},
		{"grouped on gemm", func(c *Config) { c.Kernel = KernelGEMM }, "scheduler=grouped"},
		{"sm_100a 2cta", func(c *Config) {
			c.Arch, c.Schedule, c.TileM, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, TwoCTA, 256, 256, 4, 0, 0, 0
			c.ClusterM = 2
			*c = c.WithDefaults()
		}, "moe_fwd_gateup on sm_100a needs schedule 1cta, not 2cta"},
		{"sm_100a cluster", func(c *Config) {
			c.Arch, c.Schedule, c.TileN, c.Stages, c.EpiM, c.EpiN, c.EpiStages = ArchSM100a, OneCTA, 256, 4, 0, 0, 0
			c.ClusterN = 2
			*c = c.WithDefaults()
		}, "needs cluster 1x1, not 1x2"},
		{"cluster", func(c *Config) { c.ClusterM = 2 }, "needs cluster 1x1, not 2x1"},
		{"mn-major W", func(c *Config) { c.MajorB = MNMajor }, "needs major_b=k"},
		{"raster n", func(c *Config) { c.Raster, c.SwizzleGroup = RasterN, 4 }, "raster=n swizzle_group=4 would change nothing"},
		{"swizzle group", func(c *Config) { c.SwizzleGroup = 16 }, "raster=m swizzle_group=16 would change nothing"},
		{"store_out, 6 stages", func(c *Config) { c.StoreOut = true }, "smem_bytes=296192"},
	}
	for _, n := range []string{
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out",
		"moe_fwd_gateup_sm90a_bf16_m64n128k64_s5_c1x1_pingpong_out",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out",
	} {
		x, err := ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(x); err != nil || !x.StoreOut || x.Name() != n {
			t.Errorf("%s: Check = %v, StoreOut %v, name %s: want the training variant implemented", n, err, x.StoreOut, x.Name())
		}
	}
	for _, b := range bad {
		x := c
		b.edit(&x)
		if _, err := Check(x); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", b.what, err, b.want)
		}
	}
}

// TestGroupedHeuristicStoreOut: emit --kernel moe_fwd_gateup picks its
// config by the heuristic; with --store-out that is the training variant,
// its operand ring as deep as fits beside de's buffers, and implemented.
func TestGroupedHeuristicStoreOut(t *testing.T) {
	for _, tc := range []struct {
		storeOut bool
		want     string
	}{
		{false, "moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong"},
		{true, "moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"},
	} {
		c, _, err := HeuristicWhy(KernelMoEFwdGateUp, ArchSM90a, BF16, Shape{M: 16384, K: 768, I: 4608}, tc.storeOut)
		if err != nil {
			t.Fatalf("store_out=%v: %v", tc.storeOut, err)
		}
		if c.Name() != tc.want {
			t.Errorf("store_out=%v: heuristic %s, want %s", tc.storeOut, c.Name(), tc.want)
		}
		if _, err := Check(c); err != nil {
			t.Errorf("store_out=%v: Check(%s): %v", tc.storeOut, c.Name(), err)
		}
	}
}

// TestGroupedRuleSM100: the sm_100a rule gives a grouped kind 1cta even
// where a dense kind would take the CTA pair, and the result is
// implemented.
func TestGroupedRuleSM100(t *testing.T) {
	for _, storeOut := range []bool{false, true} {
		c, err := ruleConfig(KernelMoEFwdGateUp, ArchSM100a, BF16, storeOut, RuleFacts{TwoCTA: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.Schedule != OneCTA || c.ClusterM*c.ClusterN != 1 {
			t.Errorf("ruleConfig(store_out=%v) = %s, want 1cta on cluster 1x1", storeOut, c.Name())
		}
		if _, err := Check(c); err != nil {
			t.Errorf("Check(%s): %v", c.Name(), err)
		}
	}
}

// TestGroupedScore: _score round-trips on both grouped kinds (inference,
// training, backward with and without store_out) on both archs and is
// refused on a kind without a router score, each error naming the rule.
func TestGroupedScore(t *testing.T) {
	for _, n := range []string{
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_score",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_score",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
		"moe_bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong_bmn_score_tanh",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta_score",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
		"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s5_c1x1_1cta_bmn_score_tanh",
	} {
		x, err := ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(x); err != nil || !x.Score || x.Name() != n {
			t.Errorf("%s: Check = %v, Score %v, name %s: want the score variant implemented", n, err, x.Score, x.Name())
		}
	}
	for _, b := range []struct{ name, want string }{
		{"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_score", "score=true: only moe_fwd_gateup, moe_bwd_dswiglu take a router score"},
		{"moe_fwd_gateup_sm100a_bf16_m256n256k64_s4_c2x1_2cta_score", "moe_fwd_gateup on sm_100a needs schedule 1cta, not 2cta"},
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_score_out", `suffix "out" repeated or out of order`},
	} {
		x, err := ParseName(b.name)
		if err == nil {
			_, err = Check(x)
		}
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want it to contain %q", b.name, err, b.want)
		}
	}
}

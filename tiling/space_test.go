package tiling

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// spaceProps checks the properties every enumerated space has, filtered or
// not: tens of valid, default-major configs of the requested kind, within
// shared memory, unique, sorted by name and deterministic.
func spaceProps(t *testing.T, name string, sp, again []Config, k Kernel, a Arch, d DType) {
	t.Helper()
	if len(sp) < 10 || len(sp) > 99 {
		t.Errorf("%s: %d configs, want tens", name, len(sp))
	}
	lim, _ := LimitsFor(a)
	seen := map[string]bool{}
	var names []string
	for _, c := range sp {
		n := c.Name()
		if err := c.Validate(); err != nil {
			t.Errorf("%s: invalid:\n%v", n, err)
		}
		if c.SmemBytes() > lim.SmemPerBlock {
			t.Errorf("%s: smem %d > %d", n, c.SmemBytes(), lim.SmemPerBlock)
		}
		if seen[n] {
			t.Errorf("%s: duplicate name", n)
		}
		seen[n] = true
		names = append(names, n)
		if c.Kernel != k || c.Arch != a || c.DType != d || c.MajorA != KMajor || c.MajorB != KMajor || c.StoreOut {
			t.Errorf("%s: not a default-major config of the requested kind", n)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("%s: not sorted by name", name)
	}
	if d := cmp.Diff(sp, again); d != "" {
		t.Errorf("%s: not deterministic:\n%s", name, d)
	}
}

// TestLegalSpaceProperties checks the hardware-legal enumeration of every
// kernel, arch and dtype, implemented or not, so the candidates stay sound
// for when the generator grows.
func TestLegalSpaceProperties(t *testing.T) {
	t.Parallel()
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				name := string(k) + "/" + string(a) + "/" + string(d)
				spaceProps(t, name, legalSpace(k, a, d, false), legalSpace(k, a, d, false), k, a, d)
			}
		}
	}
}

func TestSpaceProperties(t *testing.T) {
	t.Parallel()
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				name := string(k) + "/" + string(a) + "/" + string(d)
				sp := Space(k, a, d)
				if len(sp) == 0 {
					t.Errorf("%s: empty Space for an implemented kernel", name)
				}
				spaceProps(t, name, sp, Space(k, a, d), k, a, d)
				for _, c := range sp {
					if ok, why := Implemented(c); !ok {
						t.Errorf("%s: in Space but not implemented: %s", c.Name(), why)
					}
				}
				// Space is legalSpace minus exactly the unimplemented configs.
				var want []Config
				for _, c := range legalSpace(k, a, d, false) {
					if ok, _ := Implemented(c); ok {
						want = append(want, c)
					}
				}
				if d := cmp.Diff(want, sp); d != "" {
					t.Errorf("%s: Space is not legalSpace filtered by Implemented (-want +got):\n%s", name, d)
				}
			}
		}
	}
	if Space(KernelBwdDSwiGLU, "sm_80", BF16) != nil || Space(KernelBwdDSwiGLU, ArchSM90a, "fp8") != nil || Space("x", ArchSM90a, BF16) != nil {
		t.Error("Space of an unknown kernel, arch or dtype must be nil")
	}
}

// TestSpaceImplementedFilter pins what the filter drops today: fwd_gateup
// tiles whose width is not a multiple of 128, and ping-pong tiles with
// more than 128 accumulators per thread outside bwd_dswiglu (every kind has an sm_100a
// template; Space's default majors share only K-major operands in a
// cluster, which are implemented). When the generator learns one of them,
// Implemented and this test change together.
func TestSpaceImplementedFilter(t *testing.T) {
	t.Parallel()
	type key struct {
		k       Kernel
		a       Arch
		cluster string
	}
	count := func(cs []Config) map[key]int {
		m := map[key]int{}
		for _, c := range cs {
			if c.Kernel == KernelFwdGateUp && c.TileN%128 != 0 {
				continue // not implemented: counted apart below
			}
			if c.Kernel != KernelBwdDSwiGLU && c.WideAccumulator() {
				continue // not implemented: checked below
			}
			m[key{c.Kernel, c.Arch, fmt.Sprintf("%dx%d", c.ClusterM, c.ClusterN)}]++
		}
		return m
	}
	for _, d := range DTypes() {
		var legal, space []Config
		for _, k := range Kernels() {
			for _, a := range Arches() {
				legal = append(legal, legalSpace(k, a, d, false)...)
				space = append(space, Space(k, a, d)...)
			}
		}
		lc, sc := count(legal), count(space)
		for k, n := range lc {
			want := n
			if sc[k] != want {
				t.Errorf("%s: %v: Space has %d of %d legal configs, want %d", d, k, sc[k], n, want)
			}
		}
		for _, c := range space {
			if c.Kernel == KernelFwdGateUp && c.TileN%128 != 0 {
				t.Errorf("%s: in Space, but fwd_gateup needs tile_n a multiple of 128", c.Name())
			}
			if c.Kernel != KernelBwdDSwiGLU && c.WideAccumulator() {
				t.Errorf("%s: in Space, but ping-pong above 128 accumulators is implemented for bwd_dswiglu only", c.Name())
			}
		}
		// The sm_90a cluster candidates exist (and are kept).
		if lc[key{KernelBwdDSwiGLU, ArchSM90a, "2x1"}] == 0 || lc[key{KernelBwdDSwiGLU, ArchSM90a, "1x2"}] == 0 {
			t.Errorf("%s: legalSpace lost its sm_90a cluster candidates", d)
		}
	}
}

func TestSpaceStagePruning(t *testing.T) {
	t.Parallel()
	// At most two stage counts per (tile, schedule, cluster), and they are
	// adjacent with the larger one the deepest that fits (up to 6); a
	// decode stream-K tile has one, the deepest.
	type group struct {
		stages []int
		max    int
	}
	byTile := map[string]*group{}
	for _, c := range Space(KernelBwdDSwiGLU, ArchSM90a, BF16) {
		if c.Scheduler == StreamKScheduler {
			// decodeSK: one ring, the deepest that fits.
			if c.Stages != c.MaxStages() {
				t.Errorf("%s: a decode stream-K candidate at %d stages, want the deepest, %d", c.Name(), c.Stages, c.MaxStages())
			}
			continue
		}
		k := c
		k.Stages = 0
		g := byTile[k.Name()]
		if g == nil {
			g = &group{max: min(6, c.MaxStages())}
			byTile[k.Name()] = g
		}
		g.stages = append(g.stages, c.Stages)
	}
	for n, g := range byTile {
		slices.Sort(g.stages)
		want := []int{g.max - 1, g.max}
		if g.max == 3 {
			want = []int{3}
		}
		if d := cmp.Diff(want, g.stages); d != "" {
			t.Errorf("%s: stages (-want +got):\n%s", n, d)
		}
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	cat := Catalog()
	if d := cmp.Diff(catalogCandidates(), cat); d != "" {
		t.Errorf("Implemented drops catalog entries; remove them from the table (-table +catalog):\n%s", d)
	}
	count := map[string]int{}
	var names []string
	has := map[string]bool{}
	for _, c := range cat {
		n := c.Name()
		names = append(names, n)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: invalid:\n%v", n, err)
		}
		if ok, why := Implemented(c); !ok {
			t.Errorf("%s: not implemented: %s", n, why)
		}
		count[string(c.Kernel)+"/"+string(c.Arch)+"/"+string(c.DType)]++
		a := string(c.Arch) + "/"
		has[a+string(c.Schedule)] = true
		has[a+fmt.Sprintf("c%d%d", c.ClusterM, c.ClusterN)] = true
		has[a+"b"+string(c.MajorB)] = true
		has[a+"a"+string(c.MajorA)] = true
		has[a+string(c.Kernel)] = true
		if c.Residual {
			has[a+"res"] = true
		}
		has[a+string(c.DType)] = true
		has[a+"sched_"+string(c.Scheduler)] = true
		if c.StoreOut {
			has[a+"out"] = true
		}
	}
	for k, n := range count {
		if n > 6 {
			t.Errorf("%s: %d catalog configs, want <= 6", k, n)
		}
	}
	for _, want := range []string{
		"sm_90a/pingpong", "sm_90a/cooperative", "sm_90a/c11", "sm_90a/bk", "sm_90a/bmn", "sm_90a/out", "sm_90a/bf16", "sm_90a/fp16",
		"sm_100a/1cta", "sm_100a/2cta", "sm_100a/c11", "sm_100a/c21", "sm_100a/c12", "sm_100a/bk", "sm_100a/bmn", "sm_100a/out",
		"sm_100a/bf16", "sm_100a/fp16", "sm_100a/sched_static", "sm_100a/sched_clc",
		// Every kind on both targets, with an MN-major A and a residual.
		"sm_90a/amn", "sm_90a/res", "sm_100a/amn", "sm_100a/res",
		"sm_90a/gemm", "sm_90a/fwd_gateup", "sm_90a/fwd_down", "sm_90a/bwd_dswiglu",
		"sm_100a/gemm", "sm_100a/fwd_gateup", "sm_100a/fwd_down", "sm_100a/bwd_dswiglu",
	} {
		if !has[want] {
			t.Errorf("catalog does not cover %s", want)
		}
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("catalog names not sorted and unique:\n%s", strings.Join(names, "\n"))
	}
}

func TestSpaceStoreOut(t *testing.T) {
	t.Parallel()
	names := func(cs []Config) map[string]bool {
		m := map[string]bool{}
		for _, c := range cs {
			m[c.Name()] = true
		}
		return m
	}
	fwd := names(SpaceStoreOut(KernelFwdGateUp, ArchSM90a, BF16))
	bwd := names(SpaceStoreOut(KernelBwdDSwiGLU, ArchSM90a, BF16))
	for _, tt := range []struct {
		name string
		in   map[string]bool
		want bool
	}{
		// 128x128 ping-pong fits s5/s6 without the second output, s3/s4 with it.
		{"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", fwd, true},
		{"fwd_gateup_sm90a_bf16_m128n128k64_s3_c1x1_pingpong_out", fwd, true},
		{"fwd_gateup_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_out", fwd, false},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", bwd, true},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s3_c1x1_pingpong_out", bwd, true},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_out", bwd, false},
	} {
		if tt.in[tt.name] != tt.want {
			t.Errorf("%s in the store-out space: %v, want %v", tt.name, tt.in[tt.name], tt.want)
		}
	}
	if sp := SpaceStoreOut(KernelGEMM, ArchSM90a, BF16); sp != nil {
		t.Errorf("gemm has no second output, yet %d store-out configs", len(sp))
	}
	// Every config valid, implemented, StoreOut; every tile of Space still
	// there, except the overlap schedule's (it has no StoreOut epilogue).
	for _, k := range []Kernel{KernelFwdGateUp, KernelBwdDSwiGLU} {
		sp := SpaceStoreOut(k, ArchSM90a, BF16)
		tiles := map[string]bool{}
		for _, c := range sp {
			ok, why := Implemented(c)
			if !c.StoreOut || c.Validate() != nil || !ok {
				t.Errorf("%s: StoreOut %v, validate %v, implemented %v %s", c.Name(), c.StoreOut, c.Validate(), ok, why)
			}
			tiles[fmt.Sprintf("%dx%d %s c%dx%d", c.TileM, c.TileN, c.Schedule, c.ClusterM, c.ClusterN)] = true
		}
		for _, c := range Space(k, ArchSM90a, BF16) {
			if c.Schedule == Overlap {
				continue
			}
			if key := fmt.Sprintf("%dx%d %s c%dx%d", c.TileM, c.TileN, c.Schedule, c.ClusterM, c.ClusterN); !tiles[key] {
				t.Errorf("%s: tile %s lost with StoreOut", k, key)
			}
		}
	}
}

// TestGEMMSpace pins the sm_90a gemm space (gemmCands): each candidate at
// its deepest ring, stream-K, clusters and tile orders only where listed,
// and no other kind gets the gemm-only candidates. WithMajors keeps what is
// implemented in the step GEMMs' majors: no narrow width with an MN-major B.
func TestGEMMSpace(t *testing.T) {
	t.Parallel()
	names := func(cs []Config) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name())
		}
		return out
	}
	sp := Space(KernelGEMM, ArchSM90a, BF16)
	want := []string{
		"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk",
		"gemm_sm90a_bf16_m128n128k64_s6_c1x2_pingpong",
		"gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative",
		"gemm_sm90a_bf16_m128n192k64_s4_c1x1_cooperative",
		"gemm_sm90a_bf16_m128n192k64_s4_c1x1_cooperative_sk",
		"gemm_sm90a_bf16_m128n240k64_s4_c1x1_cooperative",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_g16",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_rn",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative",
		"gemm_sm90a_bf16_m128n256k64_s4_c2x1_cooperative",
		"gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative",
		"gemm_sm90a_bf16_m256n128k64_s4_c1x2_cooperative",
		"gemm_sm90a_bf16_m256n128k64_s4_c2x1_cooperative",
		"gemm_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk",
		"gemm_sm90a_bf16_m64n128k64_s6_c1x1_pingpong",
		"gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
		"gemm_sm90a_bf16_m64n256k64_s4_c1x1_pingpong",
		"gemm_sm90a_bf16_m64n256k64_s4_c1x1_pingpong_sk",
	}
	if diff := cmp.Diff(want, names(sp)); diff != "" {
		t.Errorf("gemm space (-want +got):\n%s", diff)
	}
	for _, c := range WithMajors(sp, MNMajor, MNMajor) {
		if c.TileN%64 != 0 || c.MajorA != MNMajor || c.MajorB != MNMajor {
			t.Errorf("WithMajors(mn, mn): %s", c.Name())
		}
	}
	if got := len(WithMajors(sp, KMajor, KMajor)); got != len(sp) {
		t.Errorf("WithMajors(k, k) kept %d of %d", got, len(sp))
	}
	for _, k := range []Kernel{KernelBwdDSwiGLU, KernelFwdGateUp, KernelFwdDown} {
		for _, c := range Space(k, ArchSM90a, BF16) {
			// Stream-K only as the decode tiles (decodeSK).
			decode := c.Schedule == PingPong && c.ClusterM*c.ClusterN == 1 && c.TileK == 64 && !c.StoreOut &&
				(c.TileM == 64 || c.TileM == 128 && c.TileN == 128) && c.Kernel != KernelBwdDSwiGLU
			if c.Scheduler == StreamKScheduler && !decode || c.SwizzleGroup == 16 || c.TileN%64 != 0 {
				t.Errorf("%s: a gemm-only candidate in the %s space", c.Name(), k)
			}
		}
	}
}

// TestWholeTileStagingBudget checks the shared-memory arithmetic behind
// gemmExtras: four 64x64 slots per consumer take 64 KiB, so 128x256 keeps
// three operand stages (four overflow), and ping-pong 128x128 five; and
// the narrow widths' budgets and legality.
func TestWholeTileStagingBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		valid bool
	}{
		{"gemm_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_e64x64s4", true},
		{"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_e64x64s4", false},
		{"gemm_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_e64x64s4", true},
		{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_e64x64s4", false},
		{"gemm_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_rn_g16_e64x64s4", true},
		// The narrow widths: nvjet's 176 with 5 stages fits (223 KiB);
		// 240 keeps 4; a ping-pong 128x176 holds 176 accumulators, over
		// the gemm's 128 (Implemented), and an MN-major B needs whole
		// 64-column swizzle atoms.
		{"gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative", true},
		{"gemm_sm90a_bf16_m128n176k64_s6_c1x1_cooperative", false},
		{"gemm_sm90a_bf16_m128n240k64_s5_c1x1_cooperative", false},
		{"gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative_bmn", false},
	}
	for _, tt := range tests {
		c, err := ParseName(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); (err == nil) != tt.valid {
			t.Errorf("%s: Validate() = %v, want valid %v", tt.name, err, tt.valid)
		}
	}
}

// TestSpaceHoldsRuleOrders checks that the sm_90a space of every catalog
// kind that enumerates tiles holds each tile and order its rules pick
// (ruleOrders), so tune measures the rules' choices: the space's orders
// come from the rules, and a rule's new order must enter the space with
// it. The ring depth is left out: the rules take the deepest that fits,
// the space the two deepest of spaceStages.
func TestSpaceHoldsRuleOrders(t *testing.T) {
	t.Parallel()
	noStages := func(c Config) string { c.Stages = 0; return c.Name() }
	for _, k := range Kernels() {
		if spec(k).sm90Cands != nil {
			continue
		}
		for _, storeOut := range []bool{false, true} {
			sp := Space(k, ArchSM90a, BF16)
			if storeOut {
				if !spec(k).StoreOut {
					continue
				}
				sp = SpaceStoreOut(k, ArchSM90a, BF16)
			}
			var got []string
			for _, c := range sp {
				got = append(got, noStages(c))
			}
			for _, f := range allRuleFacts() {
				c, err := ruleConfig(k, ArchSM90a, BF16, storeOut, f)
				if err != nil {
					t.Fatalf("ruleConfig(%s, store_out=%v, %+v): %v", k, storeOut, f, err)
				}
				if c.Schedule == PingPong && c.TileM == 128 && !slices.Contains(got, noStages(c)) {
					t.Errorf("%s store_out=%v facts %+v: the rules' %s is not in the space", k, storeOut, f, c.Name())
				}
			}
		}
	}
}

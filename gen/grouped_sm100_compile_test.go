package gen

import (
	"context"
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// groupedSM100Configs are the sm_100a moe_fwd_gateup configs compiled
// here: inference at two ring depths and both dtypes, and training
// (StoreOut), with and without the router score, all 1cta on cluster 1x1
// (what tiling.Implemented accepts).
var groupedSM100Configs = []string{
	"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
	"moe_fwd_gateup_sm100a_bf16_m128n128k64_s6_c1x1_1cta",
	"moe_fwd_gateup_sm100a_fp16_m128n256k64_s4_c1x1_1cta",
	"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out",
	"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta_score",
	"moe_fwd_gateup_sm100a_fp16_m128n128k64_s6_c1x1_1cta_score",
	"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
}

// groupedBwdSM100Configs are the sm_100a moe_bwd_dswiglu configs compiled
// here (MN-major W_down, 1cta on cluster 1x1): both tile widths with and
// without store_out, both dtypes, the tanh sigmoid, with and without the
// router score.
var groupedBwdSM100Configs = []string{
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn",
	"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn",
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
	"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s4_c1x1_1cta_bmn_out",
	"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn_tanh",
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn_score",
	"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s5_c1x1_1cta_bmn_score_tanh",
}

// sm100ScorePartStore is the sm_100a backward's 32-bit store of a row's
// dscore partial (the score's only store; every other global store of the
// grouped kernels is 128-bit or TMA).
var sm100ScorePartStore = regexp.MustCompile(`\sSTG\.E\s`)

// TestCompileGroupedSM100 renders the sm_100a grouped configs (the named
// ones and every grouped config of tilingtest.SM100: each tile of the
// tuning space the grouped walk implements) and compiles them with ptxas
// for sm_100a (no spills, no stack frame, no hazard notes); the SASS has
// the skeleton's opcodes (sm100Opcodes) and the 128-bit global stores of
// an expert's ragged last rows. No sm_100 GPU runs these kernels: this is
// the compile-verification tier.
func TestCompileGroupedSM100(t *testing.T) {
	tc := realToolchain(t)
	haveSASS := tc.CUObjdump != "" && tc.NVDisasm != ""
	if !haveSASS && os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
		t.Fatalf("toolchain %v lacks cuobjdump/nvdisasm", tc)
	}
	cache := t.TempDir()
	cfgs := map[string]tiling.Config{}
	for _, name := range append(slices.Clone(groupedSM100Configs), groupedBwdSM100Configs...) {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs[name] = c
	}
	for _, c := range tilingtest.SM100() {
		if c.Kernel.Grouped() {
			cfgs[c.Name()] = c
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := renderCfg(c)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			ctx := context.Background()
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_100a", CacheDir: cache})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if f := r.Report.Function(a.Name); f == nil {
				t.Errorf("ptxas report has no entry %s", a.Name)
			}
			if !haveSASS {
				t.Skipf("compiled; skipping SASS check: %v has no cuobjdump/nvdisasm", tc)
			}
			sass, err := tc.SASS(ctx, r.Cubin)
			if err != nil {
				t.Fatalf("SASS: %v", err)
			}
			if err := toolchain.CheckOpcodes(sass, append(sm100Opcodes(c), "STG.E.128")); err != nil {
				t.Error(err)
			}
			want := slices.ContainsFunc(a.Manifest.Buffers, func(b manifest.Buffer) bool { return b.Name == "dscore_part" })
			if sm100ScorePartStore.MatchString(sass) != want {
				t.Errorf("SASS has a 32-bit STG.E (the dscore partial's store): %v, want %v", !want, want)
			}
		})
	}
}

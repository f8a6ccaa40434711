package gen

import (
	"context"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// groupedBwdConfigs are the moe_bwd_dswiglu configs compiled here:
// ping-pong and cooperative, tile M 128 and 64, with and without
// store_out, both dtypes, the tanh sigmoid, with and without the router
// score.
var groupedBwdConfigs = []string{
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_bmn_out",
	"moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_bwd_dswiglu_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_bmn_tanh",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_cooperative_bmn_score",
	"moe_bwd_dswiglu_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn_out_score_tanh",
}

// groupedBwdOpcodes are the SASS opcodes the grouped backward needs beside
// the mainloop's: the TMA stores of whole sub-tiles and the 128-bit
// row-by-row stores of an expert's ragged last one.
var groupedBwdOpcodes = []string{"HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "STG.E.128", "LDS.128"}

// groupedBwdScoreOpcodes are what the score adds: the butterfly sum of a
// row's four lanes.
var groupedBwdScoreOpcodes = []string{"SHFL.BFLY"}

// TestCompileGroupedBwd renders the moe_bwd_dswiglu configs and compiles
// them with ptxas for sm_90a: no spills, no stack frame, no hazard notes,
// and the stores' opcodes in the SASS.
func TestCompileGroupedBwd(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range groupedBwdConfigs {
		t.Run(name, func(t *testing.T) {
			c, err := tiling.ParseName(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := renderCfg(c)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			ctx := context.Background()
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_90a", CacheDir: cache, Include: a.Include})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if tc.CUObjdump == "" || tc.NVDisasm == "" {
				t.Skipf("compiled; skipping SASS check: %v has no cuobjdump/nvdisasm", tc)
			}
			sass, err := tc.SASS(ctx, r.Cubin)
			if err != nil {
				t.Fatalf("SASS: %v", err)
			}
			want := groupedBwdOpcodes
			if c.Score {
				want = append(append([]string(nil), want...), groupedBwdScoreOpcodes...)
			}
			if err := toolchain.CheckOpcodes(sass, want); err != nil {
				t.Error(err)
			}
		})
	}
}

package gen

import (
	"context"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// groupedGemmConfigs are the moe_gemm configs compiled here: ping-pong and
// cooperative 128x128, ping-pong 64x128, both B majors, both dtypes.
var groupedGemmConfigs = []string{
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
	"moe_gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn",
	"moe_gemm_sm90a_fp16_m128n128k64_s6_c1x1_pingpong",
}

// TestCompileGroupedGemm renders the moe_gemm configs and compiles them
// with ptxas for sm_90a: no spills, no stack frame, no hazard notes, and
// the stores' opcodes in the SASS (the TMA stores of whole sub-tiles, the
// 128-bit row-by-row stores of an expert's ragged last one).
func TestCompileGroupedGemm(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range groupedGemmConfigs {
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
			if err := toolchain.CheckOpcodes(sass, groupedBwdOpcodes); err != nil {
				t.Error(err)
			}
		})
	}
}

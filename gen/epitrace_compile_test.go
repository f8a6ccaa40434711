package gen

import (
	"context"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// epitraceConfigs are the register-tight configs the epitrace probe exists
// for: bwd 128x192 ping-pong (the seed shape's product config, its plain
// form, the 3-slot de ring and the 64x32 ring of 4, where the trace probe
// spills 28 bytes), both dtypes, StoreOut and the fused forward's training
// kernel. The pipelined epilogue (_pipe) still spills 8 bytes with it.
var epitraceConfigs = []string{
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong",
	"bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_pingpong_rn_g4_e64x64s3_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_out_l2k",
	"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
}

// TestCompileEpitrace compiles the epitrace probe of epitraceConfigs with
// ptxas for sm_90a under the build check (no spills, no stack frame): the
// probe exists so that these kernels can be traced on the product's
// ldmatrix path, which the trace probe's counters make spill at 128x192.
func TestCompileEpitrace(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range epitraceConfigs {
		t.Run(name, func(t *testing.T) {
			c, err := tiling.ParseName(name)
			if err != nil {
				t.Fatal(err)
			}
			k, err := tiling.Check(c)
			if err != nil {
				t.Fatal(err)
			}
			a, err := RenderProbe(k, "epitrace")
			if err != nil {
				t.Fatalf("RenderProbe: %v", err)
			}
			if _, err := tc.Compile(context.Background(), a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_90a", CacheDir: cache, Include: a.Include}); err != nil {
				t.Fatalf("Compile: %v", err)
			}
		})
	}
}

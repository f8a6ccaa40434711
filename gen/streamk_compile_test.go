package gen

import (
	"context"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// streamKConfigs are the stream-K configs compiled here: every kind,
// cooperative (two consumer parts per split tile) and ping-pong (one), K-
// and MN-major operands, both dtypes, the register-tight tiles (bwd
// ping-pong 128x192, bwd cooperative 128x256), and the 64-row decode
// tiles.
var streamKConfigs = []string{
	"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
	"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk",
	"gemm_sm90a_fp16_m128n256k64_s4_c1x1_cooperative_sk_amn_bmn",
	"gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_sk",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out",
	"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk",
	"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out",
	"fwd_gateup_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn",
	"fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_bmn_res",
	"fwd_down_sm90a_fp16_m128n256k64_s4_c1x1_cooperative_sk",
	// The decode tiles with 64 accumulators, which add the partials two
	// parts a step (sw_sk_add2; docs/PERFORMANCE.md#decode). The 64x256
	// ones hold 128, as ping-pong 128x128 does.
	"gemm_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk",
	"fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
}

// streamKOpcodes are the SASS opcodes of the stream-K handshake, beside the
// mainloop's: the partial sums' 128-bit stores and loads, the flag's
// release store (a GPU-scope membar and a strong store) and its acquire
// load (a strong load, then an L1 invalidation, so the partial sums'
// loads after it cannot hit stale L1 lines), and each consumer's arrival
// on the workspace header's count that advances the epoch.
var streamKOpcodes = []string{"HGMMA", "UTMALDG", "UTMASTG", "SYNCS",
	"STG.E.128", "LDG.E.128", "MEMBAR.ALL.GPU", "STG.E.STRONG.GPU", "LDG.E.STRONG.GPU", "CCTL.IVALL",
	"ATOMG.E.ADD.STRONG.GPU"}

// TestCompileStreamK renders the stream-K configs and compiles them with
// ptxas for sm_90a: no spills, no stack frame, no hazard notes (a
// serialized wgmma), and the handshake's opcodes in the SASS.
func TestCompileStreamK(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range streamKConfigs {
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
			if err := toolchain.CheckOpcodes(sass, streamKOpcodes); err != nil {
				t.Error(err)
			}
		})
	}
}

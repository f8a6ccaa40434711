package gen

import (
	"context"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// groupedWgradConfigs are the moe_wgrad configs compiled here: ping-pong
// 128x128 and 64x128, both dtypes.
var groupedWgradConfigs = []string{
	"moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_fp16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
}

// groupedWgradOpcodes are the SASS opcodes moe_wgrad needs beside the
// mainloop's: the TMA stores of dW, the 128-bit shared stores that zero a
// ragged k-block's rows past the expert, and the named barrier after them.
var groupedWgradOpcodes = []string{"HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "STS.128", "BAR.SYNC"}

// TestRenderGroupedWgrad renders the moe_wgrad configs: the K-grouped
// walk's blocks are in (the producer's loads offset by the expert's first
// token, the ragged k-block's zeroing, the empty expert's zero
// accumulators, the 3-D dW store) and the M-grouped cursor is not.
func TestRenderGroupedWgrad(t *testing.T) {
	for _, name := range groupedWgradConfigs {
		src := renderSource(t, name)
		for _, want := range []string{
			"kb * kTileK + k_row0 + kALoadK[i]", "kb * kTileK + k_row0 + kBLoadK[i]",
			"sw_kg_zero_rows(smem + s * kStageBytes, kg_valid",
			"if (kblocks == 0) {", "sw_tma_store_3d(&tmap_c, slot, cc, rr, e_t)",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("%s: the source lacks %q", name, want)
			}
		}
		if strings.Contains(src, "sw_gr_tile") {
			t.Errorf("%s: the source has the M-grouped cursor", name)
		}
	}
}

// TestCompileGroupedWgrad renders the moe_wgrad configs and compiles them
// with ptxas for sm_90a: no spills, no stack frame, no hazard notes, and
// the opcodes of groupedWgradOpcodes in the SASS.
func TestCompileGroupedWgrad(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range groupedWgradConfigs {
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
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_90a", CacheDir: cache})
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
			if err := toolchain.CheckOpcodes(sass, groupedWgradOpcodes); err != nil {
				t.Error(err)
			}
		})
	}
}

//go:build gpu

package check

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// moeGemmConfigs are the moe_gemm configs the GPU tests run: ping-pong and
// cooperative 128x128, ping-pong 64x128 (the forward down projection's
// K-major B), MN-major B, fp16.
var moeGemmConfigs = []string{
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
	"moe_gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn",
	"moe_gemm_sm90a_fp16_m128n128k64_s6_c1x1_pingpong",
}

// TestGPUMoEGemm verifies every moe_gemm config on every routing of
// MoERoutings against the float64 per-expert reference, C poisoned before
// each launch, each launch repeated three times and compared bit for bit,
// and checks that T = 0 is refused by the shape rule that names it.
func TestGPUMoEGemm(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range moeGemmConfigs {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			routings := moeTestRoutings(k.Man.Config.TileM)
			rs := VerifyMoEGemm(env, k, routings, Options{Seed: 9, Repeat: 3, Timeout: 60 * time.Second})
			reportMoERoutings(t, routings, rs, "N")
			err := launch.CheckShape(k.Man.Config, launch.MoEGemmArgs{T: 0, N: 64, K: 64, E: 4})
			if err == nil || !strings.Contains(err.Error(), "T=0") {
				t.Errorf("T=0: CheckShape = %v, want the rule naming T=0", err)
			}
		})
	}
}

// TestGPUMoEGemmTiming times moe_gemm (ping-pong and cooperative 128x128,
// or SWIGEN_MOE_TIMED's: timedConfigs) on the down projection of the
// layers of SWIGEN_MOE_TIME ("T,K,I,E;...": C [T,K] = h [T,I] @
// W_down[e]^T, TimeMoEGemm), uniform routing, with the median of 30
// launches (L2 not flushed); skipped when unset.
func TestGPUMoEGemmTiming(t *testing.T) {
	spec := os.Getenv("SWIGEN_MOE_TIME")
	if spec == "" {
		t.Skip("SWIGEN_MOE_TIME unset")
	}
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range timedConfigs(tiling.KernelMoEGEMM, moeGemmConfigs[:2]) {
		k := moeKernel(t, env, name)
		for _, s := range strings.Split(spec, ";") {
			sh, err := parseMoETime(s)
			if err != nil {
				t.Fatal(err)
			}
			us, err := TimeMoEGemm(env, k, sh, 30)
			if err != nil {
				t.Fatalf("%s %s: %v", name, s, err)
			}
			flops := 2 * float64(sh[0]) * float64(sh[1]) * float64(sh[2])
			t.Logf("TIME %s down projection T=%d K(=I)=%d N(=H)=%d E=%d uniform: median %.1f us, %.0f TFLOP/s", name, sh[0], sh[2], sh[1], sh[3], us, flops/us/1e6)
		}
		k.Close()
	}
}

// TestGPUMoEGemmBadOffs launches the ping-pong 128x128 moe_gemm configs
// (both B majors) on offs outside the contract (MoEBadOffs: decreasing,
// negative, past T) and on the offs the scheduler clamps them to: C must be
// the same bits (the clamp keeps every store inside C and every row with
// one expert).
func TestGPUMoEGemmBadOffs(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range []string{moeGemmConfigs[0], moeGemmConfigs[3]} {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			cases := MoEBadOffs(k.Man.Config.TileM)
			for i, err := range VerifyMoEGemmBadOffs(env, k, cases, 13) {
				if err != nil {
					t.Error(err)
					continue
				}
				t.Logf("PASS %s: offs %v as %v", cases[i].Name, cases[i].Raw, ClampOffs(cases[i].Raw, cases[i].T))
			}
		})
	}
}

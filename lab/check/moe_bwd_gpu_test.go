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

// moeBwdConfigs are the moe_bwd_dswiglu configs the GPU tests run:
// ping-pong and cooperative, with and without store_out, tile M 64, fp16
// with the tanh sigmoid.
var moeBwdConfigs = []string{
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_bmn_out",
	"moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_bwd_dswiglu_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_bmn_tanh",
}

// TestGPUMoEBwd verifies every moe_bwd_dswiglu config on every routing of
// MoERoutings against the float64 per-expert reference, grad_de (and out)
// poisoned before each launch, each launch repeated three times with every
// output compared bit for bit, and checks that T = 0 is refused by the
// shape rule that names it.
func TestGPUMoEBwd(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range moeBwdConfigs {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			routings := moeTestRoutings(k.Man.Config.TileM)
			rs := VerifyMoEBwd(env, k, routings, Options{Seed: 5, Repeat: 3, Timeout: 60 * time.Second})
			reportMoERoutings(t, routings, rs, "I")
			err := launch.CheckShape(k.Man.Config, launch.MoEBwdArgs{T: 0, K: 64, I: 64, E: 4})
			if err == nil || !strings.Contains(err.Error(), "T=0") {
				t.Errorf("T=0: CheckShape = %v, want the rule naming T=0", err)
			}
		})
	}
}

// TestGPUMoEBwdTiming times moe_bwd_dswiglu (ping-pong 128x128, without
// and with store_out, or SWIGEN_MOE_TIMED's: timedConfigs) at the expert shapes of SWIGEN_MOE_TIME
// ("T,K,I,E;..."), uniform routing, with the median of 30 launches (L2 not
// flushed); skipped when unset.
func TestGPUMoEBwdTiming(t *testing.T) {
	spec := os.Getenv("SWIGEN_MOE_TIME")
	if spec == "" {
		t.Skip("SWIGEN_MOE_TIME unset")
	}
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range timedConfigs(tiling.KernelMoEBwdDSwiGLU, moeBwdConfigs[:2]) {
		k := moeKernel(t, env, name)
		for _, s := range strings.Split(spec, ";") {
			sh, err := parseMoETime(s)
			if err != nil {
				t.Fatal(err)
			}
			us, err := TimeMoEBwd(env, k, sh, 30)
			if err != nil {
				t.Fatalf("%s %s: %v", name, s, err)
			}
			flops := 2 * float64(sh[0]) * float64(sh[1]) * float64(sh[2])
			t.Logf("TIME %s T=%d K=%d I=%d E=%d uniform: median %.1f us, %.0f TFLOP/s", name, sh[0], sh[1], sh[2], sh[3], us, flops/us/1e6)
		}
		k.Close()
	}
}

//go:build gpu

package check

import (
	"strings"
	"testing"
	"time"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tests/gputest"
)

// moeScoreConfigs are the router-score configs the GPU tests run: the
// forward, inference and training, ping-pong and cooperative, fp16 at tile
// M 64; the backward with and without store_out, cooperative, fp16 with
// the tanh sigmoid at tile M 64.
var moeScoreConfigs = []string{
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_score",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out_score",
	"moe_fwd_gateup_sm90a_fp16_m64n128k64_s5_c1x1_pingpong_out_score",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_cooperative_bmn_score",
	"moe_bwd_dswiglu_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn_out_score_tanh",
}

// TestGPUMoEScore verifies the score configs on every routing of
// MoERoutings against the float64 reference with the score (the forward's
// out scaled, de not; the backward's grad_de and out scaled and dscore,
// the partials summed by launch.SumScorePartials), every output (the
// partials too) poisoned before each launch, each launch repeated three
// times and compared bit for bit.
func TestGPUMoEScore(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range moeScoreConfigs {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			routings := moeTestRoutings(k.Man.Config.TileM)
			o := Options{Seed: 13, Repeat: 3, Timeout: 60 * time.Second}
			var rs []ShapeResult
			if strings.HasPrefix(name, "moe_bwd_") {
				rs = VerifyMoEBwd(env, k, routings, o)
			} else {
				rs = VerifyMoEFwdGateUp(env, k, routings, o)
			}
			reportMoERoutings(t, routings, rs, "I")
			if !k.Man.Config.Score {
				t.Errorf("%s: the config has no score", name)
			}
			if _, err := launch.ScorePartCols(&k.Man, nil); strings.HasPrefix(name, "moe_fwd_") && err == nil {
				t.Errorf("%s: the forward has a dscore_part buffer", name)
			}
		})
	}
}

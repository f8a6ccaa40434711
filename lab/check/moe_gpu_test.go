//go:build gpu

package check

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// moeConfigs are the grouped configs the GPU tests run: ping-pong and
// cooperative, bf16 and fp16, tile M 128 and 64, inference and training
// (_out: de stored too, in a shallower operand ring).
var moeConfigs = []string{
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
	"moe_fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_fp16_m128n128k64_s6_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out",
	"moe_fwd_gateup_sm90a_bf16_m64n128k64_s5_c1x1_pingpong_out",
	"moe_fwd_gateup_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_out",
}

// moeTimed are the configs TestGPUMoETiming times: inference and training
// at the same tile.
var moeTimed = []string{moeConfigs[0], moeConfigs[4]}

// timedConfigs is what a timing test of kind times: the names of
// SWIGEN_MOE_TIMED (comma-separated, any kinds) that are of kind, else
// defaults. An A/B of configs the verify lists do not hold (other ring
// depths) names them there, and verifies them first with swigen verify
// --name (bench/moe_stages_ab.sh): timing checks no output.
func timedConfigs(kind tiling.Kernel, defaults []string) []string {
	env := os.Getenv("SWIGEN_MOE_TIMED")
	if env == "" {
		return defaults
	}
	var names []string
	for _, n := range strings.Split(env, ",") {
		if strings.HasPrefix(n, string(kind)+"_") {
			names = append(names, n)
		}
	}
	return names
}

func moeKernel(t *testing.T, env *Env, name string) *launch.Kernel {
	t.Helper()
	cfg, err := tiling.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := BuildAndLoad(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGPUMoEFwdGateUp verifies every grouped config on every routing of
// MoERoutings against the float64 per-expert reference (out; training: de's
// left and gate halves too), each launch repeated three times with every
// output compared bit for bit, and checks that T = 0 is refused by the
// shape rule that names it.
func TestGPUMoEFwdGateUp(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range moeConfigs {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			routings := moeTestRoutings(k.Man.Config.TileM)
			rs := VerifyMoEFwdGateUp(env, k, routings, Options{Seed: 3, Repeat: 3, Timeout: 60 * time.Second})
			reportMoERoutings(t, routings, rs, "I")
			err := launch.CheckShape(k.Man.Config, launch.MoEFwdGateUpArgs{T: 0, K: 64, I: 64, E: 4})
			if err == nil || !strings.Contains(err.Error(), "T=0") {
				t.Errorf("T=0: CheckShape = %v, want the rule naming T=0", err)
			}
		})
	}
}

// TestGPUMoETiming times moe_fwd_gateup, inference and training (moeTimed,
// or SWIGEN_MOE_TIMED's: timedConfigs),
// at the expert shapes of SWIGEN_MOE_TIME ("T,K,I,E;..."), uniform
// routing, with the median of 30 launches (L2 not flushed); skipped when
// unset.
func TestGPUMoETiming(t *testing.T) {
	spec := os.Getenv("SWIGEN_MOE_TIME")
	if spec == "" {
		t.Skip("SWIGEN_MOE_TIME unset")
	}
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range timedConfigs(tiling.KernelMoEFwdGateUp, moeTimed) {
		k := moeKernel(t, env, name)
		mode := "inference"
		if k.Man.Config.StoreOut {
			mode = "training"
		}
		for _, s := range strings.Split(spec, ";") {
			sh, err := parseMoETime(s)
			if err != nil {
				t.Fatal(err)
			}
			us, err := TimeMoEFwdGateUp(env, k, sh, 30)
			if err != nil {
				t.Fatalf("%s %s: %v", name, s, err)
			}
			flops := 4 * float64(sh[0]) * float64(sh[1]) * float64(sh[2])
			t.Logf("TIME moe_fwd_gateup %s (%s) T=%d K=%d I=%d E=%d uniform: median %.1f us, %.0f TFLOP/s",
				mode, name, sh[0], sh[1], sh[2], sh[3], us, flops/us/1e6)
		}
		k.Close()
	}
}

// TestGPUMoEBadOffs launches two moe_fwd_gateup configs (inference and
// training) on offs outside the contract (MoEBadOffs: decreasing,
// negative, past T) and on the offs the scheduler clamps them to: the
// outputs must be the same bits (the clamp keeps every store inside its
// buffer and every row with one expert).
func TestGPUMoEBadOffs(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range []string{moeConfigs[0], moeConfigs[4]} {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			cases := MoEBadOffs(k.Man.Config.TileM)
			for i, err := range VerifyMoEFwdBadOffs(env, k, cases, 11) {
				if err != nil {
					t.Error(err)
					continue
				}
				t.Logf("PASS %s: offs %v as %v", cases[i].Name, cases[i].Raw, ClampOffs(cases[i].Raw, cases[i].T))
			}
		})
	}
}

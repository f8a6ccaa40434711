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

// moeWgradConfigs are the moe_wgrad configs the GPU tests run: ping-pong
// 128x128 (the rule's), 64x128 and fp16.
var moeWgradConfigs = []string{
	"moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_fp16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
}

// TestGPUMoEWgrad verifies every moe_wgrad config on every routing of
// MoERoutings for its TileK (empty experts first, inside and last, sizes
// TileK±1 and 2*TileK±1, which are TileM±1 at TileM 128) against the
// float64 per-expert reference, dW poisoned before each launch (an empty
// expert must write zeros), each launch repeated three times and compared
// bit for bit, and checks that T = 0 is refused by the shape rule that
// names it.
func TestGPUMoEWgrad(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range moeWgradConfigs {
		t.Run(name, func(t *testing.T) {
			k := moeKernel(t, env, name)
			defer k.Close()
			routings := moeTestRoutings(k.Man.Config.TileK)
			rs := VerifyMoEWgrad(env, k, routings, Options{Seed: 11, Repeat: 3, Timeout: 60 * time.Second})
			reportMoERoutings(t, routings, rs, "N")
			err := launch.CheckShape(k.Man.Config, launch.MoEWgradArgs{T: 0, N: 64, K: 64, E: 4})
			if err == nil || !strings.Contains(err.Error(), "T=0") {
				t.Errorf("T=0: CheckShape = %v, want the rule naming T=0", err)
			}
		})
	}
}

// TestGPUMoEWgradBadOffs launches the 128x128 moe_wgrad config on offs
// outside the contract (MoEBadOffs for its TileK: decreasing, negative,
// past T) and on the offs the walk clamps them to: dW must be the same
// bits (the clamp keeps every token in at most one expert).
func TestGPUMoEWgradBadOffs(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	k := moeKernel(t, env, moeWgradConfigs[0])
	defer k.Close()
	cases := MoEBadOffs(k.Man.Config.TileK)
	for i, err := range VerifyMoEWgradBadOffs(env, k, cases, 17) {
		if err != nil {
			t.Error(err)
			continue
		}
		t.Logf("PASS %s: offs %v as %v", cases[i].Name, cases[i].Raw, ClampOffs(cases[i].Raw, cases[i].T))
	}
}

// TestGPUMoEWgradTiming times moe_wgrad (ping-pong 128x128, or
// SWIGEN_MOE_TIMED's) on both weight gradients of the layers of
// SWIGEN_MOE_TIME ("T,K,I,E;...", K the hidden size H): W [E,2I,H]'s
// (A = grad_de [T,2I], B = x [T,H]: N = 2I, K = H) and W_down
// [E,H,I]'s (A = dy [T,H], B = h [T,I]: N = H, K = I), uniform routing,
// the median of 30 launches (L2 not flushed); skipped when unset.
func TestGPUMoEWgradTiming(t *testing.T) {
	spec := os.Getenv("SWIGEN_MOE_TIME")
	if spec == "" {
		t.Skip("SWIGEN_MOE_TIME unset")
	}
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range timedConfigs(tiling.KernelMoEWgrad, moeWgradConfigs[:1]) {
		k := moeKernel(t, env, name)
		for _, s := range strings.Split(spec, ";") {
			sh, err := parseMoETime(s)
			if err != nil {
				t.Fatal(err)
			}
			T, H, I, E := sh[0], sh[1], sh[2], sh[3]
			for _, g := range []struct {
				what string
				n, k int
			}{{"dW [E,2I,H]", 2 * I, H}, {"dW_down [E,H,I]", H, I}} {
				us, err := TimeMoEWgrad(env, k, [4]int{T, g.n, g.k, E}, 30)
				if err != nil {
					t.Fatalf("%s %s %s: %v", name, s, g.what, err)
				}
				flops := 2 * float64(T) * float64(g.n) * float64(g.k)
				bytes := 2 * (float64(T)*float64(g.n+g.k) + float64(E)*float64(g.n)*float64(g.k))
				t.Logf("TIME %s %s T=%d N=%d K=%d E=%d uniform: median %.1f us, %.0f TFLOP/s, %.0f GB/s (operands read once, dW written)",
					name, g.what, T, g.n, g.k, E, us, flops/us/1e6, bytes/us/1e3)
			}
		}
		k.Close()
	}
}

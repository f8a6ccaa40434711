package gobind

import (
	"bytes"
	"go/format"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestGoBindingsMoE binds the grouped fwd gate-up kernels, inference and
// training: each gets its launcher on MoEFwdGateUpArgs, and its doc says
// what it stores (training: de too, MoEFwdGateUpArgs.De required).
func TestGoBindingsMoE(t *testing.T) {
	t.Parallel()
	var cfgs []tiling.Config
	for _, n := range []string{
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	} {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	idx, mans := bindInputs(t, cfgs)
	out, err := Generate("moe", idx, mans)
	if err != nil {
		t.Fatal(err)
	}
	if formatted, err := format.Source(out.Data); err != nil || !bytes.Equal(formatted, out.Data) {
		t.Errorf("not gofmt-clean (err %v)", err)
	}
	want := []string{"alias MoEFwdGateUpArgs",
		"type MoEFwdGateUpSm90aBf16M128n128k64S4C1x1PingpongOut", "func LoadMoEFwdGateUpSm90aBf16M128n128k64S4C1x1PingpongOut",
		"MoEFwdGateUpSm90aBf16M128n128k64S4C1x1PingpongOut.Launch(MoEFwdGateUpArgs)",
		"type MoEFwdGateUpSm90aBf16M128n128k64S6C1x1Pingpong", "func LoadMoEFwdGateUpSm90aBf16M128n128k64S6C1x1Pingpong",
		"MoEFwdGateUpSm90aBf16M128n128k64S6C1x1Pingpong.Launch(MoEFwdGateUpArgs)",
	}
	if diff := cmp.Diff(want, launchers(t, out.Data)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	for _, w := range []string{
		"inference: out).",
		"training: out and de (MoEFwdGateUpArgs.De required)).",
	} {
		if !bytes.Contains(out.Data, []byte(w)) {
			t.Errorf("bindings lack %q", w)
		}
	}
}

package protocol_test

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/protocol/fromview"
	"github.com/swigen/swigen/tiling"
)

// moeWgradNames are the moe_wgrad configs modelled: ping-pong 128x128 and
// 64x128 at the rule's ring depth, and a shallow ring.
var moeWgradNames = []string{
	"moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_amn_bmn",
	"moe_wgrad_sm90a_bf16_m128n128k64_s2_c1x1_pingpong_amn_bmn",
}

// TestGroupedWgradConfigs runs the moe_wgrad configs' protocol (the
// K-grouped walk: per-tile k-blocks, none for an empty expert, ring
// positions counting the other consumer's tiles, the ragged k-block's
// stage rewritten by its consumer) over the K-grouped scenarios under
// every policy; the spec must model the K-grouped walk and no epilogue
// loads.
func TestGroupedWgradConfigs(t *testing.T) {
	specs := groupedSpecs(t, moeWgradNames, func(sp protocol.Spec) bool { return groupedSM90(sp) && sp.SM90.KGrouped })
	for _, sp := range specs {
		if len(sp.Epi.Loads) != 0 {
			t.Fatalf("%s: the spec models epilogue loads; moe_wgrad's epilogue only stores", sp.Name)
		}
	}
	verifyAll(t, specs)
}

// TestGroupedWgradCooperativeRewrite is the seeded bug behind the
// ping-pong rule (groupedWgradImplemented): under the cooperative
// schedule both consumers read every stage, so the ragged k-block's
// zeroing by one would rewrite a stage the other still reads; the model
// must report it.
func TestGroupedWgradCooperativeRewrite(t *testing.T) {
	c, err := tiling.ParseName("moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn")
	if err != nil {
		t.Fatal(err)
	}
	k, err := tiling.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := fromview.ProtocolSpec(k)
	if err != nil {
		t.Fatal(err)
	}
	// The cooperative layout on the ping-pong spec: both consumers on
	// every tile, each stage read by both.
	sp.SM90.Schedule, sp.SM90.TileStart, sp.SM90.TileStep, sp.SM90.OrderWait = "cooperative", 0, 1, false
	sp.SM90.ConsumerRowStride, sp.SM90.MB = sp.TileM/2, 1
	sp.Ring.EmptyInit *= 2
	res, err := protocol.Verify(sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("cooperative moe_wgrad: no violation; want the ragged k-block's rewrite of a stage the other consumer reads")
	}
	for _, r := range res {
		if !strings.Contains(r.String(), "/stage[") || !strings.Contains(r.String(), "rewrites or reads it") {
			t.Errorf("want only overwrites of a stage, got %s", r)
		}
	}
}

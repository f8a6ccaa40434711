package protocol_test

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/protocol"
	"github.com/swigen/swigen/tiling"
)

// The barrier model's copy of the work list is tiling's (which the
// template's sw_sk_item computes).
func TestStreamKItemsMatchTiling(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(9))
	for i := 0; i < 3000; i++ {
		tiles, kb, grid := 1+rng.Intn(300), 1+rng.Intn(150), 1+rng.Intn(140)
		p := tiling.NewStreamKPlan(tiles, kb, grid)
		cta := rng.Intn(grid)
		var want []protocol.SKWork
		for j := 0; ; j++ {
			w, ok := p.Work(cta, j)
			if !ok {
				break
			}
			want = append(want, protocol.SKWork{SKItem: protocol.SKItem{Tile: w.Tile, KB0: w.KB0, KB1: w.KB1, Role: protocol.SKRole(w.Role)}, Before: w.Before})
		}
		got := protocol.StreamKItems(tiles, kb, grid, cta, tiling.StreamKMinKBlocks)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("tiles %d, k-blocks %d, grid %d, CTA %d (-tiling +protocol):\n%s", tiles, kb, grid, cta, diff)
		}
	}
}

// TestProtocolStreamK runs stream-K configs of every kind and both
// schedules over the standard and the stream-K scenarios under every
// policy: a CTA's roles agree on its work list (the operand ring's
// positions, the ping-pong order, the epilogue rings that split parts
// skip).
func TestProtocolStreamK(t *testing.T) {
	var cfgs []tiling.Config
	for _, n := range []string{
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
		"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_sk",
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out",
		"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk",
		"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out",
		"fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_bmn_res",
		// The decode tiles (docs/PERFORMANCE.md#decode).
		"gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
		"fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
	} {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	verifyAll(t, specsOf(t, cfgs))
}

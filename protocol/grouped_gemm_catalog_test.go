package protocol_test

import (
	"testing"
)

// TestGroupedGemmConfigs runs the moe_gemm configs' protocol (the
// store-only epilogue of the grouped forward: a slot's store waited for
// before its reuse, an expert's ragged last sub-tile stored row by row and
// waited for to the last group) over the grouped scenarios under every
// policy, both B majors; the spec must model the grouped scheduler and no
// epilogue loads.
func TestGroupedGemmConfigs(t *testing.T) {
	specs := groupedSpecs(t, []string{
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
		"moe_gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn",
	}, groupedSM90)
	for _, sp := range specs {
		if len(sp.Epi.Loads) != 0 {
			t.Fatalf("%s: the spec models epilogue loads; moe_gemm's epilogue only stores", sp.Name)
		}
	}
	verifyAll(t, specs)
}

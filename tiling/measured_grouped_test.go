package tiling

import (
	"strings"
	"testing"
)

// TestMeasuredGroupedHeuristic: the heuristic reads a grouped kind's
// measured rows as a dense kind's (nearest tuned T,K,I within ln 2), the
// uniform routing's only, and says E and routing; a grouped kind without
// rows keeps its rule config.
func TestMeasuredGroupedHeuristic(t *testing.T) {
	t.Parallel()
	const (
		uni  = "moe_fwd_gateup_sm90a_bf16_m128n128k128_s3_c1x1_pingpong"
		zipf = "moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
	)
	at := Shape{M: 65536, K: 2048, I: 768}
	row := func(cfg, routing string) MeasuredRow {
		return MeasuredRow{Kernel: KernelMoEFwdGateUp, Arch: ArchSM90a, DType: BF16, Shape: at, Config: cfg,
			US: 400, BaselineUS: 520, GPU: "NVIDIA H100 80GB HBM3", Experts: 128, Routing: routing}
	}
	tab := &MeasuredTable{Format: MeasuredFormat, Rows: []MeasuredRow{row(zipf, "zipf"), row(uni, "uniform")}}
	b, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if tab, err = ParseMeasuredTable(b); err != nil {
		t.Fatal(err)
	}
	rules, _ := RuleHeuristic(KernelMoEFwdGateUp, ArchSM90a, BF16, at, false)
	tests := []struct {
		name     string
		k        Kernel
		s        Shape
		storeOut bool
		want     string
		whyHas   string
	}{
		{"at the tuned shape", KernelMoEFwdGateUp, at, false, uni, "tuned at this shape on NVIDIA H100 80GB HBM3, 1.30x the baseline there (E=128, uniform routing)"},
		{"near it", KernelMoEFwdGateUp, Shape{M: 49152, K: 2048, I: 768}, false, uni, "nearest tuned shape"},
		{"far from it", KernelMoEFwdGateUp, Shape{M: 65536, K: 7168, I: 2048}, false, rules.Name(), "away in log space"},
		{"training has no rows", KernelMoEFwdGateUp, at, true, "", "rules: no tuned shape"},
	}
	for _, tt := range tests {
		c, why, err := tab.heuristicWhy(tt.k, ArchSM90a, BF16, tt.s, tt.storeOut)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if (tt.want != "" && c.Name() != tt.want) || !strings.Contains(why, tt.whyHas) {
			t.Errorf("%s: %s (%q), want %s (%q)", tt.name, c.Name(), why, tt.want, tt.whyHas)
		}
	}
	for _, bad := range []MeasuredRow{
		{Kernel: KernelMoEFwdGateUp, Arch: ArchSM90a, DType: BF16, Shape: at, Config: uni, GPU: "g"},
		{Kernel: KernelMoEFwdGateUp, Arch: ArchSM90a, DType: BF16, Shape: at, Config: uni, GPU: "g", Experts: 128},
		{Kernel: KernelFwdGateUp, Arch: ArchSM90a, DType: BF16, Shape: at, Config: "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", GPU: "g", Experts: 8, Routing: "uniform"},
	} {
		b, _ := (&MeasuredTable{Format: MeasuredFormat, Rows: []MeasuredRow{bad}}).Marshal()
		if _, err := ParseMeasuredTable(b); err == nil || !strings.Contains(err.Error(), "a grouped kind's row has both, another kind's neither") {
			t.Errorf("row %+v: %v, want the grouped-part error", bad, err)
		}
	}
}

package tiling

import (
	"strings"
	"testing"
)

// TestMeasuredHeuristic: at every tuned shape the heuristic takes that
// shape's winner; elsewhere the nearest tuned shape's, in the asked dtype;
// where the table has no rows, the rules.
func TestMeasuredHeuristic(t *testing.T) {
	t.Parallel()
	tab, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) == 0 {
		t.Fatal("the embedded measured table has no rows")
	}
	for _, r := range tab.Rows {
		c, why, err := HeuristicWhy(r.Kernel, r.Arch, r.DType, r.Shape, r.StoreOut)
		if err != nil || c.Name() != r.Config || !strings.HasPrefix(why, "measured: the winner tuned at this shape") {
			t.Errorf("at %s %s: %s (%q, %v), want the row's %s", r.Kernel, r.Shape, c.Name(), why, err, r.Config)
		}
	}
	// Off the table: the nearest row in log space, and why.
	r0 := tab.Rows[0]
	near := Shape{M: r0.Shape.M + r0.Shape.M/10, K: r0.Shape.K, I: r0.Shape.I}
	want, _ := tab.nearest(r0.Kernel, r0.Arch, r0.DType, near, r0.StoreOut)
	c, why, err := HeuristicWhy(r0.Kernel, r0.Arch, r0.DType, near, r0.StoreOut)
	if err != nil || c.Name() != want.Row.Config || !strings.Contains(why, "nearest tuned shape") || want.Distance <= 0 {
		t.Errorf("near %s: %s (%q, %v); want %s", near, c.Name(), why, err, want.Row.Config)
	}
	// Far from every tuned shape: the rules, saying how far.
	far := Shape{M: 1024, K: 4096, I: 11008}
	m, _ := tab.nearest(KernelBwdDSwiGLU, ArchSM90a, BF16, far, false)
	rc, _ := RuleHeuristic(KernelBwdDSwiGLU, ArchSM90a, BF16, far, false)
	c, why, err = HeuristicWhy(KernelBwdDSwiGLU, ArchSM90a, BF16, far, false)
	if m.Distance <= MaxMeasuredDistance || err != nil || c != rc || !strings.Contains(why, "away in log space") {
		t.Errorf("far shape %s (distance %.2f): %s (%q, %v), want the rules' %s", far, m.Distance, c.Name(), why, err, rc.Name())
	}
	// fp16 has no rows: the bf16 winner's tile in fp16.
	c, why, err = HeuristicWhy(r0.Kernel, r0.Arch, FP16, r0.Shape, r0.StoreOut)
	if err != nil || c.DType != FP16 || strings.Replace(c.Name(), "fp16", "bf16", 1) != r0.Config || !strings.Contains(why, "tuned in bf16") {
		t.Errorf("fp16 at %s: %s (%q, %v)", r0.Shape, c.Name(), why, err)
	}
	// No sm_100a rows: the rules.
	rc, _ = RuleHeuristic(KernelBwdDSwiGLU, ArchSM100a, BF16, r0.Shape, false)
	c, why, err = HeuristicWhy(KernelBwdDSwiGLU, ArchSM100a, BF16, r0.Shape, false)
	if err != nil || c != rc || !strings.HasPrefix(why, "rules:") {
		t.Errorf("sm_100a: %s (%q, %v), want the rules' %s", c.Name(), why, err, rc.Name())
	}
}

func TestLogDistance(t *testing.T) {
	t.Parallel()
	a := Shape{M: 4096, K: 4096, I: 7168}
	for _, tt := range []struct {
		b    Shape
		want float64
	}{
		{a, 0},
		{Shape{M: 8192, K: 4096, I: 7168}, 0.6931},
		{Shape{M: 2048, K: 8192, I: 7168}, 0.9803},
	} {
		if got := LogDistance(a, tt.b); got < tt.want-1e-4 || got > tt.want+1e-4 {
			t.Errorf("LogDistance(%s, %s) = %.4f, want %.4f", a, tt.b, got, tt.want)
		}
	}
}

func TestParseMeasuredTableRejects(t *testing.T) {
	t.Parallel()
	row := `{"kernel":"bwd_dswiglu","arch":"sm_90a","dtype":"bf16","store_out":false,"shape":{"M":8,"K":8,"I":8},"config":"%s","us":1,"baseline_us":2,"gpu":"G"}`
	good := "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
	table := func(format, r string) string {
		return `{"format":"` + format + `","source":"","rows":[` + r + `]}`
	}
	for _, tt := range []struct{ name, in, want string }{
		{"format", table("v0", ""), `format "v0"`},
		{"unknown field", `{"format":"swigen-measured-v1","rows":[],"extra":1}`, "unknown field"},
		{"bad name", table(MeasuredFormat, strings.Replace(row, "%s", "nonsense", 1)), "row 0 (nonsense)"},
		{"other kind", table(MeasuredFormat, strings.Replace(row, "%s", strings.Replace(good, "bwd_dswiglu", "fwd_gateup", 1), 1)), "the config is fwd_gateup"},
	} {
		if _, err := ParseMeasuredTable([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := ParseMeasuredTable([]byte(table(MeasuredFormat, strings.Replace(row, "%s", good, 1)))); err != nil {
		t.Errorf("a good table: %v", err)
	}
}

// TestMeasuredWhyOrder: the nearest tuned shape is named in its kind's
// --shape order (M,N,K for gemm), as emit --tuned and tune read it.
func TestMeasuredWhyOrder(t *testing.T) {
	t.Parallel()
	for _, k := range []Kernel{KernelBwdDSwiGLU, KernelGEMM} {
		r := MeasuredRow{Kernel: k, Shape: Shape{M: 4096, K: 768, I: 4608}, GPU: "H200"}
		why := MeasuredChoice{Row: r, Distance: 0.5}.Why()
		if want := "nearest tuned shape, " + FormatKindShape(k, r.Shape) + " "; !strings.Contains(why, want) {
			t.Errorf("%s: %q, want it to contain %q", k, why, want)
		}
	}
}

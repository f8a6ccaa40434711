package tiling

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in      string
		want    Path
		wantErr bool
	}{
		{"auto", "", false}, {"", "", false}, {"fused", PathFused, false}, {"unfused", PathUnfused, false},
		{"Fused", "", true}, {"cublas", "", true},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParsePath(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParsePath(%q): error %q does not name the value", tt.in, err)
		}
	}
}

func TestPlanMeasurePath(t *testing.T) {
	tests := []struct {
		fused, unfused float64
		want           Path
	}{
		{100, 103, PathFused},     // fusion wins
		{100, 100, PathFused},     // a tie goes to fusion
		{100, 98, PathFused},      // unfused 2% faster: within one run-to-run deviation
		{103.1, 100, PathUnfused}, // unfused 3.1% faster: over RequiredMargin(0)
		{100, 95, PathUnfused},
		{0, 95, PathFused},  // no fused time: nothing to compare, fusion stays
		{100, 0, PathFused}, // no unfused time: likewise
	}
	for _, tt := range tests {
		if got := (PlanMeasure{FusedUS: tt.fused, UnfusedUS: tt.unfused}).Path(); got != tt.want {
			t.Errorf("fused %v unfused %v: %s, want %s", tt.fused, tt.unfused, got, tt.want)
		}
	}
}

// TestRequiredMargin pins the rule's numbers: 3.0% at a measured point,
// growing with the distance to 4.7% at ln 2, never shrinking.
func TestRequiredMargin(t *testing.T) {
	for _, tt := range []struct{ d, pct float64 }{{0, 3.05}, {0.6, 4.33}, {MaxMeasuredDistance, 4.69}} {
		if got := (math.Exp(RequiredMargin(tt.d)) - 1) * 100; math.Abs(got-tt.pct) > 0.01 {
			t.Errorf("RequiredMargin(%.2f) = %.3f%%, want %.2f%%", tt.d, got, tt.pct)
		}
	}
	for d := 0.0; d < 3; d += 0.05 {
		if RequiredMargin(d+0.05) < RequiredMargin(d) {
			t.Errorf("RequiredMargin shrinks after %.2f", d)
		}
	}
}

func TestChoosePath(t *testing.T) {
	pts := []PlanPoint{
		{Shape{8192, 8192, 3584}, PathUnfused, 1.05},
		{Shape{16384, 768, 4608}, PathFused, 0.66},
		{Shape{2048, 4096, 3584}, PathUnfused, 1.035}, // clears 3.0%, not 4.3%
		{Shape{4096, 7168, 2048}, PathFused, 1.02},    // faster, but within the noise
	}
	tests := []struct {
		name   string
		points []PlanPoint
		s      Shape
		want   Path
		why    string
	}{
		{"at a point", pts, Shape{8192, 8192, 3584}, PathUnfused, "5.0% faster than fused at this shape, over the 3.0% required"},
		{"near a point", pts, Shape{8192, 8192, 4096}, PathUnfused, "nearest shape, 8192,8192,3584 (log distance 0.13)"},
		{"near the other", pts, Shape{16384, 1024, 4608}, PathFused, "advantage at the nearest shape, 16384,768,4608 (log distance 0.29), -34.0%"},
		{"small margin at its point", pts, Shape{2048, 4096, 3584}, PathUnfused, "3.5% faster"},
		{"small margin 0.60 away", pts, Shape{3732, 4096, 3584}, PathFused, "at the nearest shape, 2048,4096,3584 (log distance 0.60), +3.5%, is under the 4.3% required"},
		{"within the noise", pts, Shape{4096, 7168, 2048}, PathFused, "at this shape, +2.0%, is under the 3.0% required"},
		{"far from all", pts, Shape{128, 768, 4608}, PathFused, "beyond 0.69"},
		{"far outside the suite, large", pts, Shape{1 << 20, 65536, 65536}, PathFused, "beyond 0.69"},
		{"far outside the suite, decode", pts, Shape{1, 8192, 28672}, PathFused, "beyond 0.69"},
		{"no points", nil, Shape{8192, 8192, 3584}, PathFused, "no measured plan"},
		{"non-positive size", pts, Shape{-1, 8192, 3584}, PathFused, "sizes must be positive"},
		{"a point that says unfused without a speedup", []PlanPoint{{Shape{64, 64, 64}, PathUnfused, 0}}, Shape{64, 64, 64}, PathFused, "under the 3.0%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := ChoosePath(tt.points, tt.s)
			if got != tt.want || !strings.Contains(why, tt.why) || !strings.HasPrefix(why, string(got)+":") {
				t.Errorf("ChoosePath = %s, %q; want %s, containing %q", got, why, tt.want, tt.why)
			}
		})
	}
}

// TestChoosePathOffTable asks the committed table's plan points at shapes
// no tuning saw: far outside the suite every kind and mode runs fused, and
// anywhere the unfused path is taken only on a margin over RequiredMargin.
func TestChoosePathOffTable(t *testing.T) {
	tab, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	far := []Shape{{1, 4096, 14336}, {16, 7168, 2048}, {1 << 20, 65536, 65536}, {65536, 512, 1024}, {3000, 5000, 30000}}
	for _, r := range tab.Rows {
		if r.Plan == nil {
			continue
		}
		ps := tab.PlanPoints(mustParse(t, r.Plan.Fused), mustParse(t, r.Plan.Gemm))
		for _, s := range append(far, Shape{r.Shape.M * 3 / 2, r.Shape.K, r.Shape.I}) {
			p, why := ChoosePath(ps, s)
			near, d := nearestPoint(ps, s)
			if p == PathUnfused && (d > MaxMeasuredDistance || math.Log(near.UnfusedSpeedup) < RequiredMargin(d)) {
				t.Errorf("%s at %s: unfused (%s) from %+v at %.2f", r.Plan.Fused, s, why, near, d)
			}
			if d > MaxMeasuredDistance && p != PathFused {
				t.Errorf("%s at %s, %.2f from every point: %s", r.Plan.Fused, s, d, p)
			}
		}
	}
}

func nearestPoint(ps []PlanPoint, s Shape) (PlanPoint, float64) {
	var best PlanPoint
	dist := math.Inf(1)
	for _, p := range ps {
		if d := LogDistance(s, p.Shape); d < dist {
			best, dist = p, d
		}
	}
	return best, dist
}

func TestUnfusedGemm(t *testing.T) {
	bwd := mustParse(t, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong")
	bwdMN := bwd
	bwdMN.MajorB = MNMajor
	up := mustParse(t, "fwd_gateup_sm90a_fp16_m128n256k64_s4_c1x1_cooperative")
	tests := []struct {
		fused     Config
		s         Shape
		wantShape Shape
		wantMN    bool
	}{
		{bwd, Shape{8192, 8192, 3584}, Shape{8192, 8192, 3584}, false},
		{bwdMN, Shape{8192, 8192, 3584}, Shape{8192, 8192, 3584}, true},
		{up, Shape{2048, 4096, 3584}, Shape{2048, 4096, 7168}, false},
	}
	for _, tt := range tests {
		gs, err := UnfusedGemmShape(tt.fused.Kernel, tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.wantShape, gs); d != "" {
			t.Errorf("%s: gemm shape (-want +got):\n%s", tt.fused.Name(), d)
		}
		g, _, err := UnfusedGemm(tt.fused, tt.s)
		if err != nil {
			t.Fatalf("%s: %v", tt.fused.Name(), err)
		}
		if g.Kernel != KernelGEMM || g.Arch != tt.fused.Arch || g.DType != tt.fused.DType || g.MajorA != KMajor || (g.MajorB == MNMajor) != tt.wantMN {
			t.Errorf("%s: unfused gemm %s: want a %s %s gemm, A K-major, B MN-major %v", tt.fused.Name(), g.Name(), tt.fused.Arch, tt.fused.DType, tt.wantMN)
		}
	}
	if _, err := UnfusedGemmShape(KernelFwdDown, Shape{128, 128, 128}); err == nil || !strings.Contains(err.Error(), "fwd_down") {
		t.Errorf("fwd_down: error %v, want one naming the kind", err)
	}
}

func TestPlanFor(t *testing.T) {
	bwd := mustParse(t, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong")
	gemm := mustParse(t, "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative")
	s := Shape{16384, 768, 4608}
	p, err := PlanFor(bwd, s, PathUnfused)
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != PathUnfused || !strings.HasPrefix(p.Why, "unfused: forced (the measured plan says ") || p.Gemm.Kernel != KernelGEMM {
		t.Errorf("forced unfused: %+v", p)
	}
	if p, err = PlanFor(gemm, s, ""); err != nil || p.Path != PathFused || p.Gemm.Kernel != "" {
		t.Errorf("gemm: %+v, %v; want fused with no unfused gemm", p, err)
	}
	if _, err := PlanFor(gemm, s, PathUnfused); err == nil || !strings.Contains(err.Error(), "no unfused path") {
		t.Errorf("gemm forced unfused: error %v, want no unfused path", err)
	}
}

func mustParse(t *testing.T, name string) Config {
	t.Helper()
	c, err := ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPlanPoints: a pair's points are the rows timed with exactly that
// fused kernel and gemm; ChoosePathForced overrides them.
func TestPlanPoints(t *testing.T) {
	const (
		a = "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong"
		b = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
		g = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"
		h = "gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative"
	)
	row := func(s Shape, fused, gemm string, fusedUS, unfusedUS float64) MeasuredRow {
		return MeasuredRow{Shape: s, Plan: &PlanMeasure{Fused: fused, Gemm: gemm, FusedUS: fusedUS, UnfusedUS: unfusedUS, BaselineUS: 1}}
	}
	tab := &MeasuredTable{Rows: []MeasuredRow{
		row(Shape{1024, 1024, 1024}, a, g, 100, 95), row(Shape{2048, 1024, 1024}, b, g, 100, 95),
		row(Shape{4096, 1024, 1024}, a, h, 100, 95), row(Shape{8192, 1024, 1024}, a, g, 100, 125),
		{Shape: Shape{64, 64, 64}},
	}}
	want := []PlanPoint{{Shape{1024, 1024, 1024}, PathUnfused, 100.0 / 95}, {Shape{8192, 1024, 1024}, PathFused, 0.8}}
	if d := cmp.Diff(want, tab.PlanPoints(mustParse(t, a), mustParse(t, g))); d != "" {
		t.Errorf("points of %s + %s (-want +got):\n%s", a, g, d)
	}
	if p, why := ChoosePathForced(want, Shape{1024, 1024, 1024}, PathFused); p != PathFused || why != "fused: forced (the measured plan says unfused)" {
		t.Errorf("forced: %s, %q", p, why)
	}
}

package tiling

import (
	"fmt"
	"math"
)

// Path is how a call of a kind runs: its fused kernel, or the unfused
// path, swigen's gemm kernel writing the intermediate (bwd_dswiglu's
// dout, fwd_gateup's de) to HBM and then the elementwise kernel.
type Path string

// The paths. The unfused path exists for bwd_dswiglu and fwd_gateup
// (HasUnfused); the other kinds are one GEMM each and always fused.
const (
	PathFused   Path = "fused"
	PathUnfused Path = "unfused"
)

// ParsePath parses a --path value: fused, unfused, or auto (""), which
// lets the dispatch plan decide.
func ParsePath(s string) (Path, error) {
	switch s {
	case "auto", "":
		return "", nil
	case string(PathFused), string(PathUnfused):
		return Path(s), nil
	}
	return "", fmt.Errorf("path %q: want auto, fused or unfused", s)
}

// HasUnfused reports whether kind k has an unfused path.
func HasUnfused(k Kernel) bool { return spec(k).UnfusedN > 0 }

// noUnfused is the error for kind k without an unfused path, naming the
// kinds that have one.
func noUnfused(op string, k Kernel) error {
	return fmt.Errorf("%s: %s has no unfused path (only %s)", op, k, Words(UnfusedKinds()))
}

// The dispatch rule's model of its own uncertainty
// (docs/DESIGN.md#dispatch-plan). The quantity is a point's log margin for
// the unfused path, ln(fused_us / unfused_us): its value at a call's shape
// is predicted by the nearest measured point's, with a standard deviation
// of sqrt(PlanNoise² + (PlanDrift·d)²) at log distance d; the plan takes
// the unfused path only where the prediction clears PlanZ of those.
const (
	// PlanNoise is the run-to-run standard deviation of the log margin at
	// one shape: 0.030 between the table's run (bench/results/plan/) and
	// the independent check run (bench/results/suite-dispatch.json), 72
	// shapes.
	PlanNoise = 0.03
	// PlanDrift is how far the log margin moves per log unit of shape
	// distance: the rms difference between measured shapes of one kernel
	// pair, net of both points' noise, 0.048 a log unit over 169 pairs
	// within 1.5 of each other (tiling/measured.json).
	PlanDrift = 0.05
	// PlanZ is how many standard deviations the predicted margin must
	// clear: one. The fused kernel is the default that needs no
	// intermediate in HBM and that the roofline favours, so the unfused
	// path must show its advantage beyond the prediction's own error.
	PlanZ = 1.0
)

// RequiredMargin is the log margin for the unfused path, ln(fused_us /
// unfused_us), that the nearest measured point must show for the plan to
// take the unfused path at log distance d from it: PlanZ standard
// deviations of the prediction: the unfused path 3.0% faster at the point
// itself, 4.3% at 0.6, 4.7% at ln 2 (beyond which no point decides).
func RequiredMargin(d float64) float64 {
	return PlanZ * math.Sqrt(PlanNoise*PlanNoise+(PlanDrift*d)*(PlanDrift*d))
}

// PlanMeasure is one shape's same-run timing of both paths (swigen bench
// with the unfused path measured), kept in the measured table's row.
type PlanMeasure struct {
	// FusedUS is the fused kernel's time, UnfusedUS the unfused path's
	// (Gemm, then the elementwise kernel), BaselineUS cuBLAS + the
	// elementwise kernel, all medians of one run.
	FusedUS    float64 `json:"fused_us"`
	UnfusedUS  float64 `json:"unfused_us"`
	BaselineUS float64 `json:"baseline_us"`
	// Fused and Gemm are the configs timed.
	Fused string `json:"fused"`
	Gemm  string `json:"gemm"`
}

// UnfusedSpeedup is FusedUS / UnfusedUS: above 1 where the unfused path
// measured faster; 0 when either time is missing.
func (p PlanMeasure) UnfusedSpeedup() float64 {
	if !(p.FusedUS > 0) || !(p.UnfusedUS > 0) {
		return 0
	}
	return p.FusedUS / p.UnfusedUS
}

// Path is the path the measurement says to take at its own shape:
// unfused only when the unfused path measured faster by RequiredMargin(0);
// missing data says nothing against fusion.
func (p PlanMeasure) Path() Path {
	if unfusedWins(p.UnfusedSpeedup(), 0) {
		return PathUnfused
	}
	return PathFused
}

// unfusedWins reports whether a point whose unfused path measured speedup
// times faster than the fused kernel decides for it at log distance d.
func unfusedWins(speedup, d float64) bool {
	return speedup > 0 && math.Log(speedup) >= RequiredMargin(d)
}

func (p PlanMeasure) check(k Kernel) error {
	if !HasUnfused(k) {
		return fmt.Errorf("plan: %s has no unfused path", k)
	}
	for _, v := range []struct {
		n string
		v float64
	}{{"fused_us", p.FusedUS}, {"unfused_us", p.UnfusedUS}, {"baseline_us", p.BaselineUS}} {
		if !(v.v > 0) || v.v > 1e9 {
			return fmt.Errorf("plan: %s %v: want a positive time in microseconds", v.n, v.v)
		}
	}
	if c, err := ParseName(p.Gemm); err != nil || c.Kernel != PlainGEMM() {
		return fmt.Errorf("plan: gemm %q is not a gemm config name", p.Gemm)
	}
	if c, err := ParseName(p.Fused); err != nil || c.Kernel != k {
		return fmt.Errorf("plan: fused %q is not a %s config name", p.Fused, k)
	}
	return nil
}

// PlanPoint is a measured shape, the path the plan takes there and the
// unfused path's measured speedup over the fused kernel; a manifest's
// dispatch section lists them, and ChoosePath decides from them at launch.
type PlanPoint struct {
	Shape Shape `json:"shape"`
	Path  Path  `json:"path"`
	// UnfusedSpeedup is fused_us / unfused_us of the same run
	// (PlanMeasure.UnfusedSpeedup).
	UnfusedSpeedup float64 `json:"unfused_speedup"`
}

// ChoosePath is the dispatch rule. The nearest point to s in log space
// decides if it is within MaxMeasuredDistance (the rule the measured
// heuristic uses for configs) and says unfused, and only if its measured
// unfused speedup clears RequiredMargin at that distance: the nearer the
// point, the smaller the margin it needs. Everywhere else the fused
// kernel, which by the roofline model saves the intermediate's round trip
// through HBM (2MI bytes for bwd_dswiglu, 4MI for fwd_gateup inference).
// It also says why, in one line. A shape with a size below 1 has no log
// distance: it gets the fused kernel, whose shape rules then refuse it.
func ChoosePath(points []PlanPoint, s Shape) (Path, string) {
	if s.M < 1 || s.K < 1 || s.I < 1 {
		return PathFused, fmt.Sprintf("fused: shape %s: sizes must be positive", s)
	}
	best, dist := -1, 0.0
	for i, p := range points {
		if d := LogDistance(s, p.Shape); best < 0 || d < dist {
			best, dist = i, d
		}
	}
	if best < 0 {
		return PathFused, "fused: no measured plan for this kind (the model: fusion saves the intermediate's HBM round trip)"
	}
	p := points[best]
	if dist > MaxMeasuredDistance {
		return PathFused, fmt.Sprintf("fused: the nearest measured shape, %d,%d,%d, is %.2f away in log space (beyond %.2f; the model: fusion saves the intermediate's HBM round trip)",
			p.Shape.M, p.Shape.K, p.Shape.I, dist, MaxMeasuredDistance)
	}
	where := "at this shape"
	if dist > 0 {
		where = fmt.Sprintf("at the nearest shape, %d,%d,%d (log distance %.2f)", p.Shape.M, p.Shape.K, p.Shape.I, dist)
	}
	pct := func(x float64) float64 { return (x - 1) * 100 }
	got, need := pct(p.UnfusedSpeedup), pct(math.Exp(RequiredMargin(dist)))
	if p.Path == PathUnfused && unfusedWins(p.UnfusedSpeedup, dist) {
		return PathUnfused, fmt.Sprintf("unfused: measured %.1f%% faster than fused %s, over the %.1f%% required there", got, where, need)
	}
	return PathFused, fmt.Sprintf("fused: the unfused path's measured advantage %s, %+.1f%%, is under the %.1f%% required there", where, got, need)
}

// ChoosePathForced is ChoosePath unless force names a path, which every
// call then takes.
func ChoosePathForced(points []PlanPoint, s Shape, force Path) (Path, string) {
	p, why := ChoosePath(points, s)
	if force == "" {
		return p, why
	}
	return force, fmt.Sprintf("%s: forced (the measured plan says %s)", force, p)
}

// PlanPoints are the measured table's plan points for the fused config
// fused with the unfused gemm config gemm, in the table's order: only
// rows whose same-run timing is of these two kernels, so each point
// compares the very kernels a call would run.
func (t *MeasuredTable) PlanPoints(fused, gemm Config) []PlanPoint {
	f, g := fused.Name(), gemm.Name()
	var ps []PlanPoint
	for _, r := range t.Rows {
		if r.Plan != nil && r.Plan.Fused == f && r.Plan.Gemm == g {
			ps = append(ps, PlanPoint{Shape: r.Shape, Path: r.Plan.Path(), UnfusedSpeedup: r.Plan.UnfusedSpeedup()})
		}
	}
	return ps
}

// UnfusedGemmShape is the GEMM of k's unfused path at s, in the gemm
// kind's Shape (M, K, I: N): bwd_dswiglu's dout [M,I] over K, fwd_gateup's
// de [M,2I] over K.
func UnfusedGemmShape(k Kernel, s Shape) (Shape, error) {
	if n := spec(k).UnfusedN; n > 0 {
		return Shape{M: s.M, K: s.K, I: n * s.I}, nil
	}
	return Shape{}, noUnfused("tiling", k)
}

// UnfusedGemm is the gemm config of fused's unfused path at shape s: the
// heuristic's gemm for the GEMM's shape, in fused's arch and dtype, with
// the operand layouts of the fused kernel's tensors (A = dy or x, M x K,
// K-major; B = W_down or W, K-major unless fused reads it MN-major), so
// both paths take the same buffers.
func UnfusedGemm(fused Config, s Shape) (Config, string, error) {
	gs, err := UnfusedGemmShape(fused.Kernel, s)
	if err != nil {
		return Config{}, "", err
	}
	c, why, err := HeuristicGemm(fused.Arch, fused.DType, gs, KMajor, orK(fused.MajorB))
	if err != nil {
		return Config{}, "", err
	}
	if err := legality(c); err != nil {
		return Config{}, "", fmt.Errorf("tiling: unfused gemm for %s: %w", fused.Name(), err)
	}
	return c, why, nil
}

// Plan is what runs a call of a kind at a shape: the path, the fused
// config, the unfused path's gemm config (kinds with one), and why.
type Plan struct {
	Path  Path
	Fused Config
	Gemm  Config // zero for kinds without an unfused path
	Why   string
}

// PlanFor is the dispatch plan for fused's kind at shape s: the measured
// table's plan points of fused and its unfused gemm decide the path
// (ChoosePathForced: force, when set, overrides them).
func PlanFor(fused Config, s Shape, force Path) (Plan, error) {
	p := Plan{Path: PathFused, Fused: fused}
	if !HasUnfused(fused.Kernel) {
		if force == PathUnfused {
			return Plan{}, noUnfused("tiling: plan", fused.Kernel)
		}
		p.Why = "fused: the kind is one GEMM"
		return p, nil
	}
	g, _, err := UnfusedGemm(fused, s)
	if err != nil {
		return Plan{}, err
	}
	p.Gemm = g
	t, err := Measured()
	if err != nil {
		return Plan{}, fmt.Errorf("tiling: plan: %w", err)
	}
	p.Path, p.Why = ChoosePathForced(t.PlanPoints(fused, g), s, force)
	return p, nil
}

package tiling

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pyPlanGolden is the file of ChoosePath cases the Python runtime's
// dispatch plan (swigen_rt.dispatch.choose_path) is checked against.
var pyPlanGolden = filepath.Join("..", "python", "tests", "testdata", "choose_path.json")

// pyPlanCase is one set of points and ChoosePath's answers at shapes.
type pyPlanCase struct {
	Of     string        `json:"of"` // the fused kernel and gemm timed together
	Points []PlanPoint   `json:"points"`
	Calls  []pyPlanQuery `json:"calls"`
}

type pyPlanQuery struct {
	Shape Shape  `json:"shape"`
	Path  Path   `json:"path"`
	Why   string `json:"why"`
}

// pyPlanCases are ChoosePath's answers over the committed measured
// table's plan points, per kind, arch, dtype and mode that has some: at
// every point, near it (within ln 2), at the threshold's either side, far
// away; and with no points.
func pyPlanCases(t *testing.T) []pyPlanCase {
	t.Helper()
	tab, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	var cases []pyPlanCase
	add := func(ps []PlanPoint, s Shape) {
		p, why := ChoosePath(ps, s)
		c := &cases[len(cases)-1]
		c.Calls = append(c.Calls, pyPlanQuery{Shape: s, Path: p, Why: why})
	}
	cases = append(cases, pyPlanCase{Of: "no points", Points: []PlanPoint{}})
	add(nil, Shape{M: 128, K: 4096, I: 14336})
	scale := func(x int, f float64) int { return max(1, int(float64(x)*f)) }
	// One case per pair of kernels timed together (the points a package
	// shipping that fused kernel and gemm carries), in the table's order.
	seen := map[[2]string]bool{}
	for _, r := range tab.Rows {
		if r.Plan == nil || seen[[2]string{r.Plan.Fused, r.Plan.Gemm}] {
			continue
		}
		seen[[2]string{r.Plan.Fused, r.Plan.Gemm}] = true
		f, errF := ParseName(r.Plan.Fused)
		g, errG := ParseName(r.Plan.Gemm)
		if errF != nil || errG != nil {
			t.Fatalf("plan of row %s: %v %v", r.Config, errF, errG)
		}
		ps := tab.PlanPoints(f, g)
		cases = append(cases, pyPlanCase{Of: f.Name() + " + " + g.Name(), Points: ps})
		for _, p := range ps {
			s := p.Shape
			add(ps, s)
			add(ps, Shape{M: scale(s.M, 1.3), K: s.K, I: scale(s.I, 0.8)})
			add(ps, Shape{M: scale(s.M, 1.99), K: s.K, I: s.I})
			add(ps, Shape{M: scale(s.M, 2.01), K: s.K, I: s.I})
			add(ps, Shape{M: scale(s.M, 3), K: scale(s.K, 3), I: scale(s.I, 3)})
		}
		add(ps, Shape{M: 1, K: 8, I: 8})
		add(ps, Shape{M: 1 << 20, K: 65536, I: 65536})
		add(ps, Shape{M: 0, K: 8, I: 8})
	}
	return cases
}

// TestPythonPlanGolden checks the Python runtime's ChoosePath cases are
// current; -update rewrites them.
func TestPythonPlanGolden(t *testing.T) {
	cases := pyPlanCases(t)
	if len(cases) < 4 {
		t.Fatalf("%d cases: the measured table has too few plan points", len(cases))
	}
	b, err := json.MarshalIndent(map[string]any{
		"doc":   "tiling.ChoosePath over the measured table's plan points (go test ./tiling -run PythonPlanGolden -update writes it); python/tests/test_dispatch.py checks swigen_rt.dispatch.choose_path against it",
		"cases": cases,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(pyPlanGolden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(pyPlanGolden)
	if err != nil {
		t.Fatalf("read golden (go test ./tiling -run PythonPlanGolden -update writes it): %v", err)
	}
	if string(want) != string(b) {
		t.Errorf("%s is stale: rerun go test ./tiling -run PythonPlanGolden -update (-golden +now):\n%s",
			pyPlanGolden, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(b), "\n")))
	}
}

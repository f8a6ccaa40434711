package tiling

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pySelectGolden is the file of selection cases the Python runtime's
// config choice (swigen_rt.select) is checked against.
var pySelectGolden = filepath.Join("..", "python", "tests", "testdata", "select.json")

// selectShapes are the shapes the selection golden asks at: every tuned
// shape (the suite), each nudged inside and outside the measured
// distance, ragged sizes, and shapes far from any tuned one.
func selectShapes(t *testing.T) []Shape {
	t.Helper()
	tab, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	var out []Shape
	seen := map[Shape]bool{}
	add := func(s Shape) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range tab.Rows {
		s := r.Shape
		add(s)
		add(Shape{M: s.M*3/2 + 1, K: s.K, I: s.I - 8})
		add(Shape{M: s.M * 2, K: s.K, I: s.I})
		add(Shape{M: s.M*2 + 1, K: s.K, I: s.I})
	}
	for _, s := range []Shape{
		{1, 8, 8}, {7, 72, 136}, {1000, 1000, 3000}, {333, 2056, 5128}, {4096, 4096, 1024},
		{65536, 1024, 2048}, {100000, 16384, 53248}, {4096, 512, 512}, {8192, 2048, 65536},
		{20000, 8192, 1024}, {3000, 4096, 14336}, {16384, 12288, 49152},
		{0, 8, 8}, {16, 100, 64}, {16, 64, 12}, {-1, 64, 64},
	} {
		add(s)
	}
	return out
}

// selectAnswer is a choice as the golden holds it: "config (measured)",
// "config (rules)", or "error: ..." for a shape no config takes.
func selectAnswer(name, source string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return name + " (" + source + ")"
}

// TestSelectionMatchesHeuristic checks the selection table's data picks
// what the heuristic picks, at every golden shape, for every op variant,
// arch and dtype.
func TestSelectionMatchesHeuristic(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range tab.Selection {
		v := OpVariant{Kernel: sel.Kernel, Name: sel.Variant}
		for _, ov := range OpVariants() {
			if ov.Kernel == sel.Kernel && ov.Name == sel.Variant {
				v = ov
			}
		}
		for _, s := range selectShapes(t) {
			name, source, err := sel.Choose(s)
			c, why, herr := HeuristicVariant(v, sel.Arch, sel.DType, s)
			if (err != nil) != (herr != nil) {
				t.Fatalf("%s %s %s %s at %s: table err %v, heuristic err %v", sel.Kernel, sel.Variant, sel.Arch, sel.DType, s, err, herr)
			}
			if err != nil {
				continue
			}
			if name != c.Name() || !strings.HasPrefix(why, source) {
				t.Errorf("%s %s %s %s at %s: table %s (%s), heuristic %s (%s)", sel.Kernel, sel.Variant, sel.Arch, sel.DType, s, name, source, c.Name(), why)
			}
		}
	}
}

// TestPythonSelectGolden checks the Python runtime's selection cases are
// current; -update rewrites them.
func TestPythonSelectGolden(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	shapes := selectShapes(t)
	type answers struct {
		Kernel  Kernel   `json:"kernel"`
		Variant string   `json:"variant"`
		Arch    Arch     `json:"arch"`
		DType   DType    `json:"dtype"`
		Answers []string `json:"answers"`
	}
	var all []answers
	for _, sel := range tab.Selection {
		a := answers{Kernel: sel.Kernel, Variant: sel.Variant, Arch: sel.Arch, DType: sel.DType}
		for _, s := range shapes {
			a.Answers = append(a.Answers, selectAnswer(sel.Choose(s)))
		}
		all = append(all, a)
	}
	b, err := json.MarshalIndent(map[string]any{
		"doc":    "tiling.Selections and each selection's choice at shapes (go test ./tiling -run PythonSelectGolden -update writes it); python/tests/test_select.py checks swigen_rt.select against it",
		"table":  tab,
		"shapes": shapes,
		"calls":  all,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(pySelectGolden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(pySelectGolden)
	if err != nil {
		t.Fatalf("read golden (go test ./tiling -run PythonSelectGolden -update writes it): %v", err)
	}
	if string(want) != string(b) {
		t.Errorf("%s is stale: rerun go test ./tiling -run PythonSelectGolden -update (-golden +now):\n%s",
			pySelectGolden, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(b), "\n")))
	}
}

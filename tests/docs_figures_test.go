package tests

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocFigures: figures the docs repeat agree with the records they
// come from: the one-shape tune time with bench/results/tune/index.json's
// default tune, docs/PERFORMANCE.md's date range with the dates the
// records in bench/results hold, and no page claims a GPU no record
// was measured on (the H100) as verified.
func TestDocFigures(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, perf := read("README.md"), read("docs/PERFORMANCE.md")

	var idx struct {
		Sweeps []struct {
			DB      string  `json:"db"`
			Command string  `json:"command"`
			WallS   float64 `json:"wall_s"`
		} `json:"sweeps"`
	}
	if err := json.Unmarshal([]byte(read("bench/results/tune/index.json")), &idx); err != nil {
		t.Fatal(err)
	}
	wall := 0.0
	for _, s := range idx.Sweeps {
		if s.Command == "swigen tune --shape 16384,768,4608 --db default.json -v" {
			wall = s.WallS
		}
	}
	if wall == 0 {
		t.Fatal("bench/results/tune/index.json records no default one-shape tune with its wall time")
	}
	secs := fmt.Sprintf("%.0f s", math.Round(wall))
	for _, w := range []string{"# " + secs + " on the H200;", "`swigen tune` at one shape takes " + secs + "."} {
		if !strings.Contains(readme, w) {
			t.Errorf("README.md does not say %q (index.json: %.1f s)", w, wall)
		}
	}

	files, err := filepath.Glob(filepath.Join(root, "bench", "results", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dates []string
	date := regexp.MustCompile(`\b20\d\d-\d\d-\d\d`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dates = append(dates, date.FindAllString(string(b), -1)...)
	}
	slices.Sort(dates)
	if len(dates) == 0 {
		t.Fatal("no dates in bench/results/*.json")
	}
	span := fmt.Sprintf("between %s and %s", dates[0], dates[len(dates)-1])
	if !strings.Contains(strings.Join(strings.Fields(perf), " "), "bf16 unless stated, "+span) {
		t.Errorf("docs/PERFORMANCE.md's opening does not say the records were measured %s", span)
	}

	for name, text := range map[string]string{"README.md": readme, "docs/PERFORMANCE.md": perf, "cmd/swigen/help/root.txt": read("cmd/swigen/help/root.txt")} {
		if strings.Contains(text, "H100/H200") {
			t.Errorf("%s says H100/H200: only the H200 ran swigen's kernels", name)
		}
	}
}

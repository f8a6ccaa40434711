package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// exprCases is the grammar's shared cases, run by this test and by the
// Python runtime's (python/tests/test_expr.py), so that both evaluators
// agree on every value and every error.
const exprCases = "testdata/expr_cases.json"

// exprCase is one shared case; see the file's doc.
type exprCase struct {
	Expr       Expr            `json:"expr"`
	Sizes      json.RawMessage `json:"sizes"` // absent: the default sizes; null: none
	Value      *int64          `json:"value"`
	Error      string          `json:"error"`
	CheckError bool            `json:"check_error"`
}

func TestExprCases(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(exprCases)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		DefaultSizes Sizes      `json:"default_sizes"`
		Cases        []exprCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", exprCases, err)
	}
	if len(file.Cases) == 0 {
		t.Fatalf("%s: no cases", exprCases)
	}
	for i, tt := range file.Cases {
		t.Run(fmt.Sprintf("%d:%s", i, tt.Expr), func(t *testing.T) {
			if (tt.Value == nil) == (tt.Error == "") {
				t.Fatalf("case %q: give exactly one of value and error", tt.Expr)
			}
			sizes := file.DefaultSizes
			if len(tt.Sizes) > 0 {
				sizes = nil // null: no sizes at all
				if err := json.Unmarshal(tt.Sizes, &sizes); err != nil {
					t.Fatalf("case %q: sizes: %v", tt.Expr, err)
				}
			}
			got, err := tt.Expr.Eval(sizes)
			if tt.Error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.Error) {
					t.Errorf("Eval(%q) = %d, %v; want an error containing %q", tt.Expr, got, err, tt.Error)
				}
			} else if err != nil || got != *tt.Value {
				t.Errorf("Eval(%q) = %d, %v; want %d", tt.Expr, got, err, *tt.Value)
			}
			if err := tt.Expr.Check(); (err != nil) != tt.CheckError {
				t.Errorf("Check(%q) = %v; want an error: %v", tt.Expr, err, tt.CheckError)
			}
		})
	}
}

// TestGridBound: a grid beyond gridDim.x's range is an error, not a
// truncated launch.
func TestGridBound(t *testing.T) {
	t.Parallel()
	m := Manifest{Name: "k", ClusterDims: [3]int{1, 1, 1}, Grid: Grid{Tiles: "cdiv(M,128)*cdiv(I,128)", CTAsPerTile: 1, Scheduler: SchedulerCLC}}
	if g, err := m.GridCTAs(Sizes{"M": 1 << 30, "I": 1 << 30}, 132, 0); err == nil || !strings.Contains(err.Error(), "gridDim.x") {
		t.Errorf("GridCTAs = %d, %v; want a grid-range error", g, err)
	}
	if g, err := m.GridCTAs(Sizes{"M": 256, "I": 256}, 132, 0); err != nil || g != 4 {
		t.Errorf("GridCTAs = %d, %v; want 4", g, err)
	}
}

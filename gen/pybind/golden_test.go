package pybind

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
)

var update = flag.Bool("update", false, "rewrite the Python tests' golden __init__.py")

// examplesInit is the __init__.py that Generate writes for the kernels of
// examples/kernels as package kernels_t: python/tests/test_package.py
// imports a copy of examples/kernels with it, so the Python tests run
// on what this package generates, not on a lookalike.
const examplesInit = "../../python/tests/testdata/kernels_t_init.py"

// TestExamplesInitGolden: the golden is current (go test ./gen/pybind -run
// ExamplesInitGolden -update rewrites it).
func TestExamplesInitGolden(t *testing.T) {
	idx, err := gen.ReadIndex(filepath.FromSlash("../../examples/kernels"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Generate("kernels_t", *idx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.FromSlash(examplesInit)
	if *update {
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test ./gen/pybind -run ExamplesInitGolden -update writes it): %v", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(f.Data), "\n")); diff != "" {
		t.Errorf("%s is stale: rerun go test ./gen/pybind -run ExamplesInitGolden -update (-golden +now):\n%s", path, diff)
	}
}

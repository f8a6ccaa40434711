// Package tests holds swigen's cross-package tests: every catalog config is
// rendered and compiled with the real CUDA compiler, rendered sources are
// pinned by golden files, and the generator's notion of what it implements
// (tiling.Implemented) is checked against what gen.Render does.
package tests

import (
	"os"
	"sync"
	"testing"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// requireCompiler is set by .ci/run: there a missing compiler is a failure,
// not a skip, so CI cannot go green by compiling nothing.
func requireCompiler() bool { return os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" }

var (
	tcOnce sync.Once
	tc     *toolchain.Toolchain
	tcErr  error
)

// findToolchain returns the located CUDA compiler, or skips t (fails it under
// SWIGEN_REQUIRE_COMPILER=1) when there is none. toolchain.Find runs
// `nvcc --version`, so the search runs once per test binary.
func findToolchain(t *testing.T) *toolchain.Toolchain {
	t.Helper()
	tcOnce.Do(func() { tc, tcErr = toolchain.Find(toolchain.FindOptions{}) })
	skipWithoutCompiler(t, tcErr)
	return tc
}

// skipWithoutCompiler skips t when findErr (toolchain.Find's error) says
// there is no CUDA compiler, or fails it under SWIGEN_REQUIRE_COMPILER=1;
// a nil findErr does nothing. Every test that needs nvcc goes through it,
// so a machine without one skips them all alike.
func skipWithoutCompiler(t *testing.T, findErr error) {
	t.Helper()
	if findErr == nil {
		return
	}
	if requireCompiler() {
		t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", findErr)
	}
	t.Skipf("skipping: no CUDA compiler found (set SWIGEN_REQUIRE_COMPILER=1 to fail instead, or run `bash .ci/run` to install the pinned one): %v", findErr)
}

// render renders c or fails t.
func render(t *testing.T, c tiling.Config) *gen.Artifact {
	t.Helper()
	a, err := gen.Render(tilingtest.Check(t, c))
	if err != nil {
		t.Fatalf("Render(%s): %v", c.Name(), err)
	}
	return a
}

// TestSkipWithoutCompiler: a machine without nvcc skips a compiler test
// (TestGoGenerateDownstream among them) rather than failing it, unless
// SWIGEN_REQUIRE_COMPILER=1.
func TestSkipWithoutCompiler(t *testing.T) {
	t.Setenv("SWIGEN_REQUIRE_COMPILER", "")
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"no compiler", toolchain.ErrNoCompiler, true},
		{"compiler", nil, false},
	} {
		var skipped, ran bool
		t.Run(tt.name, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			skipWithoutCompiler(t, tt.err)
			ran = true
		})
		if skipped != tt.want || ran == tt.want {
			t.Errorf("%s: skipped %v, went on %v; want skipped %v", tt.name, skipped, ran, tt.want)
		}
	}
}

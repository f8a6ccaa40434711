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
	if tcErr != nil {
		if requireCompiler() {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", tcErr)
		}
		t.Skipf("skipping: no CUDA compiler found (set SWIGEN_REQUIRE_COMPILER=1 to fail instead, or run `bash .ci/run` to install the pinned one): %v", tcErr)
	}
	return tc
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

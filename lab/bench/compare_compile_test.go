package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestCompareSourceCompiles builds compare.cu with the local CUDA compiler
// when one is installed (CI has the pinned pip nvcc), held to the build
// checks (no CUDA header code), and checks its entry points and that the
// per-block results leave by reductions, one of each per block.
func TestCompareSourceCompiles(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler here: %v", err)
	}
	br, err := tc.Compile(context.Background(), "swigen_bench_compare", compareSource, toolchain.CompileOptions{Arch: string(tiling.ArchSM90a), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ptx := string(br.PTX)
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		if name := compareEntry(dt); !strings.Contains(ptx, ".entry "+name) {
			t.Errorf("PTX lacks entry %s", name)
		}
	}
	for _, op := range []string{"red.global.add.f64", "red.global.add.u64", "red.global.max.u64"} {
		if !strings.Contains(ptx, op) {
			t.Errorf("PTX has no %s", op)
		}
	}
}

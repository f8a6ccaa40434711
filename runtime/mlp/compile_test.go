package mlp

import (
	"context"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestSwiGLUSourceCompiles builds swiglu.cu with the local CUDA compiler
// when one is installed (CI has the pinned pip nvcc) and checks its entry
// points and the 16-byte accesses of the vec8 path.
func TestSwiGLUSourceCompiles(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler here: %v", err)
	}
	br, err := tc.Compile(context.Background(), "swigen_mlp_swiglu", swigluSource, toolchain.CompileOptions{Arch: string(tiling.ArchSM90a), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ptx := string(br.PTX)
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, v := range []bool{true, false} {
			if name := swigluEntry(dt, v); !strings.Contains(ptx, ".entry "+name) {
				t.Errorf("PTX lacks entry %s", name)
			}
		}
	}
	for _, op := range []string{"ld.global.nc.v4", "st.global.v4"} {
		if !strings.Contains(ptx, op) {
			t.Errorf("vec8 path has no %s", op)
		}
	}
	if len(br.Cubin) == 0 {
		t.Error("no cubin")
	}
}

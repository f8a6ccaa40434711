package elementwise

import (
	"bytes"
	"context"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestCompileReproducible: two compiles of the module give the same
// bytes (emit ships its cubin and diff recompiles it): no static device
// function, whose line-table name nvcc salts per compile.
func TestCompileReproducible(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler here: %v", err)
	}
	for _, arch := range tiling.Arches() {
		var cubins [][]byte
		for range 2 {
			b, err := tc.Compile(context.Background(), ModuleName, Source(), toolchain.CompileOptions{Arch: string(arch), NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			cubins = append(cubins, b.Cubin)
		}
		if !bytes.Equal(cubins[0], cubins[1]) {
			t.Errorf("%s: two compiles of the elementwise module differ", arch)
		}
	}
}

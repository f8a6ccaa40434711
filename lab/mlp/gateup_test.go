package mlp

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// TestBenchFwdGateUpRefuses: the argument checks BenchFwdGateUp makes
// before it touches the GPU.
func TestBenchFwdGateUpRefuses(t *testing.T) {
	t.Parallel()
	kernel := func(k tiling.Kernel) *launch.Kernel {
		c := tiling.Space(k, tiling.ArchSM90a, tiling.BF16)[0]
		return &launch.Kernel{Man: manifest.Manifest{Name: c.Name(), Config: c}}
	}
	full := &Env{Ctx: &cu.Context{}, BLAS: &baseline.CuBLAS{}, SwiGLU: &SwiGLU{}}
	sh := tiling.Shape{M: 256, K: 64, I: 128}
	for _, tt := range []struct {
		name string
		env  *Env
		k    *launch.Kernel
		sh   tiling.Shape
		want string
	}{
		{"no env", nil, kernel(tiling.KernelFwdGateUp), sh, "SwiGLU elementwise kernel missing"},
		{"no SwiGLU", &Env{Ctx: &cu.Context{}, BLAS: &baseline.CuBLAS{}}, kernel(tiling.KernelFwdGateUp), sh, "missing"},
		{"other kind", full, kernel(tiling.KernelBwdDSwiGLU), sh, "is a bwd_dswiglu kernel"},
		{"bad shape", full, kernel(tiling.KernelFwdGateUp), tiling.Shape{M: 256, K: 60, I: 128}, "K=60"},
	} {
		_, err := BenchFwdGateUp(tt.env, tt.k, tt.sh, bench.Ceilings{}, bench.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}

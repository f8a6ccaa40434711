package mlp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/baseline"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// TestFwdGateUpCost: training is the ledger's segment cost exactly (so
// tune's numbers agree with bench mlp's); inference drops de's writes.
func TestFwdGateUpCost(t *testing.T) {
	t.Parallel()
	sh := tiling.Shape{M: 16384, K: 768, I: 4608}
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	seg := Cost(FwdGateUp, sh, false)
	for _, tt := range []struct {
		name    string
		storeDe bool
		want    Part
	}{
		{"training", true, seg},
		{"inference", false, Part{Name: seg.Name, FLOPs: 4 * M * K * I, Bytes: 2 * (M*K + 2*I*K + M*I)}},
	} {
		if diff := cmp.Diff(tt.want, FwdGateUpCost(sh, tt.storeDe)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// S1: 232 GFLOP; training moves 492 MB, inference 190 MB.
	if f := seg.FLOPs; f < 231.9e9 || f > 232.0e9 {
		t.Errorf("FLOPs = %g, want 232 GF", f)
	}
	if b := FwdGateUpCost(sh, true).Bytes; b < 492.2e6 || b > 492.4e6 {
		t.Errorf("training bytes = %g, want 492 MB", b)
	}
	if b := FwdGateUpCost(sh, false).Bytes; b < 190.2e6 || b > 190.4e6 {
		t.Errorf("inference bytes = %g, want 190 MB", b)
	}
}

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

package tune

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestMeasurable(t *testing.T) {
	t.Parallel()
	var got []tiling.Kernel
	for _, k := range tiling.Kernels() {
		if Measurable(k) {
			got = append(got, k)
		}
	}
	want := []tiling.Kernel{tiling.KernelBwdDSwiGLU, tiling.KernelFwdGateUp, tiling.KernelGEMM}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("measurable kinds (-want +got):\n%s", diff)
	}
}

// TestMeasureRefuses: the checks Measure makes before it touches the GPU
// (so an empty environment is enough).
func TestMeasureRefuses(t *testing.T) {
	t.Parallel()
	sh := tiling.Shape{M: 16384, K: 768, I: 4608}
	first := func(k tiling.Kernel) tiling.Config { return tiling.Space(k, tiling.ArchSM90a, tiling.BF16)[0] }
	for _, tt := range []struct {
		name   string
		cfg    tiling.Config
		status Status
		want   string
	}{
		{"fwd_down", first(tiling.KernelFwdDown), StatusCompile, "tune measures bwd_dswiglu, fwd_gateup, gemm, moe_fwd_gateup, moe_bwd_dswiglu and moe_gemm, not fwd_down"},
		{"fwd_gateup without the SwiGLU kernel", first(tiling.KernelFwdGateUp), StatusFault, "no SwiGLU elementwise kernel"},
	} {
		out := Measure(context.Background(), &MeasureEnv{}, Job{Config: tt.cfg, Shape: sh, Device: 2}, MeasureOptions{})
		if out.Status != tt.status || !strings.Contains(out.Error, tt.want) || out.Config != tt.cfg.Name() || out.Device != 2 {
			t.Errorf("%s: %+v; want status %s with %q", tt.name, out.Result, tt.status, tt.want)
		}
	}
}

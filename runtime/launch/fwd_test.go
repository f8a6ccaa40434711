package launch

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

func TestCheckFwdShapes(t *testing.T) {
	t.Parallel()
	mk := func(k tiling.Kernel, ma, mb tiling.Major) tiling.Config {
		c := tiling.Config{Kernel: k, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: tiling.PingPong,
			TileM: 128, TileN: 128, TileK: 64, MajorA: ma, MajorB: mb}.WithDefaults()
		c.Stages = c.MaxStages()
		return c
	}
	gemmKK := mk(tiling.KernelGEMM, tiling.KMajor, tiling.KMajor)
	gemmMM := mk(tiling.KernelGEMM, tiling.MNMajor, tiling.MNMajor)
	gate := mk(tiling.KernelFwdGateUp, tiling.KMajor, tiling.KMajor)
	down := mk(tiling.KernelFwdDown, tiling.KMajor, tiling.MNMajor)
	tests := []struct {
		name    string
		check   func() error
		wantErr []string
	}{
		{"gemm k/k ragged M", func() error { return CheckGemmShape(gemmKK, 129, 200, 8) }, nil},
		{"gemm k/k odd K", func() error { return CheckGemmShape(gemmKK, 64, 64, 12) }, []string{"K=12", "16-byte"}},
		{"gemm k/k odd N", func() error { return CheckGemmShape(gemmKK, 64, 100, 64) }, []string{"N=100", "C [M,N]"}},
		{"gemm mn/mn any K", func() error { return CheckGemmShape(gemmMM, 64, 64, 13) }, nil},
		{"gemm mn A needs M multiple of 8", func() error { return CheckGemmShape(gemmMM, 129, 64, 64) }, []string{"M=129", "A [K,M]"}},
		{"gemm every problem", func() error { return CheckGemmShape(gemmKK, 0, 0, 0) }, []string{"M=0", "K=0", "N=0"}},
		{"gateup seed", func() error { return CheckFwdGateUpShape(gate, 16384, 768, 4608) }, nil},
		{"gateup single row", func() error { return CheckFwdGateUpShape(gate, 1, 8, 8) }, nil},
		{"gateup odd I", func() error { return CheckFwdGateUpShape(gate, 1, 8, 12) }, []string{"I=12", "de's halves"}},
		{"down ragged", func() error { return CheckFwdDownShape(down, 333, 392, 328) }, nil},
		{"down odd K and I", func() error { return CheckFwdDownShape(down, 0, 4, 9) }, []string{"M=0", "K=4", "I=9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.check()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestPlanKindMismatch: a plan of the wrong kind fails before touching the
// device (the kernel has no context).
func TestPlanKindMismatch(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 256, K: 64, I: 128})
	if err != nil {
		t.Fatal(err)
	}
	k := &Kernel{}
	k.Man.Name, k.Man.Config = cfg.Name(), cfg
	if _, err := k.PlanGemm(GemmArgs{M: 64, N: 64, K: 64}); err == nil || !strings.Contains(err.Error(), "PlanGemm on a bwd_dswiglu kernel") {
		t.Errorf("PlanGemm: %v", err)
	}
	if _, err := k.PlanFwdGateUp(FwdGateUpArgs{M: 64, K: 64, I: 64}); err == nil || !strings.Contains(err.Error(), "want fwd_gateup") {
		t.Errorf("PlanFwdGateUp: %v", err)
	}
	if _, err := k.PlanFwdDown(FwdDownArgs{M: 64, K: 64, I: 64}); err == nil || !strings.Contains(err.Error(), "want fwd_down") {
		t.Errorf("PlanFwdDown: %v", err)
	}
	// A residual config without a residual buffer.
	res, err := tiling.ParseName("fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn_res")
	if err != nil {
		t.Fatal(err)
	}
	k.Man.Name, k.Man.Config = res.Name(), res
	if _, err := k.PlanFwdDown(FwdDownArgs{M: 64, K: 64, I: 64}); err == nil || !strings.Contains(err.Error(), "Residual is 0") {
		t.Errorf("PlanFwdDown without residual: %v", err)
	}
}

package launch

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

func TestCheckShape(t *testing.T) {
	t.Parallel()
	mk := func(k tiling.Kernel, ma, mb tiling.Major) tiling.Config {
		c := tiling.Config{Kernel: k, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: tiling.PingPong,
			TileM: 128, TileN: 128, TileK: 64, MajorA: ma, MajorB: mb}.WithDefaults()
		c.Stages = c.MaxStages()
		return c
	}
	bwd := mk(tiling.KernelBwdDSwiGLU, tiling.KMajor, tiling.KMajor)
	gemmKK := mk(tiling.KernelGEMM, tiling.KMajor, tiling.KMajor)
	gemmMM := mk(tiling.KernelGEMM, tiling.MNMajor, tiling.MNMajor)
	gate := mk(tiling.KernelFwdGateUp, tiling.KMajor, tiling.KMajor)
	down := mk(tiling.KernelFwdDown, tiling.KMajor, tiling.MNMajor)
	tests := []struct {
		name    string
		cfg     tiling.Config
		args    Args
		wantErr []string
	}{
		{"bwd seed", bwd, BwdArgs{M: 16384, K: 768, I: 4608}, nil},
		{"bwd ragged M, smallest K", bwd, BwdArgs{M: 129, K: 8, I: 200}, nil},
		{"bwd K not a multiple of 8", bwd, BwdArgs{M: 64, K: 12, I: 64}, []string{"K=12", "multiple of 8"}},
		{"bwd I not a multiple of 8", bwd, BwdArgs{M: 64, K: 64, I: 100}, []string{"I=100", "16-byte"}},
		{"bwd every problem", bwd, BwdArgs{}, []string{"M=0", "K=0", "I=0"}},
		{"gemm k/k ragged M", gemmKK, GemmArgs{M: 129, N: 200, K: 8}, nil},
		{"gemm k/k odd K", gemmKK, GemmArgs{M: 64, N: 64, K: 12}, []string{"K=12", "16-byte"}},
		{"gemm k/k odd N", gemmKK, GemmArgs{M: 64, N: 100, K: 64}, []string{"N=100", "C [M,N]"}},
		{"gemm mn/mn any K", gemmMM, GemmArgs{M: 64, N: 64, K: 13}, nil},
		{"gemm mn A needs M multiple of 8", gemmMM, GemmArgs{M: 129, N: 64, K: 64}, []string{"M=129", "A [K,M]"}},
		{"gemm every problem", gemmKK, GemmArgs{}, []string{"M=0", "K=0", "N=0"}},
		{"gateup seed", gate, FwdGateUpArgs{M: 16384, K: 768, I: 4608}, nil},
		{"gateup single row", gate, FwdGateUpArgs{M: 1, K: 8, I: 8}, nil},
		{"gateup odd I", gate, FwdGateUpArgs{M: 1, K: 8, I: 12}, []string{"I=12", "de's halves"}},
		{"down ragged", down, FwdDownArgs{M: 333, K: 392, I: 328}, nil},
		{"down odd K and I", down, FwdDownArgs{M: 0, K: 4, I: 9}, []string{"M=0", "K=4", "I=9"}},
		{"generic call", down, Call{Sizes: manifest.Sizes{"M": 1, "K": 8, "I": 8}}, nil},
		{"generic call missing a size", down, Call{Sizes: manifest.Sizes{"M": 1, "K": 8}}, []string{"size I not given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckShape(tt.cfg, tt.args)
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

// TestPlanRejects: a plan with arguments of the wrong kind, or without a
// buffer the kernel maps, fails before touching the device (the kernel has
// no context).
func TestPlanRejects(t *testing.T) {
	t.Parallel()
	kernel := func(name string) *Kernel {
		cfg, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.New(tilingtest.Check(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		return &Kernel{Man: m, numSMs: 132, encode: (&recorder{}).encode}
	}
	bwd := kernel("bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong")
	res := kernel("fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn_res")
	tests := []struct {
		name    string
		k       *Kernel
		args    Args
		wantErr string
	}{
		{"gemm args", bwd, GemmArgs{M: 64, N: 64, K: 64}, "launch.GemmArgs are for a gemm kernel, not a bwd_dswiglu one"},
		{"gateup args", bwd, FwdGateUpArgs{M: 64, K: 64, I: 64}, "are for a fwd_gateup kernel"},
		{"down args", bwd, FwdDownArgs{M: 64, K: 64, I: 64}, "are for a fwd_down kernel"},
		{"no residual", res, FwdDownArgs{M: 64, K: 64, I: 64, Out: 1 << 20, WDown: 2 << 20, Y: 3 << 20}, "buffer residual is 0, but parameter tmap_res maps it"},
	}
	for _, tt := range tests {
		if _, err := tt.k.Plan(tt.args); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: Plan = %v; want an error containing %q", tt.name, err, tt.wantErr)
		}
	}
}

package mlp

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

var s1 = tiling.Shape{M: 16384, K: 768, I: 4608}

func TestSegmentGemmMatchesCost(t *testing.T) {
	t.Parallel()
	for _, s := range []Segment{DWDown, DX, DW} {
		g, ok := segmentGemm(s, s1)
		if !ok {
			t.Fatalf("%s: not a gemm", s)
		}
		if f := 2 * float64(g.M) * float64(g.N) * float64(g.K); f != perfmodel.Cost(s, s1, false).FLOPs {
			t.Errorf("%s: gemm %+v has %g FLOPs, ledger %g", s, g, f, perfmodel.Cost(s, s1, false).FLOPs)
		}
	}
	for _, s := range []Segment{FwdGateUp, FwdDown, BwdDSwiGLU} {
		if _, ok := segmentGemm(s, s1); ok {
			t.Errorf("%s: has its own kernel kind, not a plain gemm", s)
		}
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	st := func(us float64) bench.Stats { return bench.Stats{Median: us, P20: us, P80: us, N: 20} }
	tests := []struct {
		name string
		sw   *Timing
		rel  float64
		want Impl
	}{
		{"no swigen", nil, -1, ImplBaseline},
		{"swigen faster", &Timing{T: st(90)}, 1e-3, ImplSwigen},
		{"swigen slower", &Timing{T: st(110)}, 1e-3, ImplBaseline},
		{"swigen faster but wrong", &Timing{T: st(90)}, 0.5, ImplBaseline},
		{"swigen faster, NaN", &Timing{T: st(90)}, math.Inf(1), ImplBaseline},
		{"swigen faster, not compared", &Timing{T: st(90)}, -1, ImplSwigen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := SegmentResult{Swigen: tt.sw, RelErr: tt.rel, Baseline: Timing{T: st(100)}}
			r.Choose(DefaultTol)
			if r.Chosen != tt.want {
				t.Errorf("chose %s, want %s", r.Chosen, tt.want)
			}
		})
	}
}

func TestSetBytesAndOutputs(t *testing.T) {
	t.Parallel()
	M, K, I := s1.M, s1.K, s1.I
	// x, dy, y, dx: 4MK; W, dW: 4IK and W_down, dW_down: 2IK; de, grad_de:
	// 4MI and out, dout: 2MI.
	want := 2 * (4*M*K + 6*I*K + 6*M*I)
	if got := SetBytes(s1, tiling.BF16); got != want {
		t.Errorf("SetBytes = %d, want %d", got, want)
	}
	for _, s := range perfmodel.Segments() {
		for _, rec := range []bool{false, true} {
			for _, n := range Outputs(s, rec) {
				if _, err := tensorByName(n); err != nil {
					t.Errorf("%s: %v", s, err)
				}
			}
		}
	}
	if _, err := tensorByName("nope"); err == nil {
		t.Error("unknown tensor: want error")
	}
}

// TestSwigenConfig: the bwd segment gets the heuristic bwd_dswiglu config
// (StoreOut with recompute-out); a segment without a kernel says so with
// ErrNoKernel, never a bare failure.
func TestSwigenConfig(t *testing.T) {
	t.Parallel()
	for _, rec := range []bool{false, true} {
		sw := NewSwigen(t.Context(), nil, tiling.ArchSM90a, tiling.BF16, rec)
		cfg, err := sw.Config(BwdDSwiGLU, s1)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Kernel != tiling.KernelBwdDSwiGLU || cfg.StoreOut != rec {
			t.Errorf("recompute=%v: config %s", rec, cfg.Name())
		}
		// The majors follow from the storage (package doc); fwd_gateup
		// stores de (training).
		want := map[Segment][2]tiling.Major{
			FwdGateUp: {tiling.KMajor, tiling.KMajor}, FwdDown: {tiling.KMajor, tiling.MNMajor},
			DWDown: {tiling.MNMajor, tiling.MNMajor}, DX: {tiling.KMajor, tiling.MNMajor}, DW: {tiling.MNMajor, tiling.MNMajor},
		}
		for _, s := range []Segment{FwdGateUp, FwdDown, DWDown, DX, DW} {
			for _, sh := range []tiling.Shape{s1, CheckShape} {
				cfg, err := sw.Config(s, sh)
				switch {
				case err != nil && !errors.Is(err, ErrNoKernel):
					t.Errorf("%s: error %v does not wrap ErrNoKernel", s, err)
				case err != nil:
					t.Logf("%s: %v", s, err)
				case cfg.Kernel != s.Kernel():
					t.Errorf("%s: config %s is a %s kernel", s, cfg.Name(), cfg.Kernel)
				case [2]tiling.Major{cfg.MajorA, cfg.MajorB} != want[s]:
					t.Errorf("%s: config %s has majors %s/%s, want %v", s, cfg.Name(), cfg.MajorA, cfg.MajorB, want[s])
				case cfg.StoreOut != (s == FwdGateUp):
					t.Errorf("%s: config %s StoreOut=%v", s, cfg.Name(), cfg.StoreOut)
				}
			}
		}
	}
	var nilSw *Swigen
	if _, _, err := nilSw.Plan(FwdGateUp, s1, &Tensors{}); !errors.Is(err, ErrNoKernel) {
		t.Errorf("nil provider: %v", err)
	}
}

func ptrOf(v uint64) cu.DevicePtr { return cu.DevicePtr(v) }

// TestSwigenOverride: an override replaces the heuristic tile, schedule
// and stages for every segment of its kind, while the segment keeps
// setting majors and outputs; the stages drop to what fits when the
// segment's epilogue needs more room; a wrong arch or dtype is refused.
func TestSwigenOverride(t *testing.T) {
	t.Parallel()
	sw := NewSwigen(t.Context(), nil, tiling.ArchSM90a, tiling.BF16, false)
	for _, n := range []string{"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative", "fwd_gateup_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_e64x64s1"} {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := sw.Override(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		seg  Segment
		want string
	}{
		{DW, "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_amn_bmn"},
		{DX, "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_bmn"},
		{DWDown, "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_amn_bmn"},
		// The training forward also stores de: a third epilogue tensor,
		// so only 3 operand stages fit.
		{FwdGateUp, "fwd_gateup_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_e64x64s1_out"},
	} {
		cfg, err := sw.Config(tc.seg, s1)
		if err != nil {
			t.Fatalf("%s: %v", tc.seg, err)
		}
		if diff := cmp.Diff(tc.want, cfg.Name()); diff != "" {
			t.Errorf("%s: config (-want +got):\n%s", tc.seg, diff)
		}
	}
	for _, bad := range []string{
		"gemm_sm90a_fp16_m128n256k64_s4_c1x1_cooperative",
		"gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
	} {
		c, err := tiling.ParseName(bad)
		if err != nil {
			t.Logf("%s: %v (parse)", bad, err)
			continue
		}
		if err := sw.Override(c); err == nil {
			t.Errorf("Override(%s) accepted", bad)
		}
	}
}

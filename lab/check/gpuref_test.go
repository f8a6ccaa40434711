package check

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

func TestUseGPURef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		force bool
		macs  int64
		want  bool
	}{
		{"small", false, 1 << 20, false},
		{"at the limit", false, 1 << 31, false},
		{"above the limit", false, 1<<31 + 1, true},
		{"forced small", true, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := useGPURef(Options{ForceGPURef: tt.force}, tt.macs, 1<<31); got != tt.want {
				t.Errorf("useGPURef = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRefTimeout(t *testing.T) {
	t.Parallel()
	o := Options{Timeout: 30 * time.Second}
	if got := refTimeout(o, 0); got != o.Timeout {
		t.Errorf("refTimeout(0) = %v, want %v", got, o.Timeout)
	}
	// 8192x4096x(2*14336), the largest fwd_gateup of issue-sized shapes,
	// gets its floor's time on top.
	macs := int64(8192) * 4096 * 2 * 14336
	want := o.Timeout + time.Duration(float64(macs)/naiveMACsPerSecond*float64(time.Second))
	if got := refTimeout(o, macs); got != want || got <= o.Timeout {
		t.Errorf("refTimeout(%d) = %v, want %v", macs, got, want)
	}
}

func TestExpect(t *testing.T) {
	t.Parallel()
	dt := tiling.BF16
	vals := []float32{1, 2, 3, 4, 5, 6, 7, 8} // [M=2, 2I=4]
	raw := num.Encode(dt, vals)
	e := expect{f64: num.Float64s(vals)}
	if st := e.compare(dt, raw); !st.OK(0) {
		t.Errorf("%+v against itself: %v", e, st)
	}
	l, g := e.halves(2, 2)
	gl, gg := splitHalves(raw, 2)
	if st := l.compare(dt, gl); !st.OK(0) || st.NaNs != 0 {
		t.Errorf("left half: %v", st)
	}
	if st := g.compare(dt, gg); !st.OK(0) {
		t.Errorf("gate half: %v", st)
	}
	if st := l.compare(dt, gg); st.OK(1e-2) {
		t.Errorf("left against gate passes: %v", st)
	}
	// A short or poisoned output never passes.
	if st := e.compare(dt, raw[:4]); st.OK(1) {
		t.Errorf("short output passes: %v", st)
	}
	if st := e.compare(dt, num.PoisonBytes(dt, len(vals))); st.OK(1) {
		t.Errorf("poisoned output passes: %v", st)
	}
}

// testKernel is a kernel that is never launched: its manifest only, which
// is all the checks read before they touch a device.
func testKernel(t *testing.T, k tiling.Kernel, ma, mb tiling.Major, storeOut bool) *launch.Kernel {
	t.Helper()
	c := tiling.Config{Kernel: k, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: tiling.PingPong,
		TileM: 128, TileN: 128, TileK: 64, MajorA: ma, MajorB: mb, StoreOut: storeOut}.WithDefaults()
	c.Stages = c.MaxStages()
	m, err := manifest.New(tilingtest.Check(t, c))
	if err != nil {
		t.Fatalf("manifest for %s: %v", c.Name(), err)
	}
	return &launch.Kernel{Man: m}
}

// TestVerifyWithoutGPURef checks that a shape needing the naive GPU
// reference fails with an error that says it is not loaded, before any
// device work (the Env has no context).
func TestVerifyWithoutGPURef(t *testing.T) {
	t.Parallel()
	big := tiling.Shape{M: 8192, K: 8192, I: 3584} // 2.4e11 multiply-adds, above every CPU limit
	small := tiling.Shape{M: 64, K: 64, I: 64}
	tests := []struct {
		name   string
		kernel *launch.Kernel
		shape  tiling.Shape
		force  bool
		want   []string
	}{
		{"gemm large", testKernel(t, tiling.KernelGEMM, tiling.KMajor, tiling.KMajor, false), big, false,
			[]string{"gemm 8192x3584x8192", "exceed the CPU reference", "naive GPU reference, which is not loaded"}},
		{"gemm mn forced", testKernel(t, tiling.KernelGEMM, tiling.MNMajor, tiling.MNMajor, false), small, true,
			[]string{"gemm 64x64x64", "ForceGPURef", "not loaded"}},
		{"fwd_gateup large", testKernel(t, tiling.KernelFwdGateUp, tiling.KMajor, tiling.KMajor, true), big, false,
			[]string{"fwd_gateup M=8192 K=8192 I=3584", "exceed the CPU reference", "not loaded"}},
		{"fwd_gateup forced", testKernel(t, tiling.KernelFwdGateUp, tiling.KMajor, tiling.MNMajor, false), small, true,
			[]string{"fwd_gateup M=64 K=64 I=64", "ForceGPURef", "not loaded"}},
		{"fwd_down large", testKernel(t, tiling.KernelFwdDown, tiling.KMajor, tiling.MNMajor, false), big, false,
			[]string{"fwd_down M=8192 K=8192 I=3584", "exceed the CPU reference", "not loaded"}},
		{"fwd_down forced", testKernel(t, tiling.KernelFwdDown, tiling.KMajor, tiling.KMajor, false), small, true,
			[]string{"fwd_down M=64 K=64 I=64", "ForceGPURef", "not loaded"}},
		{"bwd large", testKernel(t, tiling.KernelBwdDSwiGLU, tiling.KMajor, tiling.KMajor, false), big, false,
			[]string{"bwd_dswiglu M=8192 K=8192 I=3584", "exceed the CPU reference", "not loaded"}},
		{"bwd forced", testKernel(t, tiling.KernelBwdDSwiGLU, tiling.KMajor, tiling.MNMajor, false), small, true,
			[]string{"bwd_dswiglu M=64 K=64 I=64", "ForceGPURef", "not loaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Verify(&Env{}, tt.kernel, []tiling.Shape{tt.shape}, Options{ForceGPURef: tt.force})
			if len(res) != 1 {
				t.Fatalf("%d results, want 1", len(res))
			}
			r := res[0]
			if r.Pass || r.Err == nil {
				t.Fatalf("result %+v: want an error", r)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Err.Error(), w) {
					t.Errorf("error %q lacks %q", r.Err, w)
				}
			}
			if diff := cmp.Diff(refGPU, r.Ref); diff != "" {
				t.Errorf("Ref (-want +got):\n%s", diff)
			}
		})
	}
}

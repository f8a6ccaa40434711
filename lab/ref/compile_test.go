package ref

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// TestNaiveSourceCompiles builds naive.cu with the local CUDA compiler when
// one is installed (no GPU needed); with SWIGEN_REQUIRE_COMPILER=1 a
// missing compiler fails the test.
func TestNaiveSourceCompiles(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("no CUDA compiler here: %v", err)
	}
	br, err := tc.Compile(context.Background(), "swigen_ref_naive", NaiveSource(), toolchain.CompileOptions{Arch: string(tiling.ArchSM90a), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ptx := string(br.PTX)
	for _, k := range naiveKinds {
		for _, dt := range tiling.HelperDTypes() {
			if !strings.Contains(ptx, ".entry "+naiveEntry(k, dt)) {
				t.Errorf("PTX lacks entry %s", naiveEntry(k, dt))
			}
		}
	}
	// Independence from the fast kernels' math: no cvt-based packing, no
	// tensor cores, no shared-memory staging.
	for _, banned := range []string{"cvt.rn.bf16", "cvt.rn.f16", "wgmma", "mma.sync", "ld.shared", "st.shared"} {
		if strings.Contains(ptx, banned) {
			t.Errorf("naive PTX uses %s", banned)
		}
	}
	if len(br.Cubin) == 0 {
		t.Error("no cubin")
	}
}

// TestNaiveSourceSelfContained keeps naive.cu buildable by nvcc and NVRTC
// alike and free of code shared with the kernels it checks.
func TestNaiveSourceSelfContained(t *testing.T) {
	t.Parallel()
	if loc := regexp.MustCompile(`(?m)^\s*#\s*include`).FindIndex(naiveSource); loc != nil {
		t.Errorf("naive.cu has an #include at byte %d", loc[0])
	}
	for _, banned := range []string{"__float2bfloat16", "__half2float", "__float2half", "__bfloat162float", "__nv_bfloat16", "__half"} {
		if strings.Contains(string(naiveSource), banned) {
			t.Errorf("naive.cu uses %s", banned)
		}
	}
}

func TestNaiveLaunch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rows, cols int
		grid       [3]uint32
		wantErr    bool
	}{
		{"seed bwd", 100000, 4608, [3]uint32{18, maxGridY, 1}, false},
		{"single element", 1, 1, [3]uint32{1, 1, 1}, false},
		{"ragged cols", 7, 257, [3]uint32{2, 7, 1}, false},
		{"largest cols", 1, maxInt32, [3]uint32{(maxInt32 + naiveBlock - 1) / naiveBlock, 1, 1}, false},
		{"zero rows", 0, 8, [3]uint32{}, true},
		{"zero cols", 8, 0, [3]uint32{}, true},
		{"cols past int32", 1, maxInt32 + 1, [3]uint32{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := naiveLaunch(tt.rows, tt.cols)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if cfg.Grid != tt.grid || cfg.Block != [3]uint32{naiveBlock, 1, 1} {
				t.Errorf("launch = %+v, want grid %v", cfg, tt.grid)
			}
		})
	}
}

// TestGPURefArgumentChecks runs every wrapper on a GPURef that holds no
// module: bad arguments are rejected before anything touches a device,
// and good ones end in "not loaded", never a panic.
func TestGPURefArgumentChecks(t *testing.T) {
	t.Parallel()
	const p = cu.DevicePtr(1 << 20)
	unloaded := &GPURef{}
	var nilRef *GPURef
	tests := []struct {
		name string
		call func() error
		want []string // substrings of the error
	}{
		{"gemm ok", func() error { return unloaded.Gemm(tiling.BF16, 8, 8, 8, p, p, p, false, true) }, []string{"naive gemm", "not loaded"}},
		{"gemm nil ref", func() error { return nilRef.Gemm(tiling.FP16, 8, 8, 8, p, p, p, true, false) }, []string{"naive gemm", "not loaded"}},
		{"gemm dtype", func() error { return unloaded.Gemm("fp8", 8, 8, 8, p, p, p, false, false) }, []string{"naive gemm", `"fp8"`, "bf16, fp16"}},
		{"gemm sizes", func() error { return unloaded.Gemm(tiling.BF16, 0, -1, 8, p, p, p, false, false) }, []string{"naive gemm", "M=0", "N=-1", "[1, 2^31)"}},
		{"gemm huge K", func() error { return unloaded.Gemm(tiling.BF16, 8, 8, 1<<31, p, p, p, false, false) }, []string{"K=2147483648"}},
		{"gemm null", func() error { return unloaded.Gemm(tiling.BF16, 8, 8, 8, p, 0, 0, false, false) }, []string{"naive gemm", "null B, C pointer"}},
		{"gateup ok", func() error { return unloaded.FwdGateUp(tiling.FP16, 8, 8, 8, p, p, 0, p, false) }, []string{"naive fwd_gateup", "not loaded"}},
		{"gateup sizes", func() error { return unloaded.FwdGateUp(tiling.BF16, 8, 0, 8, p, p, p, p, false) }, []string{"naive fwd_gateup", "K=0"}},
		{"gateup 2I", func() error { return unloaded.FwdGateUp(tiling.BF16, 1, 8, 1<<30, p, p, p, p, true) }, []string{"naive fwd_gateup", "2I=2147483648"}},
		{"gateup null", func() error { return unloaded.FwdGateUp(tiling.BF16, 8, 8, 8, 0, p, p, 0, false) }, []string{"null x, out pointer"}},
		{"down ok", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, 0, p, true) }, []string{"naive fwd_down", "not loaded"}},
		{"down dtype", func() error { return unloaded.FwdDown("f32", 8, 8, 8, p, p, p, p, false) }, []string{"naive fwd_down", `"f32"`}},
		{"down sizes", func() error { return unloaded.FwdDown(tiling.FP16, 8, 8, 0, p, p, p, p, false) }, []string{"naive fwd_down", "I=0"}},
		{"down null", func() error { return unloaded.FwdDown(tiling.FP16, 8, 8, 8, p, 0, p, 0, false) }, []string{"null W_down, y pointer"}},
		{"down residual is y", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, p, p, false) }, []string{"naive fwd_down", "residual (128 bytes", "overlaps y (512 bytes"}},
		{"down residual inside y", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, p+256, p, false) }, []string{"overlaps y"}},
		{"down y inside residual's end", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, p, p+127, false) }, []string{"overlaps y"}},
		{"down residual right after y", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, p+512, p, false) }, []string{"naive fwd_down", "not loaded"}},
		{"down y right after residual", func() error { return unloaded.FwdDown(tiling.BF16, 8, 8, 8, p, p, p, p+128, false) }, []string{"naive fwd_down", "not loaded"}},
		{"bwd ok", func() error { return unloaded.BwdDSwiGLU(tiling.BF16, 8, 8, 8, p, p, p, p, 0, false) }, []string{"naive bwd_dswiglu", "not loaded"}},
		{"bwd sizes", func() error { return unloaded.BwdDSwiGLU(tiling.BF16, 1, 0, 8, p, p, p, p, p, false) }, []string{"naive bwd_dswiglu", "K=0"}},
		{"bwd null", func() error { return unloaded.BwdDSwiGLU(tiling.BF16, 8, 8, 8, p, p, p, 0, p, true) }, []string{"null grad_de pointer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestGPURefCloseUnloaded(t *testing.T) {
	t.Parallel()
	var nilRef *GPURef
	for _, g := range []*GPURef{nilRef, {}} {
		if err := g.Close(); err != nil {
			t.Errorf("Close of an unloaded GPURef: %v", err)
		}
	}
}

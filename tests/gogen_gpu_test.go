//go:build gpu

package tests

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/swigen/swigen/examples/kernels"
	"github.com/swigen/swigen/examples/matmul"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// gpuDevice is device 0 with a context on it, closed when the test ends.
type gpuDevice struct {
	name         string
	major, minor int
	ctx          *cu.Context
}

// openDevice opens device 0, or skips t where there is no driver or GPU.
func openDevice(t *testing.T) gpuDevice {
	t.Helper()
	if !cu.Available() {
		t.Skip("no CUDA driver or device: GPU tests need an NVIDIA GPU")
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	d := gpuDevice{}
	if d.name, err = dev.Name(); err != nil {
		t.Fatal(err)
	}
	if d.major, d.minor, err = dev.ComputeCapability(); err != nil {
		t.Fatal(err)
	}
	if d.ctx, err = cu.NewContext(dev); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.ctx.Close() })
	return d
}

// onlySM90a handles the outcome of loading an examples/ kernel (sm_90a
// only): off sm_90a the load must fail naming the device, its capability
// and the embedded arch, and t is skipped; on sm_90a it must succeed.
func (d gpuDevice) onlySM90a(t *testing.T, what string, err error) {
	t.Helper()
	if d.major != 9 || d.minor != 0 {
		if err == nil {
			t.Fatalf("%s on %s (%d.%d) succeeded; only sm_90a is embedded", what, d.name, d.major, d.minor)
		}
		for _, w := range []string{d.name, fmt.Sprintf("%d.%d", d.major, d.minor), "sm_90a"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("load error %q does not name %q", err, w)
			}
		}
		t.Skipf("device %s is %d.%d, not sm_90a: checked the load error only", d.name, d.major, d.minor)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedBindingsGPU runs the committed generated package
// examples/kernels (swigen emit --go-package, cubin embedded) through its
// own launcher on random inputs and compares with the float64 CPU
// reference, on ragged shapes. The GPU machine has no Go: this is built
// with `CGO_ENABLED=0 go test -c -tags gpu ./tests -o .bin/tests.test` and
// run there with -test.run GeneratedBindings.
func TestGeneratedBindingsGPU(t *testing.T) {
	d := openDevice(t)
	ctx := d.ctx
	k, err := kernels.LoadBwdDswiglu(ctx)
	d.onlySM90a(t, "LoadBwdDswiglu", err)
	t.Cleanup(func() { _ = k.Close() })
	cfg := k.Man.Config
	t.Logf("%s (%d.%d): loaded %s, %d SMs", d.name, d.major, d.minor, k.Man.Name, k.NumSMs())

	// The per-name launcher loads the same embedded cubin.
	named, err := kernels.LoadBwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k(ctx)
	if err != nil {
		t.Errorf("per-name loader: %v", err)
	} else {
		_ = named.Close()
	}

	rng := num.NewRand(7)
	for _, s := range []tiling.Shape{{M: 200, K: 72, I: 136}, {M: 1, K: 8, I: 8}, {M: 333, K: 256, I: 264}} {
		t.Run(fmt.Sprintf("%dx%dx%d", s.M, s.K, s.I), func(t *testing.T) {
			runGenerated(t, ctx, k, cfg, s, rng)
		})
	}

	// A bad shape is refused on the host, before anything is launched.
	if err := k.Launch(kernels.BwdArgs{M: 16, K: 7, I: 8}); err == nil || !strings.Contains(err.Error(), "K=7") {
		t.Errorf("Launch with K=7: %v, want a shape error naming K=7", err)
	}
}

func runGenerated(t *testing.T, ctx *cu.Context, k *kernels.BwdDswiglu, cfg tiling.Config, s tiling.Shape, rng *num.Rand) {
	dt := cfg.DType
	M, K, I := s.M, s.K, s.I
	dy := rng.Normal(dt, M*K, 1)
	w := rng.Normal(dt, I*K, 1/math.Sqrt(float64(K))) // [I,K]
	de := rng.Normal(dt, M*2*I, 2)
	for i := 0; i < M*I; i += 13 { // saturate some gates
		m, c := i/I, i%I
		de[m*2*I+I+c] = float32(20 * (1 - 2*float64(i%2)))
	}
	wdev := w
	if cfg.MajorB == tiling.MNMajor { // the kernel reads W_down stored [K,I]
		wdev = make([]float32, len(w))
		for i := 0; i < I; i++ {
			for kk := 0; kk < K; kk++ {
				wdev[kk*I+i] = w[i*K+kk]
			}
		}
	}
	alloc := func(bytes int) cu.DevicePtr {
		p, err := ctx.MemAlloc(uint64(bytes))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ctx.MemFree(p) })
		return p
	}
	up := func(x []float32) cu.DevicePtr {
		raw := num.Encode(dt, x)
		p := alloc(len(raw))
		if err := ctx.MemcpyHtoD(p, raw); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := kernels.BwdArgs{M: M, K: K, I: I, Dy: up(dy), WDown: up(wdev), De: up(de), GradDe: alloc(M * 2 * I * 2)}
	if err := ctx.MemsetD16(a.GradDe, num.Poison(dt), uint64(M*2*I)); err != nil {
		t.Fatal(err)
	}
	if cfg.StoreOut {
		a.Out = alloc(M * I * 2)
		if err := ctx.MemsetD16(a.Out, num.Poison(dt), uint64(M*I)); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Launch(a); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(30*time.Second, k.Man.Name); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, M*2*I*2)
	if err := ctx.MemcpyDtoH(got, a.GradDe); err != nil {
		t.Fatal(err)
	}
	want := ref.BwdDSwiGLU(ref.BwdProblem{M: M, K: K, I: I, Dy: num.Float64s(dy), WDown: num.Float64s(w), De: num.Float64s(de)})
	// Compare the dleft and dgate halves separately: one half right and
	// the other wrong must not average out.
	for h, half := range []string{"dleft", "dgate"} {
		var gotH []byte
		var wantH []float64
		for m := 0; m < M; m++ {
			row := got[(m*2*I+h*I)*2 : (m*2*I+(h+1)*I)*2]
			gotH = append(gotH, row...)
			wantH = append(wantH, want.GradDe[m*2*I+h*I:m*2*I+(h+1)*I]...)
		}
		st := num.CompareRaw(dt, gotH, wantH)
		t.Logf("%s: %s", half, st)
		if !st.OK(1e-2) {
			t.Errorf("%s: %s exceeds rel. Frobenius 1e-2, or has NaNs or unwritten elements", half, st)
		}
	}
	if cfg.StoreOut {
		gotO := make([]byte, M*I*2)
		if err := ctx.MemcpyDtoH(gotO, a.Out); err != nil {
			t.Fatal(err)
		}
		if st := num.CompareRaw(dt, gotO, want.Out); !st.OK(1e-2) {
			t.Errorf("out: %s", st)
		}
	}
}

// TestGeneratedBindingsGemmGPU runs the committed generated gemm package
// examples/matmul through its arch-dispatching launcher on ragged shapes
// and compares C with the float64 CPU reference, checking that the
// clipped stores stay inside C. Built and run like TestGeneratedBindingsGPU
// (-test.run GeneratedBindings runs both).
func TestGeneratedBindingsGemmGPU(t *testing.T) {
	d := openDevice(t)
	k, err := matmul.LoadGemm(d.ctx)
	d.onlySM90a(t, "LoadGemm", err)
	t.Cleanup(func() { _ = k.Close() })
	t.Logf("%s (%d.%d): loaded %s, %d SMs", d.name, d.major, d.minor, k.Man.Name, k.NumSMs())

	// The per-name launcher loads the same embedded cubin.
	named, err := matmul.LoadGemmSm90aBf16M128n256k64S4C1x1Cooperative(d.ctx)
	if err != nil {
		t.Errorf("per-name loader: %v", err)
	} else {
		_ = named.Close()
	}

	rng := num.NewRand(11)
	// Ragged in every dimension against the 128x128x64 tile: partial M and
	// N tiles, a K tail shorter than one stage, and a single row.
	for _, s := range []struct{ M, N, K int }{{200, 136, 72}, {1, 8, 8}, {333, 264, 200}} {
		t.Run(fmt.Sprintf("%dx%dx%d", s.M, s.N, s.K), func(t *testing.T) {
			runGeneratedGemm(t, d.ctx, k, s.M, s.N, s.K, rng)
		})
	}

	// A bad shape is refused on the host, before anything is launched.
	if err := k.Launch(matmul.GemmArgs{M: 16, N: 12, K: 64}); err == nil || !strings.Contains(err.Error(), "N=12") {
		t.Errorf("Launch with N=12: %v, want a shape error naming N=12", err)
	}
}

func runGeneratedGemm(t *testing.T, ctx *cu.Context, k *matmul.Gemm, M, N, K int, rng *num.Rand) {
	cfg := k.Man.Config
	dt := cfg.DType
	aMN, bMN := cfg.MajorA == tiling.MNMajor, cfg.MajorB == tiling.MNMajor
	if aMN && M%8 != 0 { // A stored [K,M]: its rows must be 16-byte multiples
		M = (M + 7) / 8 * 8
	}
	// A and B in their stored layouts; ref.Gemm reads the same layouts.
	a := rng.Normal(dt, M*K, 1)
	b := rng.Normal(dt, N*K, 1/math.Sqrt(float64(K)))
	bufs := ctx.NewBuffers()
	t.Cleanup(bufs.Free)
	// C has one guard row past [M,N]: clipped stores must not reach it.
	c, err := bufs.Alloc((M + 1) * N * 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctx.MemsetD16(c, num.Poison(dt), uint64((M+1)*N)); err != nil {
		t.Fatal(err)
	}
	args := matmul.GemmArgs{M: M, N: N, K: K,
		A: gputest.Upload(t, ctx, num.Encode(dt, a)), B: gputest.Upload(t, ctx, num.Encode(dt, b)), C: c}
	if err := k.Launch(args); err != nil {
		t.Fatal(err)
	}
	gputest.Sync(t, ctx, k.Man.Name)
	got := gputest.Download(t, ctx, c, (M+1)*N*2)
	want := ref.Gemm(ref.GemmProblem{M: M, N: N, K: K, A: num.Float64s(a), B: num.Float64s(b), AMNMajor: aMN, BMNMajor: bMN})
	st := num.CompareRaw(dt, got[:M*N*2], want)
	t.Logf("C: %s", st)
	if !st.OK(1e-2) {
		t.Errorf("C: %s exceeds rel. Frobenius 1e-2, or has NaNs or unwritten elements", st)
	}
	if n := num.CountPoisoned(dt, got[M*N*2:]); n != N {
		t.Errorf("guard row past C: %d of %d elements written", N-n, N)
	}
}

// TestGeneratedBindingsDispatchGPU: the committed package's BwdDswiglu
// follows its dispatch plan. Its kernel's measured points keep the fused
// kernel everywhere (tiling.ChoosePath: the unfused path never measured
// RequiredMargin faster), so emit shipped no unfused path: at
// 8192,8192,3584, where the unfused path measured within 1% of the fused
// kernel, the launcher needs no workspace and its grad_de is bitwise the
// fused kernel's. (verify --path unfused checks the unfused path against
// the float64 reference.)
func TestGeneratedBindingsDispatchGPU(t *testing.T) {
	d := openDevice(t)
	ctx := d.ctx
	k, err := kernels.LoadBwdDswiglu(ctx)
	d.onlySM90a(t, "LoadBwdDswiglu", err)
	t.Cleanup(func() { _ = k.Close() })
	M, K, I := 8192, 8192, 3584
	a := kernels.BwdArgs{M: M, K: K, I: I}
	dt := k.Man.Config.DType
	b := ctx.NewBuffers()
	t.Cleanup(b.Free)
	rng := num.NewRand(11)
	up := func(x []float32) cu.DevicePtr { return gputest.Upload(t, ctx, num.Encode(dt, x)) }
	a.Dy, a.WDown = up(rng.Normal(dt, M*K, 1)), up(rng.Normal(dt, I*K, 1/math.Sqrt(float64(K))))
	a.De = up(rng.Normal(dt, M*2*I, 2))
	poisoned := func(n int) cu.DevicePtr {
		p, err := b.Alloc(2 * n)
		if err == nil {
			err = ctx.MemsetD16(p, num.Poison(dt), uint64(n))
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a.GradDe = poisoned(M * 2 * I)
	if err := k.Launch(a); err != nil {
		t.Fatal(err)
	}
	fused := a
	fused.GradDe = poisoned(M * 2 * I)
	fp, err := k.Kernel.Plan(fused)
	if err != nil {
		t.Fatal(err)
	}
	if err := fp.Launch(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(30*time.Second, "dispatch"); err != nil {
		t.Fatal(err)
	}
	got, want := make([]byte, M*2*I*2), make([]byte, M*2*I*2)
	if err := ctx.MemcpyDtoH(got, a.GradDe); err != nil {
		t.Fatal(err)
	}
	if err := ctx.MemcpyDtoH(want, fused.GradDe); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the launcher's grad_de at %dx%dx%d differs from the fused kernel's: %s", M, K, I, num.CompareRawBoth(dt, got, want))
	}
}

//go:build gpu

package ref

import (
	"fmt"
	"math"
	"testing"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// refTol is the relative Frobenius bound of a naive GPU reference's
// float64 output against the float64 CPU reference. Both are unrounded and
// start from the same exact inputs, so they differ only by the rounding of
// float64 sums taken in another order (and by exp's last bit): a few ulps
// of float64, under 1e-15 relative at these depths.
const refTol = 1e-12

var (
	testDTypes = []tiling.DType{tiling.BF16, tiling.FP16}
	bools      = []bool{false, true}
)

// openGPURef opens a context and the naive references on it, closed when
// the test ends; it skips without a GPU or compiler.
func openGPURef(t *testing.T) (*cu.Context, *GPURef) {
	t.Helper()
	ctx, tc := gputest.Open(t)
	g, err := NewGPURef(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return ctx, g
}

// encode64 encodes xs, which must be exact in dt, as raw dt.
func encode64(dt tiling.DType, xs []float64) []byte {
	f := make([]float32, len(xs))
	for i, x := range xs {
		f[i] = float32(x)
	}
	return num.Encode(dt, f)
}

// inputs draws n values exact in dt: normal of standard deviation scale,
// or, with ints, integers in [-2, 2], whose sums of products (plus a
// residual) are integers float64 holds exactly at any depth tested here,
// so the reference must match the CPU one bit for bit.
func inputs(r *num.Rand, dt tiling.DType, n int, scale float64, ints bool) []float64 {
	if !ints {
		return num.Float64s(r.Normal(dt, n, scale))
	}
	u := r.Uniform(dt, n, -2, 2)
	out := make([]float64, n)
	for i, x := range u {
		out[i] = math.Round(float64(x))
	}
	return out
}

// poisonedBuf uploads n float64 elements of num.PoisonF64, the layout of
// a reference's output, freed when the test ends.
func poisonedBuf(t *testing.T, ctx *cu.Context, n int) cu.DevicePtr {
	t.Helper()
	return gputest.Upload(t, ctx, num.PoisonBytesF64(n))
}

// checkOutput compares raw, a reference's float64 output, with want:
// within refTol, or bit-exact for integer inputs.
func checkOutput(t *testing.T, name string, raw []byte, want []float64, exact bool) {
	t.Helper()
	st := num.CompareRawF64(raw, want)
	t.Logf("%s: %v", name, st)
	if !st.OK(refTol) {
		t.Errorf("%s: %v exceeds %g", name, st, refTol)
	}
	if exact && (st.MaxAbs != 0 || st.NaNs != 0 || st.Poisoned != 0) {
		t.Errorf("%s: integer inputs must give the exact answer: %v", name, st)
	}
}

func TestGPUGemmVsCPU(t *testing.T) {
	ctx, g := openGPURef(t)
	// Ragged in every size, K=1, a single row, a single column, and more
	// rows than gridDim.y holds (rows strided past 65535).
	shapes := []struct{ M, N, K int }{
		{129, 200, 72}, {1, 8, 8}, {7, 3, 5}, {64, 64, 64}, {300, 1000, 776}, {33, 1, 1}, {70000, 9, 8}, {5, 17, 32},
	}
	for _, dt := range testDTypes {
		for _, s := range shapes {
			for _, aMN := range bools {
				for _, bMN := range bools {
					for _, ints := range bools {
						t.Run(fmt.Sprintf("%s/M%dN%dK%d/amn=%v/bmn=%v/ints=%v", dt, s.M, s.N, s.K, aMN, bMN, ints), func(t *testing.T) {
							r := num.NewRand(uint64(s.M*1009 + s.N*31 + s.K))
							// Stored as the majors say; the CPU reference reads
							// the same arrays with the same majors.
							p := GemmProblem{M: s.M, N: s.N, K: s.K, AMNMajor: aMN, BMNMajor: bMN,
								A: inputs(r, dt, s.M*s.K, 1, ints),
								B: inputs(r, dt, s.N*s.K, 1/math.Sqrt(float64(s.K)), ints)}
							want := Gemm(p)
							a, b := gputest.Upload(t, ctx, encode64(dt, p.A)), gputest.Upload(t, ctx, encode64(dt, p.B))
							c := poisonedBuf(t, ctx, s.M*s.N)
							if err := g.Gemm(dt, s.M, s.N, s.K, a, b, c, aMN, bMN); err != nil {
								t.Fatal(err)
							}
							gputest.Sync(t, ctx, "naive gemm")
							checkOutput(t, "C", gputest.Download(t, ctx, c, 8*s.M*s.N), want, ints)
						})
					}
				}
			}
		}
	}
}

func TestGPUFwdGateUpVsCPU(t *testing.T) {
	ctx, g := openGPURef(t)
	shapes := []struct{ M, K, I int }{
		{129, 72, 200}, {1, 8, 8}, {7, 5, 3}, {64, 64, 64}, {300, 768, 520}, {70000, 8, 9}, {3, 32, 17},
	}
	for _, dt := range testDTypes {
		for _, s := range shapes {
			for _, wMN := range bools {
				for _, storeDe := range bools {
					for _, ints := range bools {
						t.Run(fmt.Sprintf("%s/M%dK%dI%d/wmn=%v/de=%v/ints=%v", dt, s.M, s.K, s.I, wMN, storeDe, ints), func(t *testing.T) {
							r := num.NewRand(uint64(s.M*1013 + s.K*37 + s.I))
							// W at 2/sqrt(K): gates of standard deviation ~2, so
							// the sigmoid saturates on some elements.
							p := FwdGateUpProblem{M: s.M, K: s.K, I: s.I, WMNMajor: wMN,
								X: inputs(r, dt, s.M*s.K, 1, ints),
								W: inputs(r, dt, 2*s.I*s.K, 2/math.Sqrt(float64(s.K)), ints)}
							want := FwdGateUp(p)
							x, w := gputest.Upload(t, ctx, encode64(dt, p.X)), gputest.Upload(t, ctx, encode64(dt, p.W))
							out := poisonedBuf(t, ctx, s.M*s.I)
							var de cu.DevicePtr
							if storeDe {
								de = poisonedBuf(t, ctx, s.M*2*s.I)
							}
							if err := g.FwdGateUp(dt, s.M, s.K, s.I, x, w, de, out, wMN); err != nil {
								t.Fatal(err)
							}
							gputest.Sync(t, ctx, "naive fwd_gateup")
							// out goes through exp: close, not bit-exact.
							checkOutput(t, "out", gputest.Download(t, ctx, out, 8*s.M*s.I), want.Out, false)
							if storeDe {
								checkOutput(t, "de", gputest.Download(t, ctx, de, 8*s.M*2*s.I), want.De, ints)
							}
						})
					}
				}
			}
		}
	}
}

func TestGPUFwdDownVsCPU(t *testing.T) {
	ctx, g := openGPURef(t)
	shapes := []struct{ M, K, I int }{
		{129, 72, 200}, {1, 8, 8}, {7, 5, 3}, {64, 64, 64}, {300, 776, 1048}, {70000, 9, 8}, {3, 17, 32},
	}
	// residual: "none" or a buffer of its own (y, float64, cannot share
	// the 16-bit residual's memory; FwdDown rejects an overlap).
	for _, dt := range testDTypes {
		for _, s := range shapes {
			for _, wKI := range bools {
				for _, residual := range []string{"none", "separate"} {
					for _, ints := range bools {
						t.Run(fmt.Sprintf("%s/M%dK%dI%d/wki=%v/res=%s/ints=%v", dt, s.M, s.K, s.I, wKI, residual, ints), func(t *testing.T) {
							r := num.NewRand(uint64(s.M*1019 + s.K*41 + s.I))
							p := FwdDownProblem{M: s.M, K: s.K, I: s.I, WDownKI: wKI,
								Out:   inputs(r, dt, s.M*s.I, 1, ints),
								WDown: inputs(r, dt, s.I*s.K, 1/math.Sqrt(float64(s.I)), ints)}
							if residual != "none" {
								p.Residual = inputs(r, dt, s.M*s.K, 1, ints)
							}
							want := FwdDown(p)
							out, w := gputest.Upload(t, ctx, encode64(dt, p.Out)), gputest.Upload(t, ctx, encode64(dt, p.WDown))
							var res cu.DevicePtr
							if residual != "none" {
								res = gputest.Upload(t, ctx, encode64(dt, p.Residual))
							}
							y := poisonedBuf(t, ctx, s.M*s.K)
							if err := g.FwdDown(dt, s.M, s.K, s.I, out, w, res, y, wKI); err != nil {
								t.Fatal(err)
							}
							gputest.Sync(t, ctx, "naive fwd_down")
							checkOutput(t, "y", gputest.Download(t, ctx, y, 8*s.M*s.K), want, ints)
						})
					}
				}
			}
		}
	}
}

// TestGPUFwdGateUpSkipsDe checks that a null de leaves memory alone: the
// inference reference writes out only.
func TestGPUFwdGateUpSkipsDe(t *testing.T) {
	ctx, g := openGPURef(t)
	dt := tiling.BF16
	const M, K, I = 65, 16, 24
	r := num.NewRand(5)
	p := FwdGateUpProblem{M: M, K: K, I: I, X: inputs(r, dt, M*K, 1, false), W: inputs(r, dt, 2*I*K, 0.5, false)}
	x, w := gputest.Upload(t, ctx, encode64(dt, p.X)), gputest.Upload(t, ctx, encode64(dt, p.W))
	// One buffer holds out and, right after it, a poisoned guard the size
	// of de: an inference launch must not touch the guard.
	buf := poisonedBuf(t, ctx, M*I+M*2*I)
	guard := buf + cu.DevicePtr(8*M*I)
	if err := g.FwdGateUp(dt, M, K, I, x, w, 0, buf, false); err != nil {
		t.Fatal(err)
	}
	gputest.Sync(t, ctx, "naive fwd_gateup")
	checkOutput(t, "out", gputest.Download(t, ctx, buf, 8*M*I), FwdGateUp(p).Out, false)
	if n := num.CountPoisonedF64(gputest.Download(t, ctx, guard, 8*M*2*I)); n != M*2*I {
		t.Errorf("guard after out: %d of %d elements still poisoned", n, M*2*I)
	}
}

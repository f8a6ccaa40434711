//go:build gpu

package baseline

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// gpuTol bounds the relative Frobenius error of 16-bit outputs. The
// baseline also rounds dout to 16 bits between its two kernels.
const gpuTol = 1e-2

func check(t *testing.T, dt tiling.DType, what string, raw []byte, want []float64) {
	t.Helper()
	st := num.CompareRaw(dt, raw, want)
	t.Logf("%s: %v", what, st)
	if !st.OK(gpuTol) {
		t.Errorf("%s: %v exceeds %g", what, st, gpuTol)
	}
}

func TestGPUBaselineVsCPU(t *testing.T) {
	ctx, tc := gputest.Open(t)
	blas, err := OpenCuBLAS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blas.Close()
	t.Logf("cuBLAS %d from %s", blas.Version(), blas.Path())
	ew, err := NewElementwise(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer ew.Close()
	bwd := Bwd{BLAS: blas, EW: ew}

	shapes := []struct{ M, K, I int }{{129, 72, 200}, {128, 64, 64}, {257, 768, 1024}, {5, 8, 13}}
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, s := range shapes {
			for _, mn := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/M%dK%dI%d/mn=%v", dt, s.M, s.K, s.I, mn), func(t *testing.T) {
					r := num.NewRand(uint64(s.M*31 + s.K*17 + s.I))
					dy := r.Normal(dt, s.M*s.K, 1)
					w := r.Normal(dt, s.I*s.K, 1/math.Sqrt(float64(s.K)))
					de := r.Normal(dt, s.M*2*s.I, 2)
					p := ref.BwdProblem{M: s.M, K: s.K, I: s.I, Dy: num.Float64s(dy), WDown: num.Float64s(w), De: num.Float64s(de), WDownMNMajor: mn}
					if mn {
						p.WDown = ref.TransposeRowMajor(p.WDown, s.I, s.K)
						wt := make([]float32, len(w))
						for i, x := range p.WDown {
							wt[i] = float32(x)
						}
						w = wt
					}
					want := ref.BwdDSwiGLU(p)

					dDy, dW, dDe := gputest.Upload(t, ctx, num.Encode(dt, dy)), gputest.Upload(t, ctx, num.Encode(dt, w)), gputest.Upload(t, ctx, num.Encode(dt, de))
					dDout := gputest.Upload(t, ctx, num.PoisonBytes(dt, s.M*s.I))
					dGrad := gputest.Upload(t, ctx, num.PoisonBytes(dt, s.M*2*s.I))
					dOut := gputest.Upload(t, ctx, num.PoisonBytes(dt, s.M*s.I))
					if err := bwd.Run(dt, s.M, s.K, s.I, dDy, dW, dDe, dDout, dGrad, dOut, mn, nil); err != nil {
						t.Fatal(err)
					}
					gputest.Sync(t, ctx, "baseline bwd")
					check(t, dt, "dout (cuBLAS)", gputest.Download(t, ctx, dDout, 2*s.M*s.I), want.Dout)
					check(t, dt, "grad_de", gputest.Download(t, ctx, dGrad, 2*s.M*2*s.I), want.GradDe)
					check(t, dt, "out", gputest.Download(t, ctx, dOut, 2*s.M*s.I), want.Out)
				})
			}
		}
	}
}

// TestGPUElementwiseKnownAnswers runs the extreme-gate known answers through
// both kernel paths: I = 64 rows take the 16-byte path, I = 63 the scalar one.
func TestGPUElementwiseKnownAnswers(t *testing.T) {
	ctx, tc := gputest.Open(t)
	ew, err := NewElementwise(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer ew.Close()
	b, err := os.ReadFile("testdata/dswiglu_elementwise.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct{ Dout, Left, Gate, Dleft, Dgate, Out float64 }
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, I := range []int{64, 63} {
			t.Run(fmt.Sprintf("%s/I%d", dt, I), func(t *testing.T) {
				// Lay the cases out row by row, I per row, padding with zeros.
				M := (len(f.Cases) + I - 1) / I
				dout := make([]float32, M*I)
				de := make([]float32, M*2*I)
				wantGrad := make([]float64, M*2*I)
				wantOut := make([]float64, M*I)
				for n, c := range f.Cases {
					m, i := n/I, n%I
					dout[n] = num.Round(dt, float32(c.Dout))
					de[m*2*I+i] = num.Round(dt, float32(c.Left))
					de[m*2*I+I+i] = num.Round(dt, float32(c.Gate))
					// Gates such as 0.001 are not exact in 16 bits: recompute
					// the answer for the rounded inputs, after checking the
					// reference agrees with the file on the exact ones.
					dl, dg, o := ref.DSwiGLU(float64(dout[n]), float64(de[m*2*I+i]), float64(de[m*2*I+I+i]))
					wantGrad[m*2*I+i], wantGrad[m*2*I+I+i], wantOut[n] = dl, dg, o
				}
				dDout, dDe := gputest.Upload(t, ctx, num.Encode(dt, dout)), gputest.Upload(t, ctx, num.Encode(dt, de))
				dGrad := gputest.Upload(t, ctx, num.PoisonBytes(dt, M*2*I))
				dOut := gputest.Upload(t, ctx, num.PoisonBytes(dt, M*I))
				if err := ew.Run(dt, M, I, dDout, dDe, dGrad, dOut, nil); err != nil {
					t.Fatal(err)
				}
				gputest.Sync(t, ctx, "elementwise")
				gotGrad := gputest.Download(t, ctx, dGrad, 2*M*2*I)
				gotOut := gputest.Download(t, ctx, dOut, 2*M*I)
				check(t, dt, "grad_de", gotGrad, wantGrad)
				check(t, dt, "out", gotOut, wantOut)
				// Element by element too, so one wrong extreme gate cannot
				// hide in the norm; the absolute floor admits flushed
				// subnormal sigmoids (gate -88).
				checkElems(t, "grad_de", num.Decode(dt, gotGrad), wantGrad)
				checkElems(t, "out", num.Decode(dt, gotOut), wantOut)
			})
		}
	}
}

func checkElems(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	for i, w := range want {
		if d := math.Abs(float64(got[i]) - w); !(d <= 1e-2*math.Abs(w)+1e-3) {
			t.Errorf("%s[%d] = %g, want %g", what, i, got[i], w)
		}
	}
}

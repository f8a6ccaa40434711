//go:build gpu

package ref

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/swigen/swigen/internal/gputest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/num"
	"github.com/swigen/swigen/tiling"
)

// gpuTol is the relative Frobenius bound for 16-bit outputs computed in
// fp32 (bf16 rounding alone gives ~3e-3).
const gpuTol = 1e-2

// runNaive uploads p's inputs (which must be exact in dt), runs the naive
// kernel into poisoned outputs and returns the raw grad_de and out bytes.
func runNaive(t *testing.T, ctx *cu.Context, g *GPURef, dt tiling.DType, p BwdProblem) (gradDe, out []byte) {
	t.Helper()
	enc := func(xs []float64) []byte {
		f := make([]float32, len(xs))
		for i, x := range xs {
			f[i] = float32(x)
		}
		return num.Encode(dt, f)
	}
	dy, w, de := gputest.Upload(t, ctx, enc(p.Dy)), gputest.Upload(t, ctx, enc(p.WDown)), gputest.Upload(t, ctx, enc(p.De))
	gd := gputest.Upload(t, ctx, num.PoisonBytes(dt, p.M*2*p.I))
	o := gputest.Upload(t, ctx, num.PoisonBytes(dt, p.M*p.I))
	if err := g.BwdDSwiGLU(dt, p.M, p.K, p.I, dy, w, de, gd, o, p.WDownMNMajor); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(time.Minute, "naive bwd_dswiglu"); err != nil {
		t.Fatal(err)
	}
	return gputest.Download(t, ctx, gd, 2*p.M*2*p.I), gputest.Download(t, ctx, o, 2*p.M*p.I)
}

func randomProblem(dt tiling.DType, seed uint64, M, K, I int, mn bool) BwdProblem {
	r := num.NewRand(seed)
	p := BwdProblem{M: M, K: K, I: I, WDownMNMajor: mn,
		Dy:    num.Float64s(r.Normal(dt, M*K, 1)),
		WDown: num.Float64s(r.Normal(dt, I*K, 1/math.Sqrt(float64(K)))),
		De:    num.Float64s(r.Normal(dt, M*2*I, 2)),
	}
	return p
}

func TestGPUNaiveVsCPU(t *testing.T) {
	ctx, tc := gputest.Open(t)
	g, err := NewGPURef(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	shapes := []struct{ M, K, I int }{{129, 72, 200}, {1, 8, 8}, {64, 64, 64}, {300, 768, 1024}, {7, 5, 3}}
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, s := range shapes {
			for _, mn := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/M%dK%dI%d/mn=%v", dt, s.M, s.K, s.I, mn), func(t *testing.T) {
					p := randomProblem(dt, uint64(s.M*131+s.K*7+s.I), s.M, s.K, s.I, mn)
					if mn {
						p.WDown = TransposeRowMajor(p.WDown, s.I, s.K)
					}
					want := BwdDSwiGLU(p)
					gd, o := runNaive(t, ctx, g, dt, p)
					for _, c := range []struct {
						name string
						raw  []byte
						want []float64
					}{{"grad_de", gd, want.GradDe}, {"out", o, want.Out}} {
						st := num.CompareRaw(dt, c.raw, c.want)
						t.Logf("%s: %v", c.name, st)
						if !st.OK(gpuTol) {
							t.Errorf("%s: %v exceeds %g", c.name, st, gpuTol)
						}
					}
				})
			}
		}
	}
}

func TestGPUNaiveKnownAnswers(t *testing.T) {
	ctx, tc := gputest.Open(t)
	g, err := NewGPURef(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var f struct{ Cases []bwdCase }
	readJSON(t, "bwd_dswiglu_small.json", &f)
	for n, c := range f.Cases {
		for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
			t.Run(fmt.Sprintf("case%d/%s", n, dt), func(t *testing.T) {
				p := BwdProblem{M: c.M, K: c.K, I: c.I, Dy: flatten(c.Dy), WDown: flatten(c.WDown), De: flatten(c.De)}
				gd, o := runNaive(t, ctx, g, dt, p)
				for _, cc := range []struct {
					name string
					raw  []byte
					want []float64
				}{{"grad_de", gd, flatten(c.GradDe)}, {"out", o, flatten(c.Out)}} {
					st := num.CompareRaw(dt, cc.raw, cc.want)
					t.Logf("%s: %v", cc.name, st)
					if !st.OK(gpuTol) {
						t.Errorf("%s: %v exceeds %g", cc.name, st, gpuTol)
					}
				}
			})
		}
	}
}

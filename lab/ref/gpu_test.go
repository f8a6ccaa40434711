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

// runNaive uploads p's inputs (which must be exact in dt), runs the naive
// kernel into poisoned outputs and returns the raw float64 grad_de and out
// bytes.
func runNaive(t *testing.T, ctx *cu.Context, g *GPURef, dt tiling.DType, p BwdProblem) (gradDe, out []byte) {
	t.Helper()
	dy, w, de := gputest.Upload(t, ctx, encode64(dt, p.Dy)), gputest.Upload(t, ctx, encode64(dt, p.WDown)), gputest.Upload(t, ctx, encode64(dt, p.De))
	gd, o := poisonedBuf(t, ctx, p.M*2*p.I), poisonedBuf(t, ctx, p.M*p.I)
	if err := g.BwdDSwiGLU(dt, p.M, p.K, p.I, dy, w, de, gd, o, p.WDownMNMajor); err != nil {
		t.Fatal(err)
	}
	gputest.Sync(t, ctx, "naive bwd_dswiglu")
	return gputest.Download(t, ctx, gd, 8*p.M*2*p.I), gputest.Download(t, ctx, o, 8*p.M*p.I)
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
					checkOutput(t, "grad_de", gd, want.GradDe, false)
					checkOutput(t, "out", o, want.Out, false)
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
				checkOutput(t, "grad_de", gd, flatten(c.GradDe), false)
				checkOutput(t, "out", o, flatten(c.Out), false)
			})
		}
	}
}

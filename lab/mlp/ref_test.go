package mlp

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(r *rand.Rand, n int, scale float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64() * scale
	}
	return s
}

func tinyProblem(seed uint64, M, K, I int) StepProblem {
	r := rand.New(rand.NewPCG(seed, 7))
	return StepProblem{M: M, K: K, I: I,
		X: randSlice(r, M*K, 1), W: randSlice(r, 2*I*K, 0.7), WDown: randSlice(r, I*K, 0.7), Dy: randSlice(r, M*K, 1)}
}

// loss is L = sum(y * dy), whose gradients with respect to x, W and
// W_down are exactly the step's dx, dW and dW_down. It is computed here
// by a naive forward written independently of RefStep (plain index
// arithmetic, silu from its definition).
func loss(p StepProblem) float64 {
	M, K, I := p.M, p.K, p.I
	silu := func(g float64) float64 { return g / (1 + math.Exp(-g)) }
	var L float64
	for m := 0; m < M; m++ {
		out := make([]float64, I)
		for i := 0; i < I; i++ {
			var left, gate float64
			for k := 0; k < K; k++ {
				left += p.X[m*K+k] * p.W[i*K+k]
				gate += p.X[m*K+k] * p.W[(I+i)*K+k]
			}
			out[i] = left * silu(gate)
		}
		for k := 0; k < K; k++ {
			var y float64
			for i := 0; i < I; i++ {
				y += out[i] * p.WDown[i*K+k]
			}
			L += y * p.Dy[m*K+k]
		}
	}
	return L
}

// TestRefStepFiniteDifferences checks every gradient of RefStep against
// central differences of the independent naive loss.
func TestRefStepFiniteDifferences(t *testing.T) {
	t.Parallel()
	for _, sh := range [][3]int{{3, 4, 5}, {1, 2, 1}, {4, 3, 2}} {
		p := tinyProblem(uint64(sh[0]*100+sh[1]*10+sh[2]), sh[0], sh[1], sh[2])
		r, err := RefStep(p)
		if err != nil {
			t.Fatal(err)
		}
		const h = 1e-5
		for _, g := range []struct {
			name string
			in   []float64
			grad []float64
		}{{"dx", p.X, r.DX}, {"dW", p.W, r.DW}, {"dW_down", p.WDown, r.DWDown}} {
			if len(g.grad) != len(g.in) {
				t.Fatalf("%v %s: %d elements, want %d", sh, g.name, len(g.grad), len(g.in))
			}
			for i := range g.in {
				v := g.in[i]
				g.in[i] = v + h
				lp := loss(p)
				g.in[i] = v - h
				lm := loss(p)
				g.in[i] = v
				fd := (lp - lm) / (2 * h)
				if math.Abs(fd-g.grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%v %s[%d] = %.10g, finite difference %.10g", sh, g.name, i, g.grad[i], fd)
				}
			}
		}
	}
}

// TestRefStepForwardNaive compares de, out and y with direct formulas,
// and grad_de with the chain rule through out (dL/dde = dout * dout/dde).
func TestRefStepForwardNaive(t *testing.T) {
	t.Parallel()
	M, K, I := 3, 5, 4
	p := tinyProblem(11, M, K, I)
	r, err := RefStep(p)
	if err != nil {
		t.Fatal(err)
	}
	sig := func(g float64) float64 { return 1 / (1 + math.Exp(-g)) }
	var y float64
	for m := 0; m < M; m++ {
		for j := 0; j < 2*I; j++ {
			var de float64
			for k := 0; k < K; k++ {
				de += p.X[m*K+k] * p.W[j*K+k]
			}
			if d := math.Abs(de - r.De[m*2*I+j]); d > 1e-12 {
				t.Errorf("de[%d,%d] off by %g", m, j, d)
			}
		}
		for i := 0; i < I; i++ {
			l, g := r.De[m*2*I+i], r.De[m*2*I+I+i]
			if d := math.Abs(l*g*sig(g) - r.Out[m*I+i]); d > 1e-12 {
				t.Errorf("out[%d,%d] off by %g", m, i, d)
			}
			var dout float64
			for k := 0; k < K; k++ {
				dout += p.Dy[m*K+k] * p.WDown[i*K+k]
			}
			// d out / d left = silu(g); d out / d gate = left * silu'(g),
			// silu'(g) by a central difference of silu.
			const h = 1e-6
			dsilu := ((g+h)*sig(g+h) - (g-h)*sig(g-h)) / (2 * h)
			if d := math.Abs(dout*g*sig(g) - r.GradDe[m*2*I+i]); d > 1e-10 {
				t.Errorf("dleft[%d,%d] off by %g", m, i, d)
			}
			if d := math.Abs(dout*l*dsilu - r.GradDe[m*2*I+I+i]); d > 1e-6 {
				t.Errorf("dgate[%d,%d] off by %g", m, i, d)
			}
		}
		for k := 0; k < K; k++ {
			var yy float64
			for i := 0; i < I; i++ {
				yy += r.Out[m*I+i] * p.WDown[i*K+k]
			}
			if d := math.Abs(yy - r.Y[m*K+k]); d > 1e-12 {
				t.Errorf("y[%d,%d] off by %g", m, k, d)
			}
			y += yy * p.Dy[m*K+k]
		}
	}
	if d := math.Abs(y - loss(p)); d > 1e-9 {
		t.Errorf("sum(y*dy) = %g, naive loss %g", y, loss(p))
	}
}

func TestRefStepValidate(t *testing.T) {
	t.Parallel()
	p := tinyProblem(1, 2, 3, 4)
	p.W = p.W[:5]
	if _, err := RefStep(p); err == nil {
		t.Error("short W: want error")
	}
	if _, err := RefStep(StepProblem{}); err == nil {
		t.Error("zero sizes: want error")
	}
}

package ref

import (
	"math"
	"strings"
	"testing"
)

// TestMoEBwdPerExpert checks the grouped backward reference row by row
// against dout computed here from its definition, dout[r,i] =
// sum_k dy[r,k] * W_down[e,k,i] for row r's expert e, and DSwiGLU; empty
// experts included.
func TestMoEBwdPerExpert(t *testing.T) {
	const K, I, E = 12, 8, 4
	offs := []int32{0, 3, 3, 7} // experts 0 and 2 empty
	T := int(offs[E-1])
	dy, w, de := make([]float64, T*K), make([]float64, E*K*I), make([]float64, T*2*I)
	for i := range dy {
		dy[i] = math.Sin(float64(i))
	}
	for i := range w {
		w[i] = math.Cos(float64(3 * i))
	}
	for i := range de {
		de[i] = math.Sin(float64(5*i) + 1)
	}
	got := MoEBwdDSwiGLU(MoEBwdProblem{T: T, K: K, I: I, E: E, Dy: dy, WDown: w, De: de, Offs: offs})
	if len(got.GradDe) != T*2*I || len(got.Out) != T*I {
		t.Fatalf("grad_de has %d elements, out %d; want %d, %d", len(got.GradDe), len(got.Out), T*2*I, T*I)
	}
	expertOf := []int{1, 1, 1, 3, 3, 3, 3}
	for r := 0; r < T; r++ {
		e := expertOf[r]
		for i := 0; i < I; i++ {
			dout := 0.0
			for k := 0; k < K; k++ {
				dout += dy[r*K+k] * w[(e*K+k)*I+i]
			}
			dl, dg, o := DSwiGLU(dout, de[r*2*I+i], de[r*2*I+I+i])
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"dleft", got.GradDe[r*2*I+i], dl}, {"dgate", got.GradDe[r*2*I+I+i], dg}, {"out", got.Out[r*I+i], o}} {
				if math.Abs(c.got-c.want) > 1e-12*(1+math.Abs(c.want)) {
					t.Fatalf("%s[%d,%d] = %v, want %v (expert %d)", c.what, r, i, c.got, c.want, e)
				}
			}
		}
	}
}

// TestMoEBwdValidate rejects offsets that decrease, start below zero or
// miss T, and slices of the wrong length, each naming the rule.
func TestMoEBwdValidate(t *testing.T) {
	ok := MoEBwdProblem{T: 2, K: 8, I: 8, E: 2, Dy: make([]float64, 16), WDown: make([]float64, 2*8*8), De: make([]float64, 2*16), Offs: []int32{1, 2}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	cases := []struct {
		what string
		edit func(*MoEBwdProblem)
		want string
	}{
		{"decreasing", func(p *MoEBwdProblem) { p.Offs = []int32{2, 1} }, "offs[1]=1: must not be below offs[0]=2"},
		{"short of T", func(p *MoEBwdProblem) { p.Offs = []int32{1, 1} }, "offs[E-1]=1: must be T=2"},
		{"negative first", func(p *MoEBwdProblem) { p.Offs = []int32{-1, 2} }, "offs[0]=-1: must be >= 0"},
		{"short de", func(p *MoEBwdProblem) { p.De = p.De[:5] }, "de has 5 elements, want 32"},
		{"K-major-sized W_down", func(p *MoEBwdProblem) { p.WDown = p.WDown[:64] }, "w_down has 64 elements, want 128"},
	}
	for _, c := range cases {
		p := ok
		c.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error containing %q", c.what, err, c.want)
		}
		if r := MoEBwdDSwiGLU(p); r.GradDe != nil || r.Out != nil {
			t.Errorf("%s: MoEBwdDSwiGLU returned an answer for an invalid problem", c.what)
		}
	}
}

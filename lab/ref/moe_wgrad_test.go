package ref

import (
	"math"
	"strings"
	"testing"
)

// TestMoEWgradPerExpert checks the weight-gradient reference element by
// element against its definition, dW[e][n,k] = sum over rows r of e of
// A[r,n] * B[r,k]; empty experts (first, middle, last) give zeros.
func TestMoEWgradPerExpert(t *testing.T) {
	const N, K, E = 10, 12, 5
	offs := []int32{0, 3, 3, 7, 7} // experts 0, 2 and 4 empty
	T := int(offs[E-1])
	a, b := make([]float64, T*N), make([]float64, T*K)
	for i := range a {
		a[i] = math.Sin(float64(i))
	}
	for i := range b {
		b[i] = math.Cos(float64(3 * i))
	}
	rows := [][2]int{{0, 0}, {0, 3}, {3, 3}, {3, 7}, {7, 7}}
	got := MoEWgrad(MoEWgradProblem{T: T, N: N, K: K, E: E, A: a, B: b, Offs: offs})
	if len(got) != E*N*K {
		t.Fatalf("dW has %d elements, want %d", len(got), E*N*K)
	}
	for e := 0; e < E; e++ {
		for n := 0; n < N; n++ {
			for k := 0; k < K; k++ {
				want := 0.0
				for r := rows[e][0]; r < rows[e][1]; r++ {
					want += a[r*N+n] * b[r*K+k]
				}
				if g := got[(e*N+n)*K+k]; math.Abs(g-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("dW[%d][%d,%d] = %v, want %v", e, n, k, g, want)
				}
			}
		}
	}
}

// TestMoEWgradValidate rejects offsets that decrease, start below zero or
// miss T, and slices of the wrong length, each naming the rule.
func TestMoEWgradValidate(t *testing.T) {
	ok := MoEWgradProblem{T: 2, N: 8, K: 16, E: 2, A: make([]float64, 16), B: make([]float64, 32), Offs: []int32{1, 2}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	cases := []struct {
		what string
		edit func(*MoEWgradProblem)
		want string
	}{
		{"decreasing", func(p *MoEWgradProblem) { p.Offs = []int32{2, 1} }, "offs[1]=1: must not be below offs[0]=2"},
		{"short of T", func(p *MoEWgradProblem) { p.Offs = []int32{1, 1} }, "offs[E-1]=1: must be T=2"},
		{"negative first", func(p *MoEWgradProblem) { p.Offs = []int32{-1, 2} }, "offs[0]=-1: must be >= 0"},
		{"short A", func(p *MoEWgradProblem) { p.A = p.A[:5] }, "A has 5 elements (want 16)"},
		{"short B", func(p *MoEWgradProblem) { p.B = p.B[:16] }, "B 16 (want 32)"},
		{"no experts", func(p *MoEWgradProblem) { p.E = 0 }, "the others positive"},
	}
	for _, c := range cases {
		p := ok
		c.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error containing %q", c.what, err, c.want)
		}
		if r := MoEWgrad(p); r != nil {
			t.Errorf("%s: MoEWgrad returned an answer for an invalid problem", c.what)
		}
	}
}

package ref

import (
	"math"
	"strings"
	"testing"
)

// TestMoEGemmPerExpert checks the grouped GEMM reference element by element
// against its definition, C[r,n] = sum_k A[r,k] * B[e][n,k] (K-major) or
// B[e][k,n] (MN-major) for row r's expert e; empty experts included.
func TestMoEGemmPerExpert(t *testing.T) {
	const N, K, E = 10, 12, 4
	offs := []int32{0, 3, 3, 7} // experts 0 and 2 empty
	T := int(offs[E-1])
	a, b := make([]float64, T*K), make([]float64, E*N*K)
	for i := range a {
		a[i] = math.Sin(float64(i))
	}
	for i := range b {
		b[i] = math.Cos(float64(3 * i))
	}
	expertOf := []int{1, 1, 1, 3, 3, 3, 3}
	for _, mn := range []bool{false, true} {
		got := MoEGemm(MoEGemmProblem{T: T, N: N, K: K, E: E, A: a, B: b, BMNMajor: mn, Offs: offs})
		if len(got) != T*N {
			t.Fatalf("mn=%v: C has %d elements, want %d", mn, len(got), T*N)
		}
		for r := 0; r < T; r++ {
			e := expertOf[r]
			for n := 0; n < N; n++ {
				want := 0.0
				for k := 0; k < K; k++ {
					bi := (e*N+n)*K + k
					if mn {
						bi = (e*K+k)*N + n
					}
					want += a[r*K+k] * b[bi]
				}
				if g := got[r*N+n]; math.Abs(g-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("mn=%v: C[%d,%d] = %v, want %v (expert %d)", mn, r, n, g, want, e)
				}
			}
		}
	}
}

// TestMoEGemmValidate rejects offsets that decrease, start below zero or
// miss T, and slices of the wrong length, each naming the rule.
func TestMoEGemmValidate(t *testing.T) {
	ok := MoEGemmProblem{T: 2, N: 8, K: 8, E: 2, A: make([]float64, 16), B: make([]float64, 2*8*8), Offs: []int32{1, 2}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	cases := []struct {
		what string
		edit func(*MoEGemmProblem)
		want string
	}{
		{"decreasing", func(p *MoEGemmProblem) { p.Offs = []int32{2, 1} }, "offs[1]=1: must not be below offs[0]=2"},
		{"short of T", func(p *MoEGemmProblem) { p.Offs = []int32{1, 1} }, "offs[E-1]=1: must be T=2"},
		{"negative first", func(p *MoEGemmProblem) { p.Offs = []int32{-1, 2} }, "offs[0]=-1: must be >= 0"},
		{"short A", func(p *MoEGemmProblem) { p.A = p.A[:5] }, "A has 5 elements (want 16)"},
		{"one expert's B", func(p *MoEGemmProblem) { p.B = p.B[:64] }, "B 64 (want 128)"},
		{"no experts", func(p *MoEGemmProblem) { p.E = 0 }, "the others positive"},
	}
	for _, c := range cases {
		p := ok
		c.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error containing %q", c.what, err, c.want)
		}
		if r := MoEGemm(p); r != nil {
			t.Errorf("%s: MoEGemm returned an answer for an invalid problem", c.what)
		}
	}
}

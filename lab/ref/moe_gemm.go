package ref

import "fmt"

// MoEGemmProblem is one moe_gemm problem in float64, all row-major: A
// [T,K] sorted by expert; B [E,N,K] (K-major per expert, the default) or,
// with BMNMajor, [E,K,N]; Offs [E] the cumulative row ends (expert e owns
// rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T).
type MoEGemmProblem struct {
	T, N, K, E int
	A, B       []float64
	BMNMajor   bool
	Offs       []int32
}

// Validate checks the sizes, the slices' lengths and that Offs is
// non-decreasing, starts at or above 0 and ends at T.
func (p MoEGemmProblem) Validate() error {
	if p.T < 0 || p.N <= 0 || p.K <= 0 || p.E <= 0 {
		return fmt.Errorf("ref: moe_gemm problem T=%d N=%d K=%d E=%d: T must be >= 0, the others positive", p.T, p.N, p.K, p.E)
	}
	if len(p.A) != p.T*p.K || len(p.B) != p.E*p.N*p.K || len(p.Offs) != p.E {
		return fmt.Errorf("ref: moe_gemm problem T=%d N=%d K=%d E=%d: A has %d elements (want %d), B %d (want %d), offs %d (want %d)",
			p.T, p.N, p.K, p.E, len(p.A), p.T*p.K, len(p.B), p.E*p.N*p.K, len(p.Offs), p.E)
	}
	prev := int32(0)
	for e, o := range p.Offs {
		switch {
		case e == 0 && o < 0:
			return fmt.Errorf("ref: moe_gemm offs[0]=%d: must be >= 0 (cumulative ends)", o)
		case o < prev:
			return fmt.Errorf("ref: moe_gemm offs[%d]=%d: must not be below offs[%d]=%d (cumulative ends)", e, o, e-1, prev)
		}
		prev = o
	}
	if int(prev) != p.T {
		return fmt.Errorf("ref: moe_gemm offs[E-1]=%d: must be T=%d", prev, p.T)
	}
	return nil
}

// MoEGemm computes C [T,N] expert by expert: the rows of expert e get Gemm
// with B[e] in p's major. It returns nil for an invalid problem, which
// every comparison then fails on length.
func MoEGemm(p MoEGemmProblem) []float64 {
	if p.Validate() != nil {
		return nil
	}
	N, K := p.N, p.K
	c := make([]float64, p.T*N)
	row0 := 0
	for e := 0; e < p.E; e++ {
		row1 := int(p.Offs[e])
		if row1 > row0 {
			r := Gemm(GemmProblem{M: row1 - row0, N: N, K: K, BMNMajor: p.BMNMajor,
				A: p.A[row0*K : row1*K], B: p.B[e*N*K : (e+1)*N*K]})
			copy(c[row0*N:row1*N], r)
		}
		row0 = row1
	}
	return c
}

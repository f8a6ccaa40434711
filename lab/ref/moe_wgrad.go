package ref

import "fmt"

// MoEWgradProblem is one moe_wgrad problem in float64, all row-major: A
// [T,N] and B [T,K] sorted by expert; Offs [E] the cumulative row ends
// (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T).
type MoEWgradProblem struct {
	T, N, K, E int
	A, B       []float64
	Offs       []int32
}

// Validate checks the sizes, the slices' lengths and that Offs is
// non-decreasing, starts at or above 0 and ends at T.
func (p MoEWgradProblem) Validate() error {
	if p.T < 0 || p.N <= 0 || p.K <= 0 || p.E <= 0 {
		return fmt.Errorf("ref: moe_wgrad problem T=%d N=%d K=%d E=%d: T must be >= 0, the others positive", p.T, p.N, p.K, p.E)
	}
	if len(p.A) != p.T*p.N || len(p.B) != p.T*p.K || len(p.Offs) != p.E {
		return fmt.Errorf("ref: moe_wgrad problem T=%d N=%d K=%d E=%d: A has %d elements (want %d), B %d (want %d), offs %d (want %d)",
			p.T, p.N, p.K, p.E, len(p.A), p.T*p.N, len(p.B), p.T*p.K, len(p.Offs), p.E)
	}
	prev := int32(0)
	for e, o := range p.Offs {
		switch {
		case e == 0 && o < 0:
			return fmt.Errorf("ref: moe_wgrad offs[0]=%d: must be >= 0 (cumulative ends)", o)
		case o < prev:
			return fmt.Errorf("ref: moe_wgrad offs[%d]=%d: must not be below offs[%d]=%d (cumulative ends)", e, o, e-1, prev)
		}
		prev = o
	}
	if int(prev) != p.T {
		return fmt.Errorf("ref: moe_wgrad offs[E-1]=%d: must be T=%d", prev, p.T)
	}
	return nil
}

// MoEWgrad computes dW [E,N,K] expert by expert: dW[e] = A[rows of e]^T @
// B[rows of e], zero for an expert with no rows. It returns nil for an
// invalid problem, which every comparison then fails on length.
func MoEWgrad(p MoEWgradProblem) []float64 {
	if p.Validate() != nil {
		return nil
	}
	N, K := p.N, p.K
	dw := make([]float64, p.E*N*K)
	row0 := 0
	for e := 0; e < p.E; e++ {
		row1 := int(p.Offs[e])
		out := dw[e*N*K : (e+1)*N*K]
		for r := row0; r < row1; r++ {
			a, b := p.A[r*N:(r+1)*N], p.B[r*K:(r+1)*K]
			for n, av := range a {
				o := out[n*K : (n+1)*K]
				for k, bv := range b {
					o[k] += av * bv
				}
			}
		}
		row0 = row1
	}
	return dw
}

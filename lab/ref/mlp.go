package ref

import (
	"fmt"
	"math"
)

// GemmProblem is one C[M,N] = A @ B problem in float64, all row-major: A
// is [M,K], or [K,M] with AMNMajor; B is [N,K] (K-major, the default), or
// [K,N] with BMNMajor. The majors are those of tiling.Config.MajorA/MajorB.
type GemmProblem struct {
	M, N, K            int
	A, B               []float64
	AMNMajor, BMNMajor bool
}

// Validate checks that the sizes are positive and the slices hold exactly
// the elements the sizes imply.
func (p GemmProblem) Validate() error {
	if p.M <= 0 || p.N <= 0 || p.K <= 0 {
		return fmt.Errorf("ref: gemm problem M=%d N=%d K=%d: sizes must be positive", p.M, p.N, p.K)
	}
	if len(p.A) != p.M*p.K || len(p.B) != p.N*p.K {
		return fmt.Errorf("ref: gemm problem M=%d N=%d K=%d: A has %d elements (want %d), B %d (want %d)",
			p.M, p.N, p.K, len(p.A), p.M*p.K, len(p.B), p.N*p.K)
	}
	return nil
}

// Gemm computes C = A @ B in float64, rows spread over GOMAXPROCS
// goroutines. An invalid problem gives nil, which every comparison then
// fails on length.
func Gemm(p GemmProblem) []float64 {
	if p.Validate() != nil {
		return nil
	}
	M, N, K := p.M, p.N, p.K
	c := make([]float64, M*N)
	parallelRows(M, func(m int) {
		a := p.A[m*K : (m+1)*K]
		if p.AMNMajor {
			// A stored [K,M]: gather row m.
			row := make([]float64, K)
			for k := range row {
				row[k] = p.A[k*M+m]
			}
			a = row
		}
		out := c[m*N : (m+1)*N]
		if p.BMNMajor {
			// B stored [K,N]: accumulate rows of B scaled by a[k], which
			// walks both operands contiguously.
			for k, x := range a {
				b := p.B[k*N : (k+1)*N]
				for n := range out {
					out[n] += x * b[n]
				}
			}
			return
		}
		for n := range out {
			out[n] = dot(a, p.B[n*K:(n+1)*K])
		}
	})
	return c
}

// SwiGLU is the forward activation of one element in float64:
// left * silu(gate) = left * gate * sigmoid(gate).
func SwiGLU(left, gate float64) float64 {
	return left * gate / (1 + math.Exp(-gate))
}

// FwdGateUpProblem is one fwd_gateup problem in float64, all row-major:
// X [M,K]; W [K,2I] logically ([left | gate] columns), stored [2I,K] (left
// rows then gate rows: nn.Linear's layout, major_b=k, the default) or,
// with WMNMajor, [K,2I].
type FwdGateUpProblem struct {
	M, K, I  int
	X, W     []float64
	WMNMajor bool
}

// FwdGateUpResult is the float64 answer: De [M,2I] = [left | gate] and Out
// [M,I] = left*silu(gate).
type FwdGateUpResult struct {
	De, Out []float64
}

// Validate checks that the sizes are positive and the slices hold exactly
// the elements the sizes imply.
func (p FwdGateUpProblem) Validate() error {
	if p.M <= 0 || p.K <= 0 || p.I <= 0 {
		return fmt.Errorf("ref: fwd_gateup problem M=%d K=%d I=%d: sizes must be positive", p.M, p.K, p.I)
	}
	if len(p.X) != p.M*p.K || len(p.W) != 2*p.I*p.K {
		return fmt.Errorf("ref: fwd_gateup problem M=%d K=%d I=%d: x has %d elements (want %d), W %d (want %d)",
			p.M, p.K, p.I, len(p.X), p.M*p.K, len(p.W), 2*p.I*p.K)
	}
	return nil
}

// FwdGateUp computes de = x @ W and out = left*silu(gate) in float64
// (docs/DESIGN.md#math-and-conventions). An invalid problem gives an empty result.
func FwdGateUp(p FwdGateUpProblem) FwdGateUpResult {
	if p.Validate() != nil {
		return FwdGateUpResult{}
	}
	M, I := p.M, p.I
	de := Gemm(GemmProblem{M: M, N: 2 * I, K: p.K, A: p.X, B: p.W, BMNMajor: p.WMNMajor})
	out := make([]float64, M*I)
	for m := 0; m < M; m++ {
		for i := 0; i < I; i++ {
			out[m*I+i] = SwiGLU(de[m*2*I+i], de[m*2*I+I+i])
		}
	}
	return FwdGateUpResult{De: de, Out: out}
}

// FwdDownProblem is one fwd_down problem in float64, all row-major: Out
// [M,I]; WDown [I,K] (the default; MN-major as this GEMM's B, major_b=mn)
// or, with WDownKI, stored [K,I] (nn.Linear's down_proj, major_b=k);
// Residual [M,K] or nil for none.
type FwdDownProblem struct {
	M, K, I  int
	Out      []float64
	WDown    []float64
	Residual []float64
	WDownKI  bool
}

// Validate checks that the sizes are positive and the slices hold exactly
// the elements the sizes imply.
func (p FwdDownProblem) Validate() error {
	if p.M <= 0 || p.K <= 0 || p.I <= 0 {
		return fmt.Errorf("ref: fwd_down problem M=%d K=%d I=%d: sizes must be positive", p.M, p.K, p.I)
	}
	if len(p.Out) != p.M*p.I || len(p.WDown) != p.I*p.K || (p.Residual != nil && len(p.Residual) != p.M*p.K) {
		return fmt.Errorf("ref: fwd_down problem M=%d K=%d I=%d: out has %d elements (want %d), W_down %d (want %d), residual %d (want 0 or %d)",
			p.M, p.K, p.I, len(p.Out), p.M*p.I, len(p.WDown), p.I*p.K, len(p.Residual), p.M*p.K)
	}
	return nil
}

// FwdDown computes y = out @ W_down (+ residual) in float64. An invalid
// problem gives nil.
func FwdDown(p FwdDownProblem) []float64 {
	if p.Validate() != nil {
		return nil
	}
	// As a GEMM: M x N=K x K=I; W_down [I,K] is B stored [K,N].
	y := Gemm(GemmProblem{M: p.M, N: p.K, K: p.I, A: p.Out, B: p.WDown, BMNMajor: !p.WDownKI})
	for i, r := range p.Residual {
		y[i] += r
	}
	return y
}

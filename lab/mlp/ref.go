package mlp

import (
	"fmt"

	"github.com/swigen/swigen/lab/ref"
)

// StepProblem is one MLP training step in float64, row-major: X [M,K],
// W [2I,K] (nn.Linear layout), WDown [I,K], Dy [M,K] (the gradient of the
// loss with respect to y).
type StepProblem struct {
	M, K, I         int
	X, W, WDown, Dy []float64
}

// StepResult is the float64 answer: the forward's De [M,2I], Out [M,I],
// Y [M,K]; the backward's GradDe [M,2I], DWDown [I,K], DX [M,K], DW [2I,K].
type StepResult struct {
	De, Out, Y             []float64
	GradDe, DWDown, DX, DW []float64
}

// Validate checks the sizes and slice lengths.
func (p StepProblem) Validate() error {
	if p.M <= 0 || p.K <= 0 || p.I <= 0 {
		return fmt.Errorf("mlp: step problem M=%d K=%d I=%d: sizes must be positive", p.M, p.K, p.I)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"x", len(p.X), p.M * p.K}, {"W", len(p.W), 2 * p.I * p.K},
		{"W_down", len(p.WDown), p.I * p.K}, {"dy", len(p.Dy), p.M * p.K},
	} {
		if c.got != c.want {
			return fmt.Errorf("mlp: step problem M=%d K=%d I=%d: %s has %d elements, want %d", p.M, p.K, p.I, c.name, c.got, c.want)
		}
	}
	return nil
}

// RefStep computes the whole step in float64 (docs/DESIGN.md#math-and-conventions); the
// dout GEMM and dSwiGLU come from ref.BwdDSwiGLU, the ground truth that
// bwd_dswiglu is verified against.
func RefStep(p StepProblem) (StepResult, error) {
	if err := p.Validate(); err != nil {
		return StepResult{}, err
	}
	M, K, I := p.M, p.K, p.I
	var r StepResult
	// de[m,j] = sum_k x[m,k] W[j,k]: both operands K-contiguous.
	r.De = matMulNT(p.X, p.W, M, 2*I, K)
	r.Out = make([]float64, M*I)
	for m := 0; m < M; m++ {
		for i := 0; i < I; i++ {
			_, _, r.Out[m*I+i] = ref.DSwiGLU(0, r.De[m*2*I+i], r.De[m*2*I+I+i])
		}
	}
	r.Y = matMulNN(r.Out, p.WDown, M, K, I)
	b := ref.BwdDSwiGLU(ref.BwdProblem{M: M, K: K, I: I, Dy: p.Dy, WDown: p.WDown, De: r.De})
	r.GradDe = b.GradDe
	r.DWDown = matMulTN(r.Out, p.Dy, I, K, M)
	r.DX = matMulNN(r.GradDe, p.W, M, K, 2*I)
	r.DW = matMulTN(r.GradDe, p.X, 2*I, K, M)
	return r, nil
}

// matMulNT returns C[M,N] = A[M,K] @ B[N,K]^T.
func matMulNT(a, b []float64, M, N, K int) []float64 {
	c := make([]float64, M*N)
	for m := 0; m < M; m++ {
		ar := a[m*K : (m+1)*K]
		for n := 0; n < N; n++ {
			br := b[n*K : (n+1)*K]
			var s float64
			for k, x := range ar {
				s += x * br[k]
			}
			c[m*N+n] = s
		}
	}
	return c
}

// matMulNN returns C[M,N] = A[M,K] @ B[K,N], accumulating scaled rows of B
// so both operands are walked contiguously.
func matMulNN(a, b []float64, M, N, K int) []float64 {
	c := make([]float64, M*N)
	for m := 0; m < M; m++ {
		cr := c[m*N : (m+1)*N]
		for k := 0; k < K; k++ {
			x := a[m*K+k]
			br := b[k*N : (k+1)*N]
			for n, y := range br {
				cr[n] += x * y
			}
		}
	}
	return c
}

// matMulTN returns C[M,N] = A[K,M]^T @ B[K,N] (the weight gradients: the
// reduction runs over the token dimension).
func matMulTN(a, b []float64, M, N, K int) []float64 {
	c := make([]float64, M*N)
	for k := 0; k < K; k++ {
		ar := a[k*M : (k+1)*M]
		br := b[k*N : (k+1)*N]
		for m, x := range ar {
			cr := c[m*N : (m+1)*N]
			for n, y := range br {
				cr[n] += x * y
			}
		}
	}
	return c
}

// Package ref holds swigen's references: a CPU float64 implementation of
// each kernel's math (the ground truth of verification) and naive GPU
// kernels that compute the same thing by a code path independent of the
// generated kernels (fast enough for large shapes, simple enough to trust).
package ref

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// BwdProblem is one bwd_dswiglu problem in float64, all row-major:
// Dy [M,K]; WDown [I,K] (K-major) or, with WDownMNMajor, [K,I]; De [M,2I]
// holding [left | gate].
type BwdProblem struct {
	M, K, I      int
	Dy, WDown    []float64
	De           []float64
	WDownMNMajor bool
}

// BwdResult is the float64 answer of a BwdProblem: Dout [M,I],
// GradDe [M,2I] = [dleft | dgate] and Out [M,I] = left*silu(gate).
type BwdResult struct {
	Dout, GradDe, Out []float64
}

// Validate checks that the sizes are positive and the slices hold exactly
// the elements the sizes imply.
func (p BwdProblem) Validate() error {
	if p.M <= 0 || p.K <= 0 || p.I <= 0 {
		return fmt.Errorf("ref: bwd problem M=%d K=%d I=%d: sizes must be positive", p.M, p.K, p.I)
	}
	for _, c := range []struct {
		name string
		got  int
		want int
	}{
		{"dy", len(p.Dy), p.M * p.K},
		{"w_down", len(p.WDown), p.I * p.K},
		{"de", len(p.De), p.M * 2 * p.I},
	} {
		if c.got != c.want {
			return fmt.Errorf("ref: bwd problem M=%d K=%d I=%d: %s has %d elements, want %d", p.M, p.K, p.I, c.name, c.got, c.want)
		}
	}
	return nil
}

// BwdDSwiGLU computes dout = dy @ W_down^T and the dSwiGLU epilogue in
// float64 (docs/DESIGN.md#math-and-conventions), rows spread over GOMAXPROCS goroutines. An
// invalid problem (see Validate) gives an empty result, which every
// comparison then fails on length.
func BwdDSwiGLU(p BwdProblem) BwdResult {
	if p.Validate() != nil {
		return BwdResult{}
	}
	M, K, I := p.M, p.K, p.I
	r := BwdResult{
		Dout:   make([]float64, M*I),
		GradDe: make([]float64, M*2*I),
		Out:    make([]float64, M*I),
	}
	parallelRows(M, func(m int) {
		dy := p.Dy[m*K : (m+1)*K]
		dout := r.Dout[m*I : (m+1)*I]
		if p.WDownMNMajor {
			// W_down stored [K,I]: accumulate rows of W scaled by dy[k],
			// which walks both operands contiguously.
			for k, a := range dy {
				w := p.WDown[k*I : (k+1)*I]
				for i := range dout {
					dout[i] += a * w[i]
				}
			}
		} else {
			for i := range dout {
				dout[i] = dot(dy, p.WDown[i*K:(i+1)*K])
			}
		}
		de := p.De[m*2*I : (m+1)*2*I]
		g := r.GradDe[m*2*I : (m+1)*2*I]
		out := r.Out[m*I : (m+1)*I]
		for i, d := range dout {
			g[i], g[I+i], out[i] = DSwiGLU(d, de[i], de[I+i])
		}
	})
	return r
}

// DSwiGLU is the epilogue of one element in float64: with s = sigmoid(gate),
// dleft = dout*gate*s, dgate = dout*left*s*(1+gate*(1-s)), out = left*gate*s.
func DSwiGLU(dout, left, gate float64) (dleft, dgate, out float64) {
	// 1-s is computed as sigmoid(-gate), not by subtraction, so it keeps
	// full relative precision for large positive gates.
	s := 1 / (1 + math.Exp(-gate))
	oneMinusS := 1 / (1 + math.Exp(gate))
	silu := gate * s
	return dout * silu, dout * left * s * (1 + gate*oneMinusS), left * silu
}

// dot is a 4-way unrolled dot product; independent partial sums keep the
// CPU's FMA pipes busy (the M=1024,K=768,I=1024 reference must take
// seconds, not tens of seconds).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// parallelRows calls f(m) for every m in [0,rows), spread over GOMAXPROCS
// goroutines in contiguous blocks.
func parallelRows(rows int, f func(m int)) {
	workers := min(runtime.GOMAXPROCS(0), rows)
	if workers <= 1 {
		for m := 0; m < rows; m++ {
			f(m)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (rows + workers - 1) / workers
	for lo := 0; lo < rows; lo += chunk {
		hi := min(lo+chunk, rows)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := lo; m < hi; m++ {
				f(m)
			}
		}()
	}
	wg.Wait()
}

// TransposeRowMajor returns the [cols,rows] transpose of the row-major
// [rows,cols] matrix a (W_down [I,K] <-> [K,I] for the MN-major layout).
func TransposeRowMajor(a []float64, rows, cols int) []float64 {
	if rows < 0 || cols < 0 || len(a) != rows*cols {
		return nil
	}
	t := make([]float64, len(a))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = a[r*cols+c]
		}
	}
	return t
}

package baseline

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRowMajorGemmArgsAB runs the mapped arguments of every (transA,
// transB) through the column-major emulator and checks the row-major
// product op(A) @ op(B) comes out.
func TestRowMajorGemmArgsAB(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	M, N, K := 4, 6, 5
	for _, transA := range []bool{false, true} {
		for _, transB := range []bool{false, true} {
			A := make([]float64, M*K)
			B := make([]float64, N*K)
			for i := range A {
				A[i] = float64(r.IntN(9) - 4)
			}
			for i := range B {
				B[i] = float64(r.IntN(9) - 4)
			}
			want := make([]float64, M*N)
			for m := 0; m < M; m++ {
				for n := 0; n < N; n++ {
					for k := 0; k < K; k++ {
						amk := A[m*K+k] // [M,K]
						if transA {
							amk = A[k*M+m] // [K,M]
						}
						bkn := B[k*N+n] // [K,N]
						if transB {
							bkn = B[n*K+k] // [N,K]
						}
						want[m*N+n] += amk * bkn
					}
				}
			}
			g, err := rowMajorGemmArgsAB(transA, transB, M, N, K)
			if err != nil {
				t.Fatal(err)
			}
			if !g.SwapAB {
				t.Fatal("SwapAB not set")
			}
			got := make([]float64, M*N)
			colMajorGemmEx(g, B, A, got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("transA=%v transB=%v (-want +got):\n%s", transA, transB, diff)
			}
		}
	}
	if _, err := rowMajorGemmArgsAB(true, false, 0, 1, 1); err == nil {
		t.Error("M=0: want error")
	}
}

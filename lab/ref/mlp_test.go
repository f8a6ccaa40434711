package ref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func randSlice(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

// naiveGemm is the textbook triple loop over logical A [M,K] and B [K,N].
func naiveGemm(M, N, K int, a, b func(i, j int) float64) []float64 {
	c := make([]float64, M*N)
	for m := 0; m < M; m++ {
		for n := 0; n < N; n++ {
			var s float64
			for k := 0; k < K; k++ {
				s += a(m, k) * b(k, n)
			}
			c[m*N+n] = s
		}
	}
	return c
}

func TestGemmWorkedExample(t *testing.T) {
	t.Parallel()
	// A [2,3] = [[1,2,3],[4,5,6]], B logical [3,2] = [[7,8],[9,10],[11,12]]:
	// C = [[58,64],[139,154]].
	aKM := []float64{1, 2, 3, 4, 5, 6}    // [M,K]
	aMN := []float64{1, 4, 2, 5, 3, 6}    // [K,M]
	bKM := []float64{7, 9, 11, 8, 10, 12} // [N,K]
	bMN := []float64{7, 8, 9, 10, 11, 12} // [K,N]
	want := []float64{58, 64, 139, 154}
	for _, tc := range []struct {
		name   string
		a, b   []float64
		am, bm bool
	}{
		{"k/k", aKM, bKM, false, false},
		{"mn/k", aMN, bKM, true, false},
		{"k/mn", aKM, bMN, false, true},
		{"mn/mn", aMN, bMN, true, true},
	} {
		got := Gemm(GemmProblem{M: 2, N: 2, K: 3, A: tc.a, B: tc.b, AMNMajor: tc.am, BMNMajor: tc.bm})
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestGemmMajorsMatchNaive(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	const M, N, K = 37, 19, 23
	a := randSlice(r, M*K) // logical [M,K]
	b := randSlice(r, K*N) // logical [K,N]
	want := naiveGemm(M, N, K, func(m, k int) float64 { return a[m*K+k] }, func(k, n int) float64 { return b[k*N+n] })
	aT := TransposeRowMajor(a, M, K) // [K,M]
	bT := TransposeRowMajor(b, K, N) // [N,K]
	for _, tc := range []struct {
		name   string
		a, b   []float64
		am, bm bool
	}{
		{"k/k", a, bT, false, false},
		{"mn/k", aT, bT, true, false},
		{"k/mn", a, b, false, true},
		{"mn/mn", aT, b, true, true},
	} {
		got := Gemm(GemmProblem{M: M, N: N, K: K, A: tc.a, B: tc.b, AMNMajor: tc.am, BMNMajor: tc.bm})
		checkClose(t, "gemm "+tc.name, got, want, 1e-12)
	}
}

func TestGemmInvalid(t *testing.T) {
	t.Parallel()
	for _, p := range []GemmProblem{
		{M: 0, N: 1, K: 1},
		{M: 1, N: 1, K: 2, A: []float64{1, 2}, B: []float64{1}},
	} {
		if p.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", p)
		}
		if got := Gemm(p); got != nil {
			t.Errorf("%+v: Gemm = %v, want nil", p, got)
		}
	}
}

func TestSwiGLUMatchesDSwiGLU(t *testing.T) {
	t.Parallel()
	for _, g := range []float64{-30, -20, -1, 0, 0.5, 3, 20, 30} {
		for _, l := range []float64{-2, 0, 1.5} {
			_, _, want := DSwiGLU(1, l, g)
			if got := SwiGLU(l, g); math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) {
				t.Errorf("SwiGLU(%g, %g) = %.17g, want %.17g", l, g, got, want)
			}
		}
	}
	if got := SwiGLU(2, 0); got != 0 {
		t.Errorf("SwiGLU(2, 0) = %g, want 0", got)
	}
}

func TestFwdGateUp(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	const M, K, I = 9, 16, 5
	x := randSlice(r, M*K)
	w := randSlice(r, K*2*I) // logical [K,2I]
	left := naiveGemm(M, I, K, func(m, k int) float64 { return x[m*K+k] }, func(k, n int) float64 { return w[k*2*I+n] })
	gate := naiveGemm(M, I, K, func(m, k int) float64 { return x[m*K+k] }, func(k, n int) float64 { return w[k*2*I+I+n] })
	var wantDe, wantOut []float64
	for m := 0; m < M; m++ {
		wantDe = append(wantDe, left[m*I:(m+1)*I]...)
		wantDe = append(wantDe, gate[m*I:(m+1)*I]...)
		for i := 0; i < I; i++ {
			wantOut = append(wantOut, SwiGLU(left[m*I+i], gate[m*I+i]))
		}
	}
	for _, mn := range []bool{false, true} {
		p := FwdGateUpProblem{M: M, K: K, I: I, X: x, W: TransposeRowMajor(w, K, 2*I), WMNMajor: mn}
		if mn {
			p.W = w
		}
		res := FwdGateUp(p)
		checkClose(t, "de", res.De, wantDe, 1e-12)
		checkClose(t, "out", res.Out, wantOut, 1e-12)
	}
	if res := FwdGateUp(FwdGateUpProblem{M: 1, K: 8, I: 8, X: x[:8]}); res.De != nil || res.Out != nil {
		t.Error("invalid problem: want an empty result")
	}
}

func TestFwdDown(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const M, K, I = 7, 12, 10
	out := randSlice(r, M*I)
	wd := randSlice(r, I*K) // [I,K]
	res := randSlice(r, M*K)
	plain := naiveGemm(M, K, I, func(m, i int) float64 { return out[m*I+i] }, func(i, k int) float64 { return wd[i*K+k] })
	withRes := make([]float64, len(plain))
	for i := range plain {
		withRes[i] = plain[i] + res[i]
	}
	for _, ki := range []bool{false, true} {
		w := wd
		if ki {
			w = TransposeRowMajor(wd, I, K) // [K,I]
		}
		checkClose(t, "y", FwdDown(FwdDownProblem{M: M, K: K, I: I, Out: out, WDown: w, WDownKI: ki}), plain, 1e-12)
		checkClose(t, "y+res", FwdDown(FwdDownProblem{M: M, K: K, I: I, Out: out, WDown: w, WDownKI: ki, Residual: res}), withRes, 1e-12)
	}
	if FwdDown(FwdDownProblem{M: M, K: K, I: I, Out: out, WDown: wd, Residual: res[:3]}) != nil {
		t.Error("short residual: want nil")
	}
}

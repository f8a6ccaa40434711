package baseline

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestRowMajorGemmArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		transB  bool
		M, N, K int
		want    gemmArgs
		wantErr bool
	}{
		{"dout gemm W_down [I,K]", true, 16384, 4608, 768,
			gemmArgs{TransA: cublasOpT, TransB: cublasOpN, M: 4608, N: 16384, K: 768, LDA: 768, LDB: 768, LDC: 4608, SwapAB: true}, false},
		{"W_down [K,I]", false, 16384, 4608, 768,
			gemmArgs{TransA: cublasOpN, TransB: cublasOpN, M: 4608, N: 16384, K: 768, LDA: 4608, LDB: 768, LDC: 4608, SwapAB: true}, false},
		{"zero", true, 0, 1, 1, gemmArgs{}, true},
		{"too big", false, 1, 1 << 31, 1, gemmArgs{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rowMajorGemmArgs(tt.transB, tt.M, tt.N, tt.K)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// colMajorGemmEx emulates cublasGemmEx's column-major semantics:
// C[i + j*ldc] = sum_p opA(i,p) * opB(p,j).
func colMajorGemmEx(g gemmArgs, a, b, c []float64) {
	at := func(buf []float64, trans int32, ld int32, r, col int) float64 {
		if trans == cublasOpT {
			return buf[col+r*int(ld)]
		}
		return buf[r+col*int(ld)]
	}
	for i := 0; i < int(g.M); i++ {
		for j := 0; j < int(g.N); j++ {
			var s float64
			for p := 0; p < int(g.K); p++ {
				s += at(a, g.TransA, g.LDA, i, p) * at(b, g.TransB, g.LDB, p, j)
			}
			c[i+j*int(g.LDC)] = s
		}
	}
}

// TestRowMajorMappingComputesTheProduct runs the mapped arguments through a
// column-major GEMM emulator and checks the row-major product comes out.
func TestRowMajorMappingComputesTheProduct(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, transB := range []bool{true, false} {
		M, N, K := 5, 7, 3
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
					bkn := B[k*N+n] // [K,N]
					if transB {
						bkn = B[n*K+k] // [N,K]
					}
					want[m*N+n] += A[m*K+k] * bkn
				}
			}
		}
		g, err := rowMajorGemmArgs(transB, M, N, K)
		if err != nil {
			t.Fatal(err)
		}
		first, second := A, B
		if g.SwapAB {
			first, second = B, A
		}
		got := make([]float64, M*N)
		colMajorGemmEx(g, first, second, got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("transB=%v (-want +got):\n%s", transB, diff)
		}
	}
}

func TestCudaDataType(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		dt      tiling.DType
		want    int32
		wantErr bool
	}{{tiling.BF16, 14, false}, {tiling.FP16, 2, false}, {"fp8", 0, true}} {
		got, err := cudaDataType(tt.dt)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("cudaDataType(%q) = %d, %v", tt.dt, got, err)
		}
	}
}

func TestCuBLASCandidates(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"SWIGEN_CUBLAS":   "/x/libcublas.so.13",
		"CUDA_HOME":       "/cuda",
		"LD_LIBRARY_PATH": "/ld1::/ld2",
	}
	glob := func(pat string) ([]string, error) {
		if pat == filepath.Join("/opt/*/.venv/lib/python3*/site-packages", "nvidia/cu13/lib") {
			return []string{"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib"}, nil
		}
		return nil, nil
	}
	got := cublasCandidates(func(k string) string { return env[k] }, glob)
	idx := func(p string) int {
		for i, g := range got {
			if g == p {
				return i
			}
		}
		t.Fatalf("%s not among candidates %v", p, got)
		return -1
	}
	order := []string{
		"/x/libcublas.so.13",
		"/cuda/lib64/libcublas.so.13",
		"/cuda/lib64/libcublas.so.12",
		"/usr/local/cuda/lib64/libcublas.so.13",
		"/ld1/libcublas.so.13",
		"/ld2/libcublas.so.13",
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
		"libcublas.so.13",
		"libcublas.so",
	}
	for i := 1; i < len(order); i++ {
		if idx(order[i-1]) >= idx(order[i]) {
			t.Errorf("%s should come before %s", order[i-1], order[i])
		}
	}
	seen := map[string]bool{}
	for _, g := range got {
		if seen[g] {
			t.Errorf("duplicate candidate %s", g)
		}
		seen[g] = true
	}
}

func TestOpenCuBLASNilContext(t *testing.T) {
	t.Parallel()
	if _, err := OpenCuBLAS(nil); err == nil {
		t.Error("want error")
	}
	var b *CuBLAS
	if err := b.GemmRowMajor(tiling.BF16, true, 1, 1, 1, 0, 0, 0, nil); err == nil {
		t.Error("nil handle: want error")
	}
	if !errors.Is(errors.Join(ErrNoCuBLAS), ErrNoCuBLAS) {
		t.Error("sentinel")
	}
}

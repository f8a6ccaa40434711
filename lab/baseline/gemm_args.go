// Package baseline is the unfused baseline that swigen's fused kernels are
// measured against, as in the seed: cuBLAS for the dout GEMM (loaded at run
// time through purego) followed by one vectorized elementwise dSwiGLU kernel.
package baseline

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// cuBLAS enum values, read from cublas_api.h and library_types.h of CUDA
// 13.0 (nvidia-cublas 13.0.2.14 and the cu13 runtime headers).
const (
	cublasOpN           = 0  // CUBLAS_OP_N
	cublasOpT           = 1  // CUBLAS_OP_T
	cublasComputeF32    = 68 // CUBLAS_COMPUTE_32F
	cublasGemmDefault   = -1 // CUBLAS_GEMM_DEFAULT
	cublasDefaultMath   = 0  // CUBLAS_DEFAULT_MATH
	cublasStatusSuccess = 0
)

// gemmArgs are the arguments of one cublasGemmEx call (column-major
// semantics): C[m,n] = op(A)[m,k] @ op(B)[k,n]. SwapAB means the caller's
// row-major B buffer is passed as cuBLAS's A and the row-major A buffer as
// cuBLAS's B.
type gemmArgs struct {
	TransA, TransB int32
	M, N, K        int32
	LDA, LDB, LDC  int32
	SwapAB         bool
}

// rowMajorGemmArgs maps the row-major product C[M,N] = A[M,K] @ op(B) onto
// column-major cuBLAS.
//
// A row-major [r,c] buffer read column-major is the [c,r] matrix that is its
// transpose, with leading dimension c. So the row-major C[M,N] buffer is the
// column-major C^T [N,M] (ldc = N), and we ask cuBLAS for
//
//	C^T = op(B)^T @ A^T    (m = N, n = M, k = K)
//
// with cuBLAS's A operand the B buffer and its B operand the A buffer:
//   - A buffer [M,K] row-major is column-major A^T [K,M], ld K: exactly the
//     [k,n] operand wanted, so transb = N, ldb = K.
//   - transB (B buffer [N,K] row-major, C = A @ B^T): the buffer is
//     column-major B^T [K,N], ld K, and op(B)^T = B, so transa = T, lda = K.
//   - !transB (B buffer [K,N] row-major, C = A @ B): the buffer is
//     column-major B^T [N,K], ld N, which is op(B)^T as is: transa = N,
//     lda = N.
//
// The seed's dout GEMM (dout = dy @ W_down^T, W_down [I,K]) is transB with
// N = I; W_down stored MN-major [K,I] is !transB.
func rowMajorGemmArgs(transB bool, M, N, K int) (gemmArgs, error) {
	const maxInt32 = 1<<31 - 1
	if M <= 0 || N <= 0 || K <= 0 || M > maxInt32 || N > maxInt32 || K > maxInt32 {
		return gemmArgs{}, fmt.Errorf("baseline: gemm M=%d N=%d K=%d: sizes must be in [1, 2^31)", M, N, K)
	}
	a := gemmArgs{TransA: cublasOpN, TransB: cublasOpN, M: int32(N), N: int32(M), K: int32(K),
		LDA: int32(N), LDB: int32(K), LDC: int32(N), SwapAB: true}
	if transB {
		a.TransA, a.LDA = cublasOpT, int32(K)
	}
	return a, nil
}

// cudaDataType returns the cudaDataType_t of an operand type
// (tiling.DTypeSpec.CUDADataType).
func cudaDataType(dt tiling.DType) (int32, error) {
	s, err := dt.Spec()
	if err != nil {
		return 0, fmt.Errorf("baseline: %w", err)
	}
	return s.CUDADataType, nil
}

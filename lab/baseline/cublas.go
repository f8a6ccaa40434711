package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// ErrNoCuBLAS is wrapped by OpenCuBLAS when no cuBLAS library loads.
var ErrNoCuBLAS = errors.New("baseline: cuBLAS not found")

// CuBLAS is a cuBLAS handle bound to one context. Its calls run on the
// context's locked thread, where the (primary) context is current, which
// cuBLAS's runtime then uses.
type CuBLAS struct {
	ctx  *cu.Context
	lib  uintptr
	path string

	create, destroy, setStream, gemmEx, setMathMode, getVersion uintptr

	// Heap cells whose addresses are passed to C: they must not live on a
	// goroutine stack, which may move.
	handle      uintptr
	alpha, beta float32
	version     int32
}

// OpenCuBLAS loads cuBLAS (see cublasCandidates for the search order),
// creates a handle in ctx and sets the default math mode (tensor cores for
// 16-bit inputs, fp32 accumulation).
func OpenCuBLAS(ctx *cu.Context) (*CuBLAS, error) {
	if ctx == nil {
		return nil, errors.New("baseline: open cublas: nil context")
	}
	b := &CuBLAS{ctx: ctx}
	err := ctx.Do(func() error {
		if err := b.load(); err != nil {
			return err
		}
		if err := b.call("cublasCreate_v2", b.create, uintptr(unsafe.Pointer(&b.handle))); err != nil {
			return err
		}
		if err := b.call("cublasSetMathMode", b.setMathMode, b.handle, cublasDefaultMath); err != nil {
			return err
		}
		return b.call("cublasGetVersion_v2", b.getVersion, b.handle, uintptr(unsafe.Pointer(&b.version)))
	})
	if err != nil {
		if b.handle != 0 {
			_ = b.Close()
		}
		return nil, fmt.Errorf("baseline: open cublas: %w", err)
	}
	return b, nil
}

func (b *CuBLAS) load() error {
	var failed []string
	missing := 0
	for _, p := range cublasCandidates(os.Getenv, filepath.Glob) {
		if filepath.IsAbs(p) {
			if _, err := os.Stat(p); err != nil {
				missing++
				continue
			}
		}
		h, err := dlopenLocked(p)
		if err != nil || h == 0 {
			if filepath.IsAbs(p) {
				failed = append(failed, fmt.Sprintf("%s (%v)", p, err))
			}
			continue
		}
		b.lib, b.path = h, p
		break
	}
	if b.lib == 0 {
		return fmt.Errorf("%w: no loadable libcublas (%d candidate paths absent; failed: [%s]; sonames %s via the loader; set SWIGEN_CUBLAS to the library file)",
			ErrNoCuBLAS, missing, strings.Join(failed, "; "), strings.Join(cublasNames, ", "))
	}
	for _, s := range []struct {
		name string
		dst  *uintptr
	}{
		{"cublasCreate_v2", &b.create},
		{"cublasDestroy_v2", &b.destroy},
		{"cublasSetStream_v2", &b.setStream},
		{"cublasGemmEx", &b.gemmEx},
		{"cublasSetMathMode", &b.setMathMode},
		{"cublasGetVersion_v2", &b.getVersion},
	} {
		p, err := purego.Dlsym(b.lib, s.name)
		if err != nil || p == 0 {
			return fmt.Errorf("%w: %s lacks %s: %v", ErrNoCuBLAS, b.path, s.name, err)
		}
		*s.dst = p
	}
	return nil
}

// dlopenLocked dlopens p on one locked OS thread: purego reads the
// thread-local dlerror in a second call, which could otherwise run on
// another thread and report an empty reason.
func dlopenLocked(p string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

// call invokes a cuBLAS function returning cublasStatus_t. It must run on
// the context's thread.
func (b *CuBLAS) call(name string, fn uintptr, args ...uintptr) error {
	r, _, _ := purego.SyscallN(fn, args...)
	runtime.KeepAlive(b)
	if st := int32(r); st != cublasStatusSuccess {
		return fmt.Errorf("%s: %s (%d)", name, b.status(st), st)
	}
	return nil
}

// cublasStatusNames are the cublasStatus_t names of cublas_api.h (13.0).
var cublasStatusNames = map[int32]string{
	1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
	7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

func (b *CuBLAS) status(st int32) string {
	if n, ok := cublasStatusNames[st]; ok {
		return n
	}
	return "CUBLAS_STATUS_UNKNOWN"
}

// Path is the library file that was loaded.
func (b *CuBLAS) Path() string { return b.path }

// Version is cublasGetVersion's value (e.g. 130002 for 13.0.2).
func (b *CuBLAS) Version() int { return int(b.version) }

// Close destroys the handle. The library stays loaded (dlclose under a live
// CUDA runtime is not worth the risk).
func (b *CuBLAS) Close() error {
	if b == nil || b.handle == 0 {
		return nil
	}
	err := b.ctx.Do(func() error { return b.call("cublasDestroy_v2", b.destroy, b.handle) })
	b.handle = 0
	if err != nil {
		return fmt.Errorf("baseline: close cublas: %w", err)
	}
	return nil
}

// GemmRowMajor computes C[M,N] = A[M,K] @ op(B) with every matrix row-major
// and of type dtype (fp32 accumulation, C written in dtype): B is [N,K] and
// op(B) = B^T when transB (the dout GEMM, B = W_down [I,K]), else B is [K,N].
// It is asynchronous on stream (nil: the default stream).
func (b *CuBLAS) GemmRowMajor(dtype tiling.DType, transB bool, M, N, K int, A, B, C cu.DevicePtr, stream *cu.Stream) error {
	if b == nil || b.handle == 0 {
		return errors.New("baseline: gemm: cublas handle closed")
	}
	dt, err := cudaDataType(dtype)
	if err != nil {
		return err
	}
	g, err := rowMajorGemmArgs(transB, M, N, K)
	if err != nil {
		return err
	}
	first, second := A, B
	if g.SwapAB {
		first, second = B, A
	}
	err = b.ctx.Do(func() error {
		if err := b.call("cublasSetStream_v2", b.setStream, b.handle, stream.Handle()); err != nil {
			return err
		}
		b.alpha, b.beta = 1, 0
		algo := int32(cublasGemmDefault) // -1: the callee reads the low 32 bits
		return b.call("cublasGemmEx", b.gemmEx, b.handle,
			uintptr(g.TransA), uintptr(g.TransB),
			uintptr(g.M), uintptr(g.N), uintptr(g.K),
			uintptr(unsafe.Pointer(&b.alpha)),
			uintptr(first), uintptr(dt), uintptr(g.LDA),
			uintptr(second), uintptr(dt), uintptr(g.LDB),
			uintptr(unsafe.Pointer(&b.beta)),
			uintptr(C), uintptr(dt), uintptr(g.LDC),
			uintptr(cublasComputeF32), uintptr(uint32(algo)))
	})
	if err != nil {
		return fmt.Errorf("baseline: gemm %s M=%d N=%d K=%d transB=%v: %w", dtype, M, N, K, transB, err)
	}
	return nil
}

// GemmRowMajorAB is GemmRowMajor with the A operand transposable too:
// C[M,N] = op(A) @ op(B), all row-major; A is [K,M] and op(A) = A^T when
// transA (the weight gradients dW_down = out^T @ dy, dW = grad_de^T @ x),
// else [M,K]; B as in GemmRowMajor. Asynchronous on stream.
func (b *CuBLAS) GemmRowMajorAB(dtype tiling.DType, transA, transB bool, M, N, K int, A, B, C cu.DevicePtr, stream *cu.Stream) error {
	if !transA {
		return b.GemmRowMajor(dtype, transB, M, N, K, A, B, C, stream)
	}
	if b == nil || b.handle == 0 {
		return errors.New("baseline: gemm: cublas handle closed")
	}
	dt, err := cudaDataType(dtype)
	if err != nil {
		return err
	}
	g, err := rowMajorGemmArgsAB(transA, transB, M, N, K)
	if err != nil {
		return err
	}
	err = b.ctx.Do(func() error {
		if err := b.call("cublasSetStream_v2", b.setStream, b.handle, stream.Handle()); err != nil {
			return err
		}
		b.alpha, b.beta = 1, 0
		algo := int32(cublasGemmDefault)
		return b.call("cublasGemmEx", b.gemmEx, b.handle,
			uintptr(g.TransA), uintptr(g.TransB),
			uintptr(g.M), uintptr(g.N), uintptr(g.K),
			uintptr(unsafe.Pointer(&b.alpha)),
			uintptr(B), uintptr(dt), uintptr(g.LDA),
			uintptr(A), uintptr(dt), uintptr(g.LDB),
			uintptr(unsafe.Pointer(&b.beta)),
			uintptr(C), uintptr(dt), uintptr(g.LDC),
			uintptr(cublasComputeF32), uintptr(uint32(algo)))
	})
	if err != nil {
		return fmt.Errorf("baseline: gemm %s M=%d N=%d K=%d transA=%v transB=%v: %w", dtype, M, N, K, transA, transB, err)
	}
	return nil
}

// rowMajorGemmArgsAB extends rowMajorGemmArgs to a transposed A. cuBLAS's B
// operand is the row-major A buffer: [M,K] reads column-major as A^T [K,M]
// with ld K (op N); [K,M] (transA) reads as A [M,K] with ld M, so op T
// turns it into the [K,M] operand wanted. SwapAB is always set.
func rowMajorGemmArgsAB(transA, transB bool, M, N, K int) (gemmArgs, error) {
	g, err := rowMajorGemmArgs(transB, M, N, K)
	if err == nil && transA {
		g.TransB, g.LDB = cublasOpT, int32(M)
	}
	return g, err
}

// swigen naive GPU references (lab/ref/naive.cu): one kernel per
// kernel kind, gemm, fwd_gateup, fwd_down and bwd_dswiglu, each for bf16
// and fp16.
//
// Deliberately simple and independent of the generated kernels: one thread
// per output element, float64 accumulation over K straight from global
// memory (fma in double; no shared memory, no tensor cores), the SwiGLU
// math in float64 with exp (not the ex2.approx path of the fast kernels),
// and 16-bit inputs widened to float by bit manipulation (not the 16-bit
// cvt), then exactly to double. Self-contained: no #include, so it builds
// with nvcc or NVRTC alike. All tensors are row-major; inputs are 16-bit
// (bf16 or fp16), and every output is float64, unrounded (8 bytes per
// element): a kernel's 16-bit output is judged against values as exact as
// the CPU float64 reference's (they differ in the last bits, from the
// order of summation and exp), so the error reported is the kernel's own,
// which a reference rounded to 16 bits like the kernel would mostly hide.
//
// gemm:        C[M,N] = A @ B  float64
//              A [M,K] (a_mn = 0) or [K,M] (a_mn = 1)
//              B [N,K] (b_mn = 0) or [K,N] (b_mn = 1)
//   launch:    grid (ceil(N/256), min(M,65535), 1)
//
// fwd_gateup:  de = x @ W = [left | gate]  [M,2I] float64; x [M,K]
//              W [2I,K] (w_mn = 0: left rows, then gate rows) or [K,2I] (w_mn = 1)
//              out = left*gate*sigmoid(gate)  [M,I] float64, from the unrounded left and gate
//              de is written only when its pointer is not null (training)
//   launch:    grid (ceil(I/256), min(M,65535), 1)
//
// fwd_down:    y = out @ W_down (+ residual)  [M,K] float64; out [M,I]
//              W_down [I,K] (w_ki = 0) or [K,I] (w_ki = 1); residual [M,K] 16-bit or null,
//              added to the float64 sum; y must not overlap residual
//   launch:    grid (ceil(K/256), min(M,65535), 1)
//
// bwd_dswiglu: dout    = dy @ W_down^T     dy [M,K]; W_down [I,K] (w_mn = 0) or [K,I] (w_mn = 1)
//              de      = [left | gate]     [M,2I] 16-bit
//              grad_de = [dout*gate*s | dout*left*s*(1+gate*(1-s))]   [M,2I] float64, s = sigmoid(gate)
//              out     = left*gate*s       [M,I] float64, skipped when out is null
//   launch:    grid (ceil(I/256), min(M,65535), 1)
//
// Every kernel runs blocks of (256,1,1); x covers the output's columns,
// y its rows, each block striding over rows past gridDim.y.

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

static __device__ __forceinline__ float bits_f32(u32 u) {
    float f;
    asm("mov.b32 %0, %1;" : "=f"(f) : "r"(u));
    return f;
}

static __device__ __forceinline__ float bf16_to_f32(u16 h) { return bits_f32((u32)h << 16); }

static __device__ __forceinline__ float fp16_to_f32(u16 h) {
    u32 sign = (u32)(h & 0x8000u) << 16;
    u32 exp = (h >> 10) & 0x1fu;
    u32 mant = h & 0x3ffu;
    if (exp == 0x1fu) return bits_f32(sign | 0x7f800000u | (mant << 13));
    if (exp != 0) return bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
    float v = (float)mant * (1.0f / 16777216.0f);  // subnormal: mant * 2^-24, exact
    return sign ? -v : v;
}

// Element i of a 16-bit tensor as a double: both widenings, 16 to 32 bits
// and 32 to 64, are exact.
template <bool kBF16>
static __device__ __forceinline__ double ld16(const u16* p, u64 i) {
    return (double)(kBF16 ? bf16_to_f32(p[i]) : fp16_to_f32(p[i]));
}

// The float64 dot product of row m of A and column n of B over K, both
// read straight from global memory in either major (see gemm above).
template <bool kBF16>
static __device__ __forceinline__ double naive_dot(const u16* __restrict__ a, const u16* __restrict__ b,
                                                   int m, int n, int M, int N, int K, int a_mn, int b_mn) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k) {
        const u64 ai = a_mn ? (u64)k * M + m : (u64)m * K + k;
        const u64 bi = b_mn ? (u64)k * N + n : (u64)n * K + k;
        acc = fma(ld16<kBF16>(a, ai), ld16<kBF16>(b, bi), acc);
    }
    return acc;
}

// 1/(1+exp(-x)) in float64. exp(-x) overflows to +Inf for x below about
// -709, which makes the result exactly 0, as on the CPU.
static __device__ __forceinline__ double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// C = A @ B (+ R): R [M,N] is 16-bit, added to the float64 sum.
template <bool kBF16>
static __device__ void naive_gemm(const u16* __restrict__ a, const u16* __restrict__ b, const u16* __restrict__ r,
                                  double* __restrict__ c, int M, int N, int K, int a_mn, int b_mn) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 ci = (u64)m * N + n;
        double acc = naive_dot<kBF16>(a, b, m, n, M, N, K, a_mn, b_mn);
        if (r) acc += ld16<kBF16>(r, ci);
        c[ci] = acc;
    }
}

// One thread per (m, i): the left column i and the gate column I+i of
// x @ W, then out from that unrounded pair.
template <bool kBF16>
static __device__ void naive_fwd_gateup(const u16* __restrict__ x, const u16* __restrict__ w,
                                        double* __restrict__ de, double* __restrict__ out, int M, int K, int I,
                                        int w_mn) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= I) return;
    const int N = 2 * I;  // the host keeps 2I below 2^31
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 row = (u64)m;
        const double left = naive_dot<kBF16>(x, w, m, i, M, N, K, 0, w_mn);
        const double gate = naive_dot<kBF16>(x, w, m, I + i, M, N, K, 0, w_mn);
        if (de) {
            de[row * N + i] = left;
            de[row * N + I + i] = gate;
        }
        out[row * I + i] = left * gate * sigmoid(gate);
    }
}

template <bool kBF16>
static __device__ void naive_bwd_dswiglu(const u16* __restrict__ dy, const u16* __restrict__ w,
                                         const u16* __restrict__ de, double* __restrict__ grad_de,
                                         double* __restrict__ out, int M, int K, int I, int w_mn) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= I) return;
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 row = (u64)m;
        double acc = 0.0;
        for (int k = 0; k < K; ++k) {
            const u64 wi = w_mn ? (u64)k * I + i : (u64)i * K + k;
            acc = fma(ld16<kBF16>(dy, row * K + k), ld16<kBF16>(w, wi), acc);
        }
        const u64 de_row = row * 2u * (u64)I;
        const double left = ld16<kBF16>(de, de_row + i);
        const double gate = ld16<kBF16>(de, de_row + I + i);
        const double s = sigmoid(gate);
        const double one_minus_s = sigmoid(-gate);  // not 1-s: full precision for large gates
        grad_de[de_row + i] = acc * gate * s;
        grad_de[de_row + I + i] = acc * left * s * (1.0 + gate * one_minus_s);
        if (out) out[row * I + i] = left * gate * s;
    }
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_bwd_dswiglu_bf16(const u16* dy, const u16* w, const u16* de, double* grad_de, double* out,
                            int M, int K, int I, int w_mn) {
    naive_bwd_dswiglu<true>(dy, w, de, grad_de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_bwd_dswiglu_fp16(const u16* dy, const u16* w, const u16* de, double* grad_de, double* out,
                            int M, int K, int I, int w_mn) {
    naive_bwd_dswiglu<false>(dy, w, de, grad_de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_gemm_bf16(const u16* a, const u16* b, double* c, int M, int N, int K, int a_mn, int b_mn) {
    naive_gemm<true>(a, b, nullptr, c, M, N, K, a_mn, b_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_gemm_fp16(const u16* a, const u16* b, double* c, int M, int N, int K, int a_mn, int b_mn) {
    naive_gemm<false>(a, b, nullptr, c, M, N, K, a_mn, b_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_gateup_bf16(const u16* x, const u16* w, double* de, double* out, int M, int K, int I, int w_mn) {
    naive_fwd_gateup<true>(x, w, de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_gateup_fp16(const u16* x, const u16* w, double* de, double* out, int M, int K, int I, int w_mn) {
    naive_fwd_gateup<false>(x, w, de, out, M, K, I, w_mn);
}

// fwd_down is the gemm M x N=K x K=I with A = out (K-major) and B = W_down:
// stored [I,K] it is B [K_gemm, N], MN-major; stored [K,I], K-major.
extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_down_bf16(const u16* out, const u16* w, const u16* residual, double* y, int M, int K, int I,
                         int w_ki) {
    naive_gemm<true>(out, w, residual, y, M, K, I, 0, !w_ki);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_down_fp16(const u16* out, const u16* w, const u16* residual, double* y, int M, int K, int I,
                         int w_ki) {
    naive_gemm<false>(out, w, residual, y, M, K, I, 0, !w_ki);
}

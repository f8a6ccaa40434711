// swigen naive GPU references (runtime/ref/naive.cu): one kernel per
// kernel kind, gemm, fwd_gateup, fwd_down and bwd_dswiglu, each for bf16
// and fp16.
//
// Deliberately simple and independent of the generated kernels: one thread
// per output element, fp32 accumulation over K straight from global memory
// (no shared memory, no tensor cores), the SwiGLU math in fp32 with expf
// (not the ex2.approx path of the fast kernels), and 16-bit conversions done
// by bit manipulation (not cvt). Self-contained: no #include, so it builds
// with nvcc or NVRTC alike. All tensors are row-major; a 16-bit output is
// rounded once, to nearest even, from its fp32 value.
//
// gemm:        C[M,N] = A @ B
//              A [M,K] (a_mn = 0) or [K,M] (a_mn = 1)
//              B [N,K] (b_mn = 0) or [K,N] (b_mn = 1)
//   launch:    grid (ceil(N/256), min(M,65535), 1)
//
// fwd_gateup:  de = x @ W = [left | gate]  [M,2I]; x [M,K]
//              W [2I,K] (w_mn = 0: left rows, then gate rows) or [K,2I] (w_mn = 1)
//              out = left*gate*sigmoid(gate)  [M,I], from the fp32 left and gate
//              de is written only when its pointer is not null (training)
//   launch:    grid (ceil(I/256), min(M,65535), 1)
//
// fwd_down:    y = out @ W_down (+ residual)  [M,K]; out [M,I]
//              W_down [I,K] (w_ki = 0) or [K,I] (w_ki = 1); residual [M,K] or null,
//              added to the fp32 sum before the one rounding
//   launch:    grid (ceil(K/256), min(M,65535), 1)
//
// bwd_dswiglu: dout    = dy @ W_down^T     dy [M,K]; W_down [I,K] (w_mn = 0) or [K,I] (w_mn = 1)
//              de      = [left | gate]     [M,2I]
//              grad_de = [dout*gate*s | dout*left*s*(1+gate*(1-s))]   [M,2I], s = sigmoid(gate)
//              out     = left*gate*s       [M,I], skipped when out is null
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

static __device__ __forceinline__ u32 f32_bits(float f) {
    u32 u;
    asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
    return u;
}

static __device__ __forceinline__ float bf16_to_f32(u16 h) { return bits_f32((u32)h << 16); }

// Round to nearest even; NaN stays a quiet NaN with its sign.
static __device__ __forceinline__ u16 f32_to_bf16(float f) {
    u32 u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (u16)(u >> 16);
}

static __device__ __forceinline__ float fp16_to_f32(u16 h) {
    u32 sign = (u32)(h & 0x8000u) << 16;
    u32 exp = (h >> 10) & 0x1fu;
    u32 mant = h & 0x3ffu;
    if (exp == 0x1fu) return bits_f32(sign | 0x7f800000u | (mant << 13));
    if (exp != 0) return bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
    float v = (float)mant * (1.0f / 16777216.0f);  // subnormal: mant * 2^-24, exact
    return sign ? -v : v;
}

// Round to nearest even with subnormals and overflow to Inf.
static __device__ __forceinline__ u16 f32_to_fp16(float f) {
    u32 b = f32_bits(f);
    u16 sign = (u16)((b >> 16) & 0x8000u);
    u32 a = b & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;
    if (a >= 0x477ff000u) return sign | 0x7c00u;
    if (a >= 0x38800000u) {
        u32 v = a - (112u << 23);
        return sign | (u16)((v + 0xfffu + ((v >> 13) & 1u)) >> 13);
    }
    if (a < 0x33000000u) return sign;
    u32 shift = 126u - (a >> 23);
    u32 mant = (a & 0x7fffffu) | 0x800000u;
    u32 q = mant >> shift;
    u32 rem = mant & ((1u << shift) - 1u);
    u32 half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return sign | (u16)q;
}

template <bool kBF16>
static __device__ __forceinline__ float ld16(const u16* p, u64 i) {
    return kBF16 ? bf16_to_f32(p[i]) : fp16_to_f32(p[i]);
}

template <bool kBF16>
static __device__ __forceinline__ u16 to16(float f) {
    return kBF16 ? f32_to_bf16(f) : f32_to_fp16(f);
}

// The fp32 dot product of row m of A and column n of B over K, both read
// straight from global memory in either major (see gemm above).
template <bool kBF16>
static __device__ __forceinline__ float naive_dot(const u16* __restrict__ a, const u16* __restrict__ b,
                                                  int m, int n, int M, int N, int K, int a_mn, int b_mn) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        const u64 ai = a_mn ? (u64)k * M + m : (u64)m * K + k;
        const u64 bi = b_mn ? (u64)k * N + n : (u64)n * K + k;
        acc = fmaf(ld16<kBF16>(a, ai), ld16<kBF16>(b, bi), acc);
    }
    return acc;
}

// C = A @ B (+ R): R [M,N] is added in fp32 before the one rounding. R and
// C are not __restrict__: each element of R is read before the same element
// of C is written, so y = y + residual in place stays correct.
template <bool kBF16>
static __device__ void naive_gemm(const u16* __restrict__ a, const u16* __restrict__ b, const u16* r, u16* c,
                                  int M, int N, int K, int a_mn, int b_mn) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 ci = (u64)m * N + n;
        float acc = naive_dot<kBF16>(a, b, m, n, M, N, K, a_mn, b_mn);
        if (r) acc += ld16<kBF16>(r, ci);
        c[ci] = to16<kBF16>(acc);
    }
}

// One thread per (m, i): the left column i and the gate column I+i of
// x @ W, then out from the unrounded fp32 pair.
template <bool kBF16>
static __device__ void naive_fwd_gateup(const u16* __restrict__ x, const u16* __restrict__ w,
                                        u16* __restrict__ de, u16* __restrict__ out, int M, int K, int I, int w_mn) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= I) return;
    const int N = 2 * I;  // the host keeps 2I below 2^31
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 row = (u64)m;
        const float left = naive_dot<kBF16>(x, w, m, i, M, N, K, 0, w_mn);
        const float gate = naive_dot<kBF16>(x, w, m, I + i, M, N, K, 0, w_mn);
        if (de) {
            de[row * N + i] = to16<kBF16>(left);
            de[row * N + I + i] = to16<kBF16>(gate);
        }
        // expf(-gate) overflows to +Inf for very negative gates, which
        // makes s exactly 0 and out 0, as in float64.
        const float s = 1.0f / (1.0f + expf(-gate));
        out[row * I + i] = to16<kBF16>(left * gate * s);
    }
}

template <bool kBF16>
static __device__ void naive_bwd_dswiglu(const u16* __restrict__ dy, const u16* __restrict__ w,
                                         const u16* __restrict__ de, u16* __restrict__ grad_de,
                                         u16* __restrict__ out, int M, int K, int I, int w_mn) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= I) return;
    for (int m = blockIdx.y; m < M; m += gridDim.y) {
        const u64 row = (u64)m;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            const u64 wi = w_mn ? (u64)k * I + i : (u64)i * K + k;
            acc = fmaf(ld16<kBF16>(dy, row * K + k), ld16<kBF16>(w, wi), acc);
        }
        const u64 de_row = row * 2u * (u64)I;
        const float left = ld16<kBF16>(de, de_row + i);
        const float gate = ld16<kBF16>(de, de_row + I + i);
        const float s = 1.0f / (1.0f + expf(-gate));
        const float one_minus_s = 1.0f / (1.0f + expf(gate));  // full precision for large gates
        grad_de[de_row + i] = to16<kBF16>(acc * gate * s);
        grad_de[de_row + I + i] = to16<kBF16>(acc * left * s * (1.0f + gate * one_minus_s));
        if (out) out[row * I + i] = to16<kBF16>(left * gate * s);
    }
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_bwd_dswiglu_bf16(const u16* dy, const u16* w, const u16* de, u16* grad_de, u16* out,
                            int M, int K, int I, int w_mn) {
    naive_bwd_dswiglu<true>(dy, w, de, grad_de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_bwd_dswiglu_fp16(const u16* dy, const u16* w, const u16* de, u16* grad_de, u16* out,
                            int M, int K, int I, int w_mn) {
    naive_bwd_dswiglu<false>(dy, w, de, grad_de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_gemm_bf16(const u16* a, const u16* b, u16* c, int M, int N, int K, int a_mn, int b_mn) {
    naive_gemm<true>(a, b, nullptr, c, M, N, K, a_mn, b_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_gemm_fp16(const u16* a, const u16* b, u16* c, int M, int N, int K, int a_mn, int b_mn) {
    naive_gemm<false>(a, b, nullptr, c, M, N, K, a_mn, b_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_gateup_bf16(const u16* x, const u16* w, u16* de, u16* out, int M, int K, int I, int w_mn) {
    naive_fwd_gateup<true>(x, w, de, out, M, K, I, w_mn);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_gateup_fp16(const u16* x, const u16* w, u16* de, u16* out, int M, int K, int I, int w_mn) {
    naive_fwd_gateup<false>(x, w, de, out, M, K, I, w_mn);
}

// fwd_down is the gemm M x N=K x K=I with A = out (K-major) and B = W_down:
// stored [I,K] it is B [K_gemm, N], MN-major; stored [K,I], K-major.
extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_down_bf16(const u16* out, const u16* w, const u16* residual, u16* y, int M, int K, int I, int w_ki) {
    naive_gemm<true>(out, w, residual, y, M, K, I, 0, !w_ki);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_ref_fwd_down_fp16(const u16* out, const u16* w, const u16* residual, u16* y, int M, int K, int I, int w_ki) {
    naive_gemm<false>(out, w, residual, y, M, K, I, 0, !w_ki);
}

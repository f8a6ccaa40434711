// swigen naive GPU reference for bwd_dswiglu (runtime/ref/naive_bwd.cu).
//
// Deliberately simple and independent of the generated kernels: one thread
// per dout element, fp32 accumulation over K straight from global memory,
// then the dSwiGLU math in fp32 with expf (not the ex2.approx path of the
// fast kernels), and 16-bit conversions done by bit manipulation (not cvt).
// Self-contained: no #include, so it builds with nvcc or NVRTC alike.
//
//   dout    = dy @ W_down^T     dy [M,K]; W_down [I,K] (w_mn = 0) or [K,I] (w_mn = 1)
//   de      = [left | gate]     [M,2I]
//   grad_de = [dout*gate*s | dout*left*s*(1+gate*(1-s))]   [M,2I], s = sigmoid(gate)
//   out     = left*gate*s       [M,I], skipped when out is null
//
// Launch: block (256,1,1), grid (ceil(I/256), min(M,65535), 1).

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

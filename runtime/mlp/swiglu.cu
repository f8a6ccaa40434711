// swigen MLP baseline: the forward SwiGLU as one standalone elementwise
// kernel (runtime/mlp/swiglu.cu). With a cuBLAS GEMM for de = x @ W it is
// the unfused baseline of the fwd_gateup segment.
//
//   reads   de = [left | gate] [M,2I]
//   writes  out = left * gate * sigmoid(gate) [M,I]
//
// Two entry points per dtype: *_vec8 moves 8 x 16-bit values (16 bytes) per
// load and store and needs I % 8 == 0 and 16-byte aligned bases (every row
// of left, gate and out then starts 16-byte aligned); *_scalar takes any I.
// Both are grid-stride loops; fp32 math, sigmoid via ex2.approx and
// rcp.approx like the fused epilogues. Self-contained: no #include.

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

struct alignas(16) Pack8 {
    u32 h[4];  // 8 packed 16-bit values; element 2j is the low half of h[j]
};

static __device__ __forceinline__ float silu_times(float left, float gate) {
    float e, r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(-gate * 1.4426950408889634f));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
    return left * gate * r;
}

template <bool kBF16>
static __device__ __forceinline__ float widen(u16 v) {
    float f;
    if (kBF16) {
        asm("mov.b32 %0, %1;" : "=f"(f) : "r"((u32)v << 16));
    } else {
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
    }
    return f;
}

template <bool kBF16>
static __device__ __forceinline__ u16 narrow(float f) {
    u16 v;
    if (kBF16) {
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(v) : "f"(f));
    } else {
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(v) : "f"(f));
    }
    return v;
}

// Two floats into one packed pair, lo first in memory.
template <bool kBF16>
static __device__ __forceinline__ u32 narrow2(float lo, float hi) {
    u32 v;
    if (kBF16) {
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(hi), "f"(lo));
    } else {
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(hi), "f"(lo));
    }
    return v;
}

template <bool kBF16>
static __device__ void swiglu_vec8(const u16* __restrict__ de, u16* __restrict__ out, int M, int I) {
    const u64 chunks = (u64)(I / 8);  // 16-byte chunks per row of out
    const u64 n = (u64)M * chunks;
    const Pack8* src = reinterpret_cast<const Pack8*>(de);
    Pack8* dst = reinterpret_cast<Pack8*>(out);
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 row = t / chunks;
        const u64 left = t + row * chunks;  // row*2*chunks + column chunk
        const Pack8 l = src[left];
        const Pack8 g = src[left + chunks];
        Pack8 o;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float lo = silu_times(widen<kBF16>((u16)l.h[j]), widen<kBF16>((u16)g.h[j]));
            const float hi = silu_times(widen<kBF16>((u16)(l.h[j] >> 16)), widen<kBF16>((u16)(g.h[j] >> 16)));
            o.h[j] = narrow2<kBF16>(lo, hi);
        }
        dst[t] = o;
    }
}

template <bool kBF16>
static __device__ void swiglu_scalar(const u16* __restrict__ de, u16* __restrict__ out, int M, int I) {
    const u64 n = (u64)M * (u64)I;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 row = t / (u64)I;
        const u64 left = t + row * (u64)I;  // row*2I + column
        out[t] = narrow<kBF16>(silu_times(widen<kBF16>(de[left]), widen<kBF16>(de[left + I])));
    }
}

#define SWIGEN_SWIGLU_ENTRY(name, impl, bf16)                                      \
    extern "C" __global__ void __launch_bounds__(256)                              \
    name(const u16* de, u16* out, int M, int I) {                                  \
        impl<bf16>(de, out, M, I);                                                 \
    }

SWIGEN_SWIGLU_ENTRY(swigen_mlp_swiglu_bf16_vec8, swiglu_vec8, true)
SWIGEN_SWIGLU_ENTRY(swigen_mlp_swiglu_fp16_vec8, swiglu_vec8, false)
SWIGEN_SWIGLU_ENTRY(swigen_mlp_swiglu_bf16_scalar, swiglu_scalar, true)
SWIGEN_SWIGLU_ENTRY(swigen_mlp_swiglu_fp16_scalar, swiglu_scalar, false)

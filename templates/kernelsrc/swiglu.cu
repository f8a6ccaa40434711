// swigen elementwise: the forward SwiGLU as one standalone kernel
// (runtime/elementwise/swiglu.cu). After a GEMM for de = x @ W it is the
// unfused path of fwd_gateup (cuBLAS's: the baseline; swigen's gemm: the
// dispatch plan's unfused path).
//
//   reads   de = [left | gate] [M,2I]
//   writes  out = left * gate * sigmoid(gate) [M,I]
//
// Two entry points per dtype: *_vec8 moves 8 x 16-bit values (16 bytes) per
// load and store and needs I % 8 == 0 and 16-byte aligned bases (every row
// of left, gate and out then starts 16-byte aligned); *_scalar takes any I.
// Both are grid-stride loops; fp32 math, sigmoid via ex2.approx and
// rcp.approx like the fused epilogues. The types and 16-bit conversions
// come from runtime/kernelsrc's prelude, prepended at build time.

__device__ __forceinline__ float silu_times(float left, float gate) {
    float e, r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(-gate * 1.4426950408889634f));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
    return left * gate * r;
}

template <bool kBF16>
__device__ void swiglu_vec8(const u16* __restrict__ de, u16* __restrict__ out, int M, int I) {
    const u64 chunks = (u64)(I / 8);  // 16-byte chunks per row of out
    const u64 n = (u64)M * chunks;
    const Vec8* src = reinterpret_cast<const Vec8*>(de);
    Vec8* dst = reinterpret_cast<Vec8*>(out);
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 row = t / chunks;
        const u64 left = t + row * chunks;  // row*2*chunks + column chunk
        const Vec8 l = src[left];
        const Vec8 g = src[left + chunks];
        Vec8 o;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float lo = silu_times(to_f32<kBF16>((u16)l.w[j]), to_f32<kBF16>((u16)g.w[j]));
            const float hi = silu_times(to_f32<kBF16>((u16)(l.w[j] >> 16)), to_f32<kBF16>((u16)(g.w[j] >> 16)));
            o.w[j] = pack2<kBF16>(lo, hi);
        }
        dst[t] = o;
    }
}

template <bool kBF16>
__device__ void swiglu_scalar(const u16* __restrict__ de, u16* __restrict__ out, int M, int I) {
    const u64 n = (u64)M * (u64)I;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 row = t / (u64)I;
        const u64 left = t + row * (u64)I;  // row*2I + column
        out[t] = to_16<kBF16>(silu_times(to_f32<kBF16>(de[left]), to_f32<kBF16>(de[left + I])));
    }
}

#define SWIGEN_SWIGLU_ENTRY(name, impl, bf16)                                      \
    extern "C" __global__ void __launch_bounds__(256)                              \
    name(const u16* de, u16* out, int M, int I) {                                  \
        impl<bf16>(de, out, M, I);                                                 \
    }

SWIGEN_SWIGLU_ENTRY(swigen_swiglu_bf16_vec8, swiglu_vec8, true)
SWIGEN_SWIGLU_ENTRY(swigen_swiglu_fp16_vec8, swiglu_vec8, false)
SWIGEN_SWIGLU_ENTRY(swigen_swiglu_bf16_scalar, swiglu_scalar, true)
SWIGEN_SWIGLU_ENTRY(swigen_swiglu_fp16_scalar, swiglu_scalar, false)

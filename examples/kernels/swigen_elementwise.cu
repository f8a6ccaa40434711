// swigen runtime kernels' prelude (runtime/kernelsrc): the integer types,
// a 16-byte vector of eight 16-bit values and the bf16/fp16 conversions
// the hand-written helper kernels share. Prepended to each kernel's source
// at build time, so each still compiles as one self-contained unit that
// uses no CUDA header. kBF16 picks bf16 (true) or fp16 (false).

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

struct alignas(16) Vec8 {
    u32 w[4];  // 8 packed 16-bit values, element 2j in the low half of w[j]
};

template <bool kBF16>
__device__ __forceinline__ float to_f32(u16 h) {
    float f;
    if (kBF16) {
        asm("mov.b32 %0, %1;" : "=f"(f) : "r"((u32)h << 16));
    } else {
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    }
    return f;
}

template <bool kBF16>
__device__ __forceinline__ u16 to_16(float f) {
    u16 h;
    if (kBF16) {
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    } else {
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    }
    return h;
}

// Packs lo into the low and hi into the high half (element order in memory).
template <bool kBF16>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
    u32 r;
    if (kBF16) {
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    } else {
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    }
    return r;
}

// swigen elementwise: the dSwiGLU epilogue as one standalone kernel
// (runtime/elementwise/dswiglu.cu). After a GEMM for dout it is the unfused
// path of bwd_dswiglu: with cuBLAS's GEMM the baseline the fused kernel
// must beat, with swigen's gemm the dispatch plan's unfused path.
//
//   reads   dout [M,I], de = [left | gate] [M,2I]
//   writes  grad_de = [dout*gate*s | dout*left*s*(1+gate*(1-s))] [M,2I]
//           out = left*gate*s [M,I] when out is non-null;   s = sigmoid(gate)
//
// Two entry points per dtype: *_vec8 moves 8 x 16-bit values (16 bytes) per
// load/store and needs I % 8 == 0 and 16-byte aligned bases (every row of
// dout, left and gate then starts 16-byte aligned); *_scalar handles any I.
// Both are grid-stride loops. fp32 math; sigmoid via ex2.approx + rcp.approx.
// The types and 16-bit conversions come from runtime/kernelsrc's prelude,
// prepended at build time; swiglu.cu follows in the same compile unit.

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float rcp(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// The epilogue of one element.
__device__ __forceinline__ void dswiglu(float dout, float left, float gate, float& dleft,
                                               float& dgate, float& out) {
    const float kLog2e = 1.4426950408889634f;
    const float s = rcp(1.0f + ex2(-gate * kLog2e));
    const float silu = gate * s;
    dleft = dout * silu;
    dgate = dout * left * s * (1.0f + gate * (1.0f - s));
    out = left * silu;
}

template <bool kBF16>
__device__ void dswiglu_vec8(const u16* __restrict__ dout, const u16* __restrict__ de,
                                    u16* __restrict__ grad_de, u16* __restrict__ out, int M, int I) {
    const u64 per_row = (u64)(I / 8);
    const u64 n = (u64)M * per_row;
    const Vec8* dout8 = reinterpret_cast<const Vec8*>(dout);
    const Vec8* de8 = reinterpret_cast<const Vec8*>(de);
    Vec8* grad8 = reinterpret_cast<Vec8*>(grad_de);
    Vec8* out8 = reinterpret_cast<Vec8*>(out);
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 m = t / per_row;
        const u64 c = t - m * per_row;
        const u64 l = m * 2u * per_row + c;  // left chunk; gate chunk is l + per_row
        const Vec8 d = dout8[t];
        const Vec8 a = de8[l];
        const Vec8 g = de8[l + per_row];
        Vec8 dl, dg, o;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            float r0[3], r1[3];
            dswiglu(to_f32<kBF16>((u16)d.w[j]), to_f32<kBF16>((u16)a.w[j]), to_f32<kBF16>((u16)g.w[j]),
                    r0[0], r0[1], r0[2]);
            dswiglu(to_f32<kBF16>((u16)(d.w[j] >> 16)), to_f32<kBF16>((u16)(a.w[j] >> 16)),
                    to_f32<kBF16>((u16)(g.w[j] >> 16)), r1[0], r1[1], r1[2]);
            dl.w[j] = pack2<kBF16>(r0[0], r1[0]);
            dg.w[j] = pack2<kBF16>(r0[1], r1[1]);
            o.w[j] = pack2<kBF16>(r0[2], r1[2]);
        }
        grad8[l] = dl;
        grad8[l + per_row] = dg;
        if (out) out8[t] = o;
    }
}

template <bool kBF16>
__device__ void dswiglu_scalar(const u16* __restrict__ dout, const u16* __restrict__ de,
                                      u16* __restrict__ grad_de, u16* __restrict__ out, int M, int I) {
    const u64 n = (u64)M * (u64)I;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (u64)gridDim.x * blockDim.x) {
        const u64 m = t / (u64)I;
        const u64 l = t + m * (u64)I;  // m*2I + i
        float dl, dg, o;
        dswiglu(to_f32<kBF16>(dout[t]), to_f32<kBF16>(de[l]), to_f32<kBF16>(de[l + I]), dl, dg, o);
        grad_de[l] = to_16<kBF16>(dl);
        grad_de[l + I] = to_16<kBF16>(dg);
        if (out) out[t] = to_16<kBF16>(o);
    }
}

#define SWIGEN_ENTRY(name, impl, bf16)                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                         \
    name(const u16* dout, const u16* de, u16* grad_de, u16* out, int M, int I) {              \
        impl<bf16>(dout, de, grad_de, out, M, I);                                             \
    }

SWIGEN_ENTRY(swigen_dswiglu_bf16_vec8, dswiglu_vec8, true)
SWIGEN_ENTRY(swigen_dswiglu_fp16_vec8, dswiglu_vec8, false)
SWIGEN_ENTRY(swigen_dswiglu_bf16_scalar, dswiglu_scalar, true)
SWIGEN_ENTRY(swigen_dswiglu_fp16_scalar, dswiglu_scalar, false)
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

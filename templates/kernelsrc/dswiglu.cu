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

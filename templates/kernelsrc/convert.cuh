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


// swigen bench: compares two 16-bit device tensors on the GPU
// (lab/bench/compare.cu), the statistics num.CompareRawBoth computes on
// the host, without moving the tensors: a benchmark's output check at
// model sizes (hundreds of MB) then costs a millisecond instead of seconds.
//
//   sums[0] += (got - want)^2 over elements where both are finite
//   sums[1] += want^2          over elements where want is finite
//   cnt[0]  += 1 for each element where got or want is NaN or Inf, but
//              for equal Infs
//   cnt[1]  += 1 for each got holding the poison pattern
//   cnt[2]   = max |got - want| over those elements, as the bits of a
//              non-negative double (ordered like the unsigned integers)
//
// The sums are in float64; the order of the additions differs from the
// host's, which changes them only by rounding. A grid-stride loop; blocks
// of 256 threads (8 warps) reduce through shared memory, then one
// atomic each.

// CUDA header functions would put the headers' paths into the cubin's line
// table (templates/kernelsrc), so shuffles, atomics and barriers are PTX.
static __device__ __forceinline__ u32 shfl_xor(u32 v, int lane_mask) {
    u32 r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane_mask));
    return r;
}

static __device__ __forceinline__ u64 shfl_xor64(u64 v, int lane_mask) {
    u32 lo, hi;
    asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(v));
    lo = shfl_xor(lo, lane_mask);
    hi = shfl_xor(hi, lane_mask);
    u64 r;
    asm("mov.b64 %0, {%1, %2};" : "=l"(r) : "r"(lo), "r"(hi));
    return r;
}

static __device__ __forceinline__ u64 f64_bits(double d) {
    u64 u;
    asm("mov.b64 %0, %1;" : "=l"(u) : "d"(d));
    return u;
}

static __device__ __forceinline__ double bits_f64(u64 u) {
    double d;
    asm("mov.b64 %0, %1;" : "=d"(d) : "l"(u));
    return d;
}

static __device__ __forceinline__ u64 umax64(u64 a, u64 b) { return a > b ? a : b; }

static __device__ __forceinline__ void block_sync() { asm volatile("bar.sync 0;" ::: "memory"); }

static __device__ __forceinline__ void red_add_f64(double* p, double v) {
    asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
}

static __device__ __forceinline__ void red_add_u64(u64* p, u64 v) {
    asm volatile("red.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

static __device__ __forceinline__ void red_max_u64(u64* p, u64 v) {
    asm volatile("red.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

static __device__ __forceinline__ double warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += bits_f64(shfl_xor64(f64_bits(v), o));
    return v;
}

static __device__ __forceinline__ u64 warp_sum(u64 v) {
    for (int o = 16; o > 0; o >>= 1) v += shfl_xor64(v, o);
    return v;
}

static __device__ __forceinline__ u64 warp_max(u64 v) {
    for (int o = 16; o > 0; o >>= 1) v = umax64(v, shfl_xor64(v, o));
    return v;
}

// Whether a 16-bit value is NaN or Inf (all exponent bits set), and Inf.
template <bool kBF16>
static __device__ __forceinline__ bool nonfinite(u16 h) {
    const u16 e = kBF16 ? 0x7F80u : 0x7C00u;
    return (h & e) == e;
}

template <bool kBF16>
static __device__ __forceinline__ bool infinite(u16 h) {
    return (h & 0x7FFFu) == (kBF16 ? 0x7F80u : 0x7C00u);
}

template <bool kBF16>
static __device__ void compare16(const u16* __restrict__ got, const u16* __restrict__ want, u64 n, u16 poison,
                                 double* sums, u64* cnt) {
    double diff2 = 0.0, want2 = 0.0;
    u64 bad = 0, poisoned = 0, maxabs = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        const u16 gb = got[i], wb = want[i];
        poisoned += gb == poison;
        if (nonfinite<kBF16>(wb)) {
            // An Inf that matches an Inf is fine; a NaN reference never is
            // (it would make both sums NaN).
            bad += !(infinite<kBF16>(gb) && gb == wb);
            continue;
        }
        // A finite reference counts in ||want|| even where got is not
        // finite, as on the host (num.Compare).
        const double w = (double)to_f32<kBF16>(wb);
        want2 += w * w;
        if (nonfinite<kBF16>(gb)) {
            ++bad;
            continue;
        }
        const double d = (double)to_f32<kBF16>(gb) - w;
        diff2 += d * d;
        // |d| by its bits: clearing the sign orders every non-negative
        // double, -0.0 included, like the unsigned integers.
        maxabs = umax64(maxabs, f64_bits(d) & 0x7FFFFFFFFFFFFFFFull);
    }
    diff2 = warp_sum(diff2);
    want2 = warp_sum(want2);
    bad = warp_sum(bad);
    poisoned = warp_sum(poisoned);
    maxabs = warp_max(maxabs);
    __shared__ double s_d[8], s_w[8];
    __shared__ u64 s_b[8], s_p[8], s_m[8];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        s_d[warp] = diff2;
        s_w[warp] = want2;
        s_b[warp] = bad;
        s_p[warp] = poisoned;
        s_m[warp] = maxabs;
    }
    block_sync();
    if (threadIdx.x == 0) {
        for (int k = 1; k < (int)(blockDim.x / 32); ++k) {
            diff2 += s_d[k];
            want2 += s_w[k];
            bad += s_b[k];
            poisoned += s_p[k];
            maxabs = umax64(maxabs, s_m[k]);
        }
        red_add_f64(&sums[0], diff2);
        red_add_f64(&sums[1], want2);
        red_add_u64(&cnt[0], bad);
        red_add_u64(&cnt[1], poisoned);
        red_max_u64(&cnt[2], maxabs);
    }
}

extern "C" __global__ void __launch_bounds__(256)
swigen_compare_bf16(const u16* got, const u16* want, u64 n, u16 poison, double* sums, u64* cnt) {
    compare16<true>(got, want, n, poison, sums, cnt);
}

extern "C" __global__ void __launch_bounds__(256)
swigen_compare_fp16(const u16* got, const u16* want, u64 n, u16 poison, double* sums, u64* cnt) {
    compare16<false>(got, want, n, poison, sums, cnt);
}

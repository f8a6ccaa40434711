// smemshare: do wgmma's shared-memory operand reads share one budget with
// ld.shared / st.shared and TMA (bulk-copy) writes on an H100/H200 SM?
//
// The question behind it (bench/results/NOTES.md, "The shared-memory
// budget"): the fused bwd_dswiglu ping-pong kernel moves ~1216 KB of shared
// memory per 128x128 tile (wgmma operand reads 576 KB, operand TMA writes
// 393 KB, epilogue 256 KB). If all of it shares the SM's 128 B/clk, the
// kernel cannot reach 205 us at S1 at the clock it runs at. The counters
// could not say, since ncu's data-bank counters do not include the wgmma
// operand fetch. This kernel measures it directly.
//
// One CTA per SM, 384 threads:
//   warpgroups 1 and 2 ("consumers") issue wgmma m64nNk16 bf16 from shared
//   memory back to back, as the fused kernel's mainloop does: per stage of a
//   5-stage 32 KB ring (A 64 rows x 64 k per block, B N x 64 k, 128B
//   swizzled), 4 k16 steps x 2 row blocks (n128) or 4 x 1 (n256), commit,
//   wait_group 1. No barriers: the operands are static.
//   warpgroup 0 ("stream") runs one of: nothing; ld.shared.v4 over a 32 KB
//   region; st.shared.v4 over it; 16 KB cp.async.bulk global->shared copies
//   (the TMA's write path) from an L2-resident 1 MB buffer, 4 in flight.
// Each role times itself with clock64. With consumers, the stream runs
// until they finish; alone, it runs a fixed amount.
//
// Build and run (device machine): nvcc -O3 -arch=sm_90a -o smemshare smemshare.cu && ./smemshare
// Written for swigen; not generated code.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

typedef unsigned int u32;
typedef unsigned long long u64;

static constexpr int kStages = 2;           // static operands: two stages are enough to alternate
static constexpr u32 kStageBytes = 32768;  // n128: A 2 x 8 KB + B 16 KB
static constexpr u32 kRing = kStages * kStageBytes;  // 64 KB (n256 reads A 8 KB + B 32 KB from 0 or 16 KB)
static constexpr u32 kXOff = kRing;                   // stream region
static constexpr u32 kXBytes = 163840;                // 160 KB: up to kMaxInflight bulk buffers
static constexpr int kMaxInflight = 10;
static constexpr u32 kBarOff = kXOff + kXBytes;       // kMaxInflight mbarriers
static constexpr u32 kFlagOff = kBarOff + 8 * kMaxInflight;
static constexpr u32 kSmem = kFlagOff + 64 + 1024;
static constexpr u64 kDesc = 0x4000004000010000ull;  // 128B swizzle, LBO 16 B, SBO 1024 B (swigen's kDescA)

enum { kStreamNone = 0, kStreamLds = 1, kStreamSts = 2, kStreamBulk = 3 };

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void fence_acc64(float (&d)[64]) {
#pragma unroll
  for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
__device__ __forceinline__ void fence_acc128(float (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ void wgmma_n128(float (&d)[64], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63},"
      " %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
        "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
        "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
        "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db));
}

#define R8(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
__device__ __forceinline__ void wgmma_n256(float (&d)[128], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
      "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
      "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127},"
      " %128, %129, p, 1, 1, 0, 0;\n}\n"
      : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56), R8(64), R8(72), R8(80), R8(88), R8(96), R8(104), R8(112), R8(120)
      : "l"(da), "l"(db));
}

__device__ __forceinline__ void mbar_init(u32 bar, u32 n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(n)); }
__device__ __forceinline__ void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  asm volatile(
      "{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}\n" ::"r"(bar), "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_g2s(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst), "l"(src),
               "r"(bytes), "r"(bar)
               : "memory");
}

struct Rec {
  u64 cons_cycles;   // consumer warpgroup 1, thread 128: first wgmma fence to last wait
  u64 cons_wgmma;    // wgmma instructions issued by both consumers
  u64 cons_bytes;    // their shared-memory operand bytes (A + B per instruction)
  u64 stream_cycles; // stream warpgroup, thread 0
  u64 stream_bytes;  // bytes the whole stream warpgroup moved
  u64 ns;            // %globaltimer over the consumer window (clock rate)
};

// n: 128 or 256. stream: kStream*. iters: k-blocks per consumer (0: no
// consumers). fixed: the stream's own amount when there are no consumers.
// inflight: bulk copies in flight (<= kMaxInflight); chunk: each CTA's
// source bytes (the copies cycle through them: small stays in L2).
template <int N>
__global__ void __launch_bounds__(384, 1) smemshare(const uint4* __restrict__ src, Rec* out, int stream, int iters, int fixed, u32 seed,
                                                    int inflight, u64 chunk) {
  extern __shared__ __align__(1024) unsigned char raw[];
  const u32 base = (smem_u32(raw) + 1023u) & ~1023u;
  unsigned char* gbase = raw + (base - smem_u32(raw));
  const int wg = threadIdx.x / 128;
  // Random bf16 operands in [-1, 1) (power depends on the data, so no zeros).
  for (u32 i = threadIdx.x; i < (kRing + kXBytes) / 4; i += blockDim.x) {
    u32 h = (i + blockIdx.x * 7919u) * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    const u32 lo = 0x3f00u | (h & 0x807fu), hi = 0x3f00u | ((h >> 16) & 0x807fu);
    reinterpret_cast<u32*>(gbase)[i] = lo | (hi << 16);
  }
  volatile u32* flag = reinterpret_cast<volatile u32*>(gbase + kFlagOff);
  if (threadIdx.x == 0) {
    *flag = 0;
    for (int b = 0; b < kMaxInflight; ++b) mbar_init(base + kBarOff + 8 * b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  if (wg > 0) {
    if (iters > 0) {
      // A at the stage start (64 rows: 8 KB per row block), B at +16 KB.
      const int c = wg - 1;
      u64 t0 = 0, g0 = 0;
      if (threadIdx.x % 128 == 0) {
        t0 = clock64();
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
      }
      if constexpr (N == 128) {
        float d[2][64];
#pragma unroll
        for (int m = 0; m < 2; ++m)
#pragma unroll
          for (int i = 0; i < 64; ++i) d[m][i] = 0.f;
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
          const u32 sd = ((base + ((it + c) % kStages) * kStageBytes) & 0x3FFFFu) >> 4;
          fence_acc64(d[0]); fence_acc64(d[1]);
          asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
          for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int m = 0; m < 2; ++m) wgmma_n128(d[m], kDesc | (u64)(sd + ((m * 8192 + k * 32) >> 4)), kDesc | (u64)(sd + ((16384 + k * 32) >> 4)));
          asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
          fence_acc64(d[0]); fence_acc64(d[1]);
          asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        fence_acc64(d[0]); fence_acc64(d[1]);
        float s = 0.f;
#pragma unroll
        for (int i = 0; i < 64; ++i) s += d[0][i] + d[1][i];
        if (s == 12345.678f) out[gridDim.x].cons_cycles = 1;  // keep the result live
      } else {
        float d[128];
#pragma unroll
        for (int i = 0; i < 128; ++i) d[i] = 0.f;
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
          // n256: A 64 rows (8 KB) at the stage start, B 256 rows (32 KB) after it; the
          // ring's stages overlap here, which does not matter for static operands.
          const u32 sd = ((base + ((it + c) % 2) * 16384) & 0x3FFFFu) >> 4;
          fence_acc128(d);
          asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
          for (int k = 0; k < 4; ++k) wgmma_n256(d, kDesc | (u64)(sd + ((k * 32) >> 4)), kDesc | (u64)(sd + ((8192 + k * 32) >> 4)));
          asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
          fence_acc128(d);
          asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        fence_acc128(d);
        float s = 0.f;
#pragma unroll
        for (int i = 0; i < 128; ++i) s += d[i];
        if (s == 12345.678f) out[gridDim.x].cons_cycles = 1;
      }
      if (threadIdx.x % 128 == 0) {
        const u64 t1 = clock64();
        u64 g1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
        if (c == 0) {
          Rec& r = out[blockIdx.x];
          r.cons_cycles = t1 - t0;
          r.ns = g1 - g0;
          const u64 per = N == 128 ? 8 : 4;
          r.cons_wgmma = 2ull * iters * per;
          r.cons_bytes = r.cons_wgmma * (N == 128 ? (2048 + 4096) : (2048 + 8192));
        }
      }
      // Both consumers done -> stop the stream (named barrier over the two consumer warpgroups).
      asm volatile("bar.sync 1, 256;" ::: "memory");
      if (threadIdx.x == 128) *flag = 1;
    }
    return;
  }

  // ---- stream warpgroup
  const bool bounded = iters > 0;
  u64 bytes = 0;
  const u64 t0 = clock64();
  if (stream == kStreamLds || stream == kStreamSts) {
    // Each thread touches 16 B per access; the warpgroup sweeps the 64 KB region
    // 2 KB at a time (conflict-free: 32 lanes x 16 B contiguous).
    const u32 x = base + kXOff + threadIdx.x * 16;
    uint4 acc = make_uint4(0, 0, 0, 0);
    int rounds = 0;
#pragma unroll 1
    while (bounded ? (*flag == 0) : (rounds < fixed)) {
#pragma unroll
      for (int r = 0; r < 32; ++r) {
        const u32 a = x + (r % 32) * 2048;
        if (stream == kStreamLds) {
          uint4 v;
          asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
          acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
        } else {
          asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(acc.x + r), "r"(acc.y), "r"(acc.z), "r"(acc.w) : "memory");
        }
      }
      ++rounds;
    }
    bytes = (u64)rounds * 32 * 16;  // per thread
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) out[gridDim.x].stream_bytes = 1;
    // Sum over the warpgroup.
    __shared__ u64 tot;
    if (threadIdx.x == 0) tot = 0;
    asm volatile("bar.sync 2, 128;" ::: "memory");
    atomicAdd(&tot, bytes);
    asm volatile("bar.sync 2, 128;" ::: "memory");
    bytes = tot;
  } else if (stream == kStreamBulk && threadIdx.x == 0) {
    // 16 KB copies into `inflight` buffers of the stream region, all in flight.
    const unsigned char* s = reinterpret_cast<const unsigned char*>(src) + blockIdx.x * chunk;
    const u32 nchunk = (u32)(chunk / 16384);
    const u32 q = (u32)inflight;
    u32 issued = 0, done = 0;
    for (; issued < q; ++issued) {
      const u32 bar = base + kBarOff + 8 * issued;
      mbar_expect_tx(bar, 16384);
      bulk_g2s(base + kXOff + issued * 16384, s + (u64)(issued % nchunk) * 16384, 16384, bar);
    }
#pragma unroll 1
    while (bounded ? (*flag == 0) : ((int)done < fixed)) {
      const u32 b = done % q;
      mbar_wait(base + kBarOff + 8 * b, (done / q) & 1u);
      ++done;
      const u32 bar = base + kBarOff + 8 * b;
      mbar_expect_tx(bar, 16384);
      bulk_g2s(base + kXOff + b * 16384, s + (u64)(issued % nchunk) * 16384, 16384, bar);
      ++issued;
    }
    for (; done < issued; ++done) mbar_wait(base + kBarOff + 8 * (done % q), (done / q) & 1u);
    bytes = (u64)done * 16384;
  }
  const u64 t1 = clock64();
  if (threadIdx.x == 0) {
    Rec& r = out[blockIdx.x];
    r.stream_cycles = t1 - t0;
    r.stream_bytes = bytes;
    if (!bounded) {
      r.cons_cycles = 0;
      r.cons_bytes = 0;
      r.cons_wgmma = 0;
      r.ns = 0;
    }
  }
}

struct Result {
  double cons_bpc, stream_bpc, cyc_per_wgmma, ghz;
};

template <int N>
Result run(const uint4* src, Rec* d_out, int sms, int stream, int iters, int fixed, u32 seed, int inflight = 4, u64 chunk = 131072) {
  CK(cudaFuncSetAttribute(smemshare<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmem));
  CK(cudaMemset(d_out, 0xff, sizeof(Rec) * (sms + 1)));  // poison
  smemshare<N><<<sms, 384, kSmem>>>(src, d_out, stream, iters, fixed, seed, inflight, chunk);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<Rec> h(sms);
  CK(cudaMemcpy(h.data(), d_out, sizeof(Rec) * sms, cudaMemcpyDeviceToHost));
  // Median over the CTAs of each rate.
  std::vector<double> cb, sb, cw, gh;
  for (auto& r : h) {
    if (iters > 0) {
      cb.push_back((double)r.cons_bytes / r.cons_cycles);
      cw.push_back((double)r.cons_cycles / r.cons_wgmma);  // per wgmma on the tensor pipe (both consumers)
      gh.push_back((double)r.cons_cycles / r.ns);
    }
    if (stream != kStreamNone) sb.push_back((double)r.stream_bytes / r.stream_cycles);
  }
  auto med = [](std::vector<double>& v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  Result res{med(cb), med(sb), 0, med(gh)};
  res.cyc_per_wgmma = med(cw);
  return res;
}

int main(int argc, char** argv) {
  int dev = 0, sms = 0;
  CK(cudaSetDevice(dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  printf("device %s, %d SMs; smem per CTA %u B\n", p.name, sms, kSmem);
  // Source of the bulk copies: 128 KB per CTA (L2-resident, 17 MB in all) or
  // 8 MB per CTA (1 GB in all: streamed from HBM).
  const u64 big = 8ull << 20;
  uint4* src;
  CK(cudaMalloc(&src, big * sms));
  CK(cudaMemset(src, 0x3c, big * sms));
  Rec* d_out;
  CK(cudaMalloc(&d_out, sizeof(Rec) * (sms + 1)));
  const int iters = argc > 1 ? atoi(argv[1]) : 10000;
  const char* names[] = {"none", "ld.shared.v4", "st.shared.v4", "bulk copy g->s"};
  printf("%-5s %-15s %10s %10s %10s %10s %8s\n", "wgmma", "stream", "cyc/wgmma", "wgmma B/c", "stream B/c", "sum B/c", "GHz");
  for (int rep = 0; rep < 2; ++rep) {
    for (int n : {128, 256}) {
      for (int st = 0; st < 4; ++st) {
        Result r = n == 128 ? run<128>(src, d_out, sms, st, iters, 0, 17 + rep) : run<256>(src, d_out, sms, st, iters, 0, 17 + rep);
        printf("n%-4d %-15s %10.1f %10.1f %10.1f %10.1f %8.3f\n", n, names[st], r.cyc_per_wgmma, r.cons_bpc, r.stream_bpc,
               r.cons_bpc + r.stream_bpc, r.ghz);
      }
    }
    for (int st = 1; st < 4; ++st) {
      Result r = run<128>(src, d_out, sms, st, 0, st == 3 ? 20000 : 20000, 17 + rep);
      printf("%-5s %-15s %10s %10s %10.1f %10s\n", "-", names[st], "-", "-", r.stream_bpc, "-");
    }
  }
  printf("\nbulk copies (16 KB each) by bytes in flight, alone and beside wgmma n128:\n");
  printf("%-9s %-8s %12s %12s %12s %10s\n", "inflight", "source", "alone B/c", "beside B/c", "wgmma B/c", "cyc/wgmma");
  for (u64 chunk : {131072ull, big}) {
    for (int q : {2, 4, 6, 8, 10}) {
      Result a = run<128>(src, d_out, sms, kStreamBulk, 0, 20000, 5, q, chunk);
      Result b = run<128>(src, d_out, sms, kStreamBulk, iters, 0, 5, q, chunk);
      printf("%4d KB   %-8s %12.1f %12.1f %12.1f %10.1f\n", q * 16, chunk == big ? "HBM" : "L2", a.stream_bpc, b.stream_bpc, b.cons_bpc,
             b.cyc_per_wgmma);
    }
  }
  CK(cudaFree(src));
  CK(cudaFree(d_out));
  return 0;
}

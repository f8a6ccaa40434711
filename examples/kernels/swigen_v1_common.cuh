// swigen CUDA library v1: the PTX wrappers every kernel uses (types,
// mbarrier, TMA, fences, 16-bit conversions, dSwiGLU math, tile rasters).
// Shipped inside swigen (templates.IncludeFS) and written beside every unit
// that includes it; a skeleton-rendered kernel pastes the text after the
// #pragma once line instead (gen's "common" template), so both kinds of unit
// compile the same functions. Nothing here may call CUDA header code: see
// the types note below.
#pragma once
// ---- types (self-contained: no #include, so nvcc and NVRTC take the file as is)
typedef unsigned int sw_u32;
typedef unsigned long long sw_u64;
typedef unsigned short sw_u16;

// A CUtensorMap stand-in: 128 opaque bytes, 64-byte aligned, passed by value
// as a __grid_constant__ kernel parameter.
struct __align__(64) sw_tmap { sw_u64 v[16]; };

#define SW_DEV __device__ __forceinline__

// ---- addresses
SW_DEV sw_u32 sw_smem_addr(const void* p) {
  sw_u32 r;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
SW_DEV sw_u64 sw_globaltimer() {
  sw_u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---- mbarrier
SW_DEV void sw_mbar_init(sw_u32 bar, sw_u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
// All 32 lanes converge here, as __syncwarp() does; written in PTX because
// calling a CUDA header function puts that header's path and modification
// time, and a name prefix nvcc derives from the build directory, into the
// cubin's line table: the cubin would differ from machine to machine.
SW_DEV void sw_syncwarp() {
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}
SW_DEV void sw_fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
SW_DEV void sw_mbar_expect_tx(sw_u32 bar, sw_u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
SW_DEV void sw_mbar_arrive(sw_u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
SW_DEV sw_u32 sw_mbar_try(sw_u32 bar, sw_u32 parity) {
  sw_u32 ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
// Waits for the phase with the given parity to complete. A wait that lasts
// longer than 4000 ms traps: a wrong parity then fails the launch
// with an error instead of hanging the process.
SW_DEV void sw_mbar_wait(sw_u32 bar, sw_u32 parity) {
  if (sw_mbar_try(bar, parity)) return;
  sw_u64 t0 = sw_globaltimer();
  while (!sw_mbar_try(bar, parity)) {
    if (sw_globaltimer() - t0 > 4000000000ull) {
      asm volatile("trap;");
    }
  }
}

// sw_mbar_wait for code that must not contain a trap: the sm_90a consumer
// warpgroups. ptxas gives a setmaxnreg region more registers than the
// kernel's entry count only if no trap (an exit) can run inside it, and it
// serializes every wgmma if a trap can run in a divergent path while
// wgmmas are in flight (C7518). On a timeout it gives up and sets hung,
// which makes every later wait return at once: the kernel then finishes
// with wrong results (verify reports them) instead of hanging, and the
// producer, whose waits still trap, fails the launch in every deadlock
// that stalls it.
SW_DEV void sw_mbar_wait_nt(sw_u32 bar, sw_u32 parity, sw_u32& hung) {
  if (hung || sw_mbar_try(bar, parity)) return;
  const sw_u64 t0 = sw_globaltimer();
  while (!sw_mbar_try(bar, parity)) {
    if (sw_globaltimer() - t0 > 4000000000ull) {
      hung = 1;
      return;
    }
  }
}

// A wait whose phase is completed by arrivals from other CTAs of the
// cluster: acquire at cluster scope.
SW_DEV sw_u32 sw_mbar_try_cluster(sw_u32 bar, sw_u32 parity) {
  sw_u32 ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
SW_DEV void sw_mbar_wait_cluster(sw_u32 bar, sw_u32 parity) {
  if (sw_mbar_try_cluster(bar, parity)) return;
  sw_u64 t0 = sw_globaltimer();
  while (!sw_mbar_try_cluster(bar, parity)) {
    if (sw_globaltimer() - t0 > 4000000000ull) {
      asm volatile("trap;");
    }
  }
}

// ---- TMA (bulk tensor copies)
SW_DEV void sw_prefetch_tmap(const sw_tmap* m) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<sw_u64>(m)) : "memory");
}
SW_DEV void sw_tma_load_2d(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               :: "r"(dst), "l"(reinterpret_cast<sw_u64>(m)), "r"(bar), "r"(c0), "r"(c1) : "memory");
}
SW_DEV void sw_tma_load_3d(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
               :: "r"(dst), "l"(reinterpret_cast<sw_u64>(m)), "r"(bar), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
SW_DEV void sw_tma_load_2d_mc(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int c0, int c1, sw_u16 mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
               :: "r"(dst), "l"(reinterpret_cast<sw_u64>(m)), "r"(bar), "r"(c0), "r"(c1), "h"(mask) : "memory");
}
SW_DEV void sw_tma_store_2d(const sw_tmap* m, sw_u32 src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(reinterpret_cast<sw_u64>(m)), "r"(src), "r"(c0), "r"(c1) : "memory");
}
SW_DEV void sw_tma_store_3d(const sw_tmap* m, sw_u32 src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
               :: "l"(reinterpret_cast<sw_u64>(m)), "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
SW_DEV void sw_bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
SW_DEV void sw_bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
SW_DEV void sw_bulk_wait_read1() { asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory"); }
SW_DEV void sw_bulk_wait0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
SW_DEV void sw_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
SW_DEV void sw_named_bar_sync(sw_u32 id, sw_u32 threads) {
  asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

// ---- clusters
SW_DEV sw_u32 sw_cluster_ctarank() {
  sw_u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
SW_DEV void sw_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// Arrives on the mbarrier at the same shared-memory offset in CTA `rank` of
// the cluster. Release at CTA scope, as CUTLASS does: the arrive only says
// "this stage's reads are done" (wgmma.wait_group already completed them);
// no data of this thread has to become visible to the peer. The
// .release.cluster form costs MEMBAR.ALL.GPU + ERRBAR + CGAERRBAR before
// every arrive in SASS, and made 2-CTA clusters 2x slower
// (docs/PERFORMANCE.md#clusters-multicast).
SW_DEV void sw_mbar_arrive_cluster(sw_u32 bar, sw_u32 rank) {
  asm volatile("{ .reg .b32 ra; mapa.shared::cluster.u32 ra, %0, %1; mbarrier.arrive.release.cta.shared::cluster.b64 _, [ra]; }"
               :: "r"(bar), "r"(rank) : "memory");
}

// ---- 16-bit conversions. Packing puts the first operand in the upper half,
// so (x0, x1) in memory order is cvt(x1, x0).
SW_DEV void sw_unpack_bf16x2(sw_u32 v, float& lo, float& hi) {
  lo = __uint_as_float(v << 16);
  hi = __uint_as_float(v & 0xFFFF0000u);
}
SW_DEV sw_u32 sw_pack_bf16x2(float lo, float hi) {
  sw_u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
SW_DEV void sw_unpack_f16x2(sw_u32 v, float& lo, float& hi) {
  sw_u16 a = (sw_u16)(v & 0xFFFFu), b = (sw_u16)(v >> 16);
  asm("cvt.f32.f16 %0, %1;" : "=f"(lo) : "h"(a));
  asm("cvt.f32.f16 %0, %1;" : "=f"(hi) : "h"(b));
}
SW_DEV sw_u32 sw_pack_f16x2(float lo, float hi) {
  sw_u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
SW_DEV sw_u32 sw_lds32(sw_u32 addr) {
  sw_u32 v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
SW_DEV void sw_sts32(sw_u32 addr, sw_u32 v) {
  asm volatile("st.shared.b32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// ---- dSwiGLU math in fp32. s = sigmoid(g) by ex2 + rcp; silu'(g) =
// s*(1 + g*(1-s)). For very negative g, ex2 overflows to +inf and rcp gives
// s = 0 exactly, which keeps every product finite.
SW_DEV float sw_sigmoid(float g) {
  float e, s;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(g * -1.4426950408889634f));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(1.0f + e));
  return s;
}
SW_DEV void sw_dswiglu(float dout, float left, float gate, float& dleft, float& dgate, float& out) {
  float s = sw_sigmoid(gate);
  float silu = gate * s;
  dleft = dout * silu;
  dgate = dout * left * (s * (1.0f + gate * (1.0f - s)));
  out = left * silu;
}

// ---- tile scheduler: tile id t -> (m tile, n tile). Tiles are walked in
// groups of G tile columns (raster m) or G tile rows (raster n); inside a
// group the short index moves fastest, so the CTAs of one wave share the
// operand tiles of a G-wide band and keep them in L2.
SW_DEV void sw_tile_raster_m(int t, int tiles_m, int tiles_n, int G, int& tm, int& tn) {
  int per_group = G * tiles_m;
  int g = t / per_group;
  int w = t - g * per_group;
  int first = g * G;
  int gsize = min(G, tiles_n - first);
  tn = first + w % gsize;
  tm = w / gsize;
}
SW_DEV void sw_tile_raster_n(int t, int tiles_m, int tiles_n, int G, int& tm, int& tn) {
  int per_group = G * tiles_n;
  int g = t / per_group;
  int w = t - g * per_group;
  int first = g * G;
  int gsize = min(G, tiles_m - first);
  tm = first + w % gsize;
  tn = w / gsize;
}

// swigen CUDA library v1, sm_90a: the building blocks of a persistent,
// warp-specialized TMA + wgmma kernel body (wgmma fences, the accumulator
// fence, epilogue staging with ldmatrix/stmatrix, the operand ring's loads,
// stage release, tile order). A unit's traits struct T (see swigen_v1_sm90a_gemm.cuh
// for the members a body reads) picks among them at compile time, so the
// body holds no text substitution. Every function is SW_DEV (force-inlined):
// a unit compiles to the code its skeleton rendering compiles to.
#pragma once
#include "swigen_v1_common.cuh"

// 16-bit operand types: how the epilogue packs two fp32 values into one
// 32-bit word of the operand type, and how it unpacks one.
struct sw_bf16 {
  static SW_DEV sw_u32 pack(float lo, float hi) { return sw_pack_bf16x2(lo, hi); }
  static SW_DEV void unpack(sw_u32 v, float& lo, float& hi) { sw_unpack_bf16x2(v, lo, hi); }
};
struct sw_f16 {
  static SW_DEV sw_u32 pack(float lo, float hi) { return sw_pack_f16x2(lo, hi); }
  static SW_DEV void unpack(sw_u32 v, float& lo, float& hi) { sw_unpack_f16x2(v, lo, hi); }
};

// ---- wgmma (the instruction itself is the unit's: T::wgmma, whose PTX
// spells the tile's N and the operand type)
SW_DEV void sw_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
SW_DEV void sw_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
SW_DEV void sw_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }

// Keeps nvcc from moving accumulator reads/writes across the asynchronous
// wgmma region.
template <int A>
SW_DEV void sw_fence_acc(float (&d)[A]) {
#pragma unroll
  for (int i = 0; i < A; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

// ---- Epilogue staging of a 64 x T::kEpiSubCols 16-bit sub-tile in a
// T::kEpiRowBytes-swizzled slot (row r at r*kEpiRowBytes, 8-column chunk j at
// ((j ^ ((r >> kEpiSwizzleShift) & kEpiSwizzleMask)) << 4), view.EpiSwizzle).
// Accumulator fragment (jj, h) of warp wl is an 8x8 matrix, rows
// 16*wl + 8h + 0..7 and columns 8jj..8jj+7, and each lane holds the same two
// adjacent columns of it that ldmatrix/stmatrix give it. So one x4 moves four
// fragments per lane with one instruction (lanes 8m..8m+7 address the rows of
// matrix m) where 32-bit accesses take four, each with its own swizzled
// address. The eight rows of a matrix fall in eight different chunks: no bank
// conflicts. Row address of this lane for fragments i = g..g+3 (g % 4 == 0,
// i = 2*jj + h): matrix m = lane/8 is fragment g + m.
template <class T>
SW_DEV sw_u32 sw_frag4_row(sw_u32 slot, int wl, int lane, int g) {
  const int jj = g / 2 + (lane >> 4), h = (lane >> 3) & 1;
  return slot + (16 * wl + 8 * h + (lane & 7)) * T::kEpiRowBytes +
         ((jj ^ ((lane >> T::kEpiSwizzleShift) & T::kEpiSwizzleMask)) << 4);
}
SW_DEV void sw_ldsm4(sw_u32 addr, sw_u32* v) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(addr) : "memory");
}
SW_DEV void sw_stsm4(sw_u32 addr, const sw_u32* v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
}
// Waits until at most N of this thread's bulk store groups still read
// shared memory: with N = kEpiStages-1, the store that last used the slot
// about to be rewritten has read it.
template <int N>
SW_DEV void sw_bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory"); }

// ---- operand ring loads. A [M,K] is K-major (tensor-map coordinates
// {k, row}) or [K,M] MN-major ({row, k}); B likewise with n. T::kL2Keep
// (_l2k) gives every operand load an L2 evict_last policy, so streamed
// epilogue data evicts its own lines first; the multicast forms (_mc) take
// the policy after the mask.
SW_DEV sw_u64 sw_policy_evict_last() {
  sw_u64 p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
SW_DEV void sw_tma_load_2d_keep(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;"
               :: "r"(dst), "l"(reinterpret_cast<sw_u64>(m)), "r"(bar), "r"(c0), "r"(c1), "l"(sw_policy_evict_last()) : "memory");
}
SW_DEV void sw_tma_load_2d_keep_mc(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int c0, int c1, sw_u16 mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5, %6;"
               :: "r"(dst), "l"(reinterpret_cast<sw_u64>(m)), "r"(bar), "r"(c0), "r"(c1), "h"(mask), "l"(sw_policy_evict_last()) : "memory");
}
// One box at coordinates {inner, outer} of a tensor map: T::kL2Keep picks the
// cache-hinted form.
template <class T>
SW_DEV void sw_load_box(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int inner, int outer) {
  if constexpr (T::kL2Keep) {
    sw_tma_load_2d_keep(dst, m, bar, inner, outer);
  } else {
    sw_tma_load_2d(dst, m, bar, inner, outer);
  }
}
template <class T>
SW_DEV void sw_load_box_mc(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int inner, int outer, sw_u16 mask) {
  if constexpr (T::kL2Keep) {
    sw_tma_load_2d_keep_mc(dst, m, bar, inner, outer, mask);
  } else {
    sw_tma_load_2d_mc(dst, m, bar, inner, outer, mask);
  }
}
// A's box at k offset k and row row (T::kAMNMajor: [K,M]), for this CTA or
// multicast to the cluster.
template <class T>
SW_DEV void sw_load_a(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int k, int row) {
  if constexpr (T::kAMNMajor) {
    sw_load_box<T>(dst, m, bar, row, k);
  } else {
    sw_load_box<T>(dst, m, bar, k, row);
  }
}
template <class T>
SW_DEV void sw_load_a_mc(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int k, int row, sw_u16 mask) {
  if constexpr (T::kAMNMajor) {
    sw_load_box_mc<T>(dst, m, bar, row, k, mask);
  } else {
    sw_load_box_mc<T>(dst, m, bar, k, row, mask);
  }
}
// B's box at k offset k and column n (T::kBMNMajor: [K,N]).
template <class T>
SW_DEV void sw_load_b(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int k, int n) {
  if constexpr (T::kBMNMajor) {
    sw_load_box<T>(dst, m, bar, n, k);
  } else {
    sw_load_box<T>(dst, m, bar, k, n);
  }
}
template <class T>
SW_DEV void sw_load_b_mc(sw_u32 dst, const sw_tmap* m, sw_u32 bar, int k, int n, sw_u16 mask) {
  if constexpr (T::kBMNMajor) {
    sw_load_box_mc<T>(dst, m, bar, n, k, mask);
  } else {
    sw_load_box_mc<T>(dst, m, bar, k, n, mask);
  }
}

// Releases an operand stage: in a cluster, in every CTA, since each of
// them multicasts into this CTA's stage.
template <class T>
SW_DEV void sw_release_stage(sw_u32 bar) {
  if (T::kClusterSize == 1) {
    sw_mbar_arrive(bar);
  } else {
#pragma unroll
    for (int r = 0; r < T::kClusterSize; ++r) sw_mbar_arrive_cluster(bar, r);
  }
}

// Tile id t (a cluster's work unit) -> (m, n) unit coordinates in T's raster
// order (T::kRasterN: groups of tile rows, else of tile columns).
template <class T>
SW_DEV void sw_tile_of(int t, int units_m, int units_n, int& tm, int& tn) {
  if constexpr (T::kRasterN) {
    sw_tile_raster_n(t, units_m, units_n, T::kSwizzleGroup, tm, tn);
  } else {
    sw_tile_raster_m(t, units_m, units_n, T::kSwizzleGroup, tm, tn);
  }
}

// swigen CUDA library v1, sm_90a: the stream-K tile scheduler's helpers
// (tiling.StreamKPlan), one CTA per cluster. Every role walks the same work
// list, sw_sk_item: whole tiles in full waves, then a contiguous range of
// the remaining tiles' k-blocks, walked from its top so the split tile
// whose head the CTA holds comes first and the one whose tail it owns comes
// last. A head or middle part stores its fp32 accumulators in the CTA's
// workspace slot and releases its flag; the owner (the part holding the
// tile's last k-block) acquires the flags of the lower CTAs that hold the
// tile's other parts, adds their partials in CTA order (a fixed order: the
// output is bitwise the same on every run) and runs the kind's epilogue.
//
// Workspace: a u32 flag per consumer part and CTA, then the header (the u32
// epoch of the last launch finished on the workspace, the u32 count of
// consumer warpgroups done with this one), zeroed once when the workspace
// is allocated and padded to 128 bytes, then one slot of T::kSkSlotBytes
// per CTA for the partial accumulators of its one split part. A flag holds
// the epoch of the launch that released it and an owner waits for its own
// launch's epoch: a flag set by an earlier launch (a partial late past an
// owner's timeout) never passes a later wait, and no pass puts the flags
// back.
//
// The traits T add to the kernel's (swigen_v1_sm90a_gemm.cuh): kSkMinKBlocks,
// kSkFlagBytes, kSkHeaderBytes (tiling.StreamKHeaderBytes), kSkSlotBytes,
// kSkPartBytes, kSkParts (2: consumer c's rows are part c; 1: the whole
// tile), kSkConsumers (consumer warpgroups per CTA) and kHangNs (the
// consumers' wait timeout). The walk is swigen_v1_sm90a_streamk.inc.
#pragma once
#include "swigen_v1_sm90a.cuh"

static constexpr sw_u32 kSkMaxEpoch = 0xFFFFFFFFu;  // tiling.StreamKMaxEpoch
static constexpr int kSkWhole = 0, kSkPartial = 1, kSkOwner = 2;

// The work list in 32-bit unsigned arithmetic: the manifest's shape rule
// keeps K at most kSkMaxKBlocks k-blocks, so b*units < 2^32 for any grid
// of up to 256 CTAs (and a 64-bit division would cost the producer
// warpgroup's 40 registers a spill).
struct sw_sk_plan {
  sw_u32 grid, kblocks, full;  // CTAs, k-blocks per tile, whole-tile waves
  sw_u32 units;                // k-blocks of the split tiles
  sw_u32 ctas;                 // CTAs the split k-blocks are cut over
};
struct sw_sk_work {
  int tile, kb0, kb1;  // k-blocks [kb0, kb1) of tile
  sw_u32 before;       // k-blocks of this CTA's items before this one
  int role;            // kSkWhole, kSkPartial or kSkOwner
};

template <class T>
SW_DEV sw_sk_plan sw_sk_make(int tiles, int kblocks, int grid) {
  sw_sk_plan p;
  p.grid = (sw_u32)grid;
  p.kblocks = (sw_u32)kblocks;
  p.full = (sw_u32)tiles / p.grid;
  p.units = ((sw_u32)tiles - p.full * p.grid) * p.kblocks;
  const sw_u32 n = p.units / T::kSkMinKBlocks;  // ctas = min(grid, max(1, n))
  p.ctas = n < 1u ? 1u : (n < p.grid ? n : p.grid);
  return p;
}

// The CTA whose split range holds split k-block u.
SW_DEV sw_u32 sw_sk_cta_of(const sw_sk_plan& p, sw_u32 u) { return ((u + 1u) * p.ctas - 1u) / p.units; }

// Item j of CTA b's work list; false past its end.
SW_DEV bool sw_sk_item(const sw_sk_plan& p, int b, int j, sw_sk_work& w) {
  const sw_u32 kb = p.kblocks, ub = (sw_u32)b, uj = (sw_u32)j;
  if (uj < p.full) {
    w.tile = (int)(ub + uj * p.grid);
    w.kb0 = 0;
    w.kb1 = (int)kb;
    w.before = uj * kb;
    w.role = kSkWhole;
    return true;
  }
  if (ub >= p.ctas || p.units == 0u) return false;
  const sw_u32 u0 = ub * p.units / p.ctas, u1 = (ub + 1u) * p.units / p.ctas;
  const sw_u32 top = (u1 - 1u) / kb, back = uj - p.full;  // items into the split range
  if (back > top || top - back < u0 / kb) return false;
  const sw_u32 st = top - back;
  const sw_u32 lo = u0 > st * kb ? u0 : st * kb, hi = u1 < (st + 1u) * kb ? u1 : (st + 1u) * kb;
  w.tile = (int)(p.full * p.grid + st);
  w.kb0 = (int)(lo - st * kb);
  w.kb1 = (int)(hi - st * kb);
  w.before = p.full * kb + (u1 - hi);
  w.role = w.kb1 < (int)kb ? kSkPartial : (w.kb0 > 0 ? kSkOwner : kSkWhole);
  return true;
}

// Flags: a release store of the launch's epoch after the part's partial
// sums, an acquire load by the owner before it reads them; no atomics on
// data.
SW_DEV void sw_sk_release(unsigned int* flag, sw_u32 epoch) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(epoch) : "memory");
}
SW_DEV unsigned int sw_sk_acquire(const unsigned int* flag) {
  unsigned int v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
// The owner's first look at a flag: a strong relaxed read, so the looks at
// all of a tile's lower parts are in flight at once; sw_sk_fence_acquire
// after them makes each look that saw the epoch an acquire pattern (PTX
// memory model: a strong read followed by fence.acq_rel).
SW_DEV unsigned int sw_sk_peek(const unsigned int* flag) {
  unsigned int v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
SW_DEV void sw_sk_fence_acquire() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
SW_DEV void sw_sk_store_relaxed(unsigned int* p, sw_u32 v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
// The header, after the grid's flags.
template <class T>
SW_DEV unsigned int* sw_sk_header(unsigned char* workspace) {
  return reinterpret_cast<unsigned int*>(workspace) + gridDim.x * (T::kSkFlagBytes / 4);
}
// This launch's epoch: the last finished launch's plus one, in
// [1, kSkMaxEpoch]. The header changes only once every consumer of the
// grid is done (sw_sk_finish), so every read in a launch sees one value;
// the previous launch's write is visible by stream order.
template <class T>
SW_DEV sw_u32 sw_sk_epoch(unsigned char* workspace) {
  unsigned int v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(sw_sk_header<T>(workspace)) : "memory");
  return v + 1u;
}
// Waits for a flag to hold epoch, without a trap (consumer code: see
// sw_mbar_wait_nt); a timeout sets hung, and the kernel finishes with
// wrong results.
template <class T>
SW_DEV void sw_sk_wait(const unsigned int* flag, sw_u32 epoch, sw_u32& hung) {
  if (hung || sw_sk_acquire(flag) == epoch) return;
  const sw_u64 t0 = sw_globaltimer();
  while (sw_sk_acquire(flag) != epoch) {
    asm volatile("nanosleep.u32 64;");
    if (sw_globaltimer() - t0 > T::kHangNs) {
      hung = 1;
      return;
    }
  }
}
// One thread per consumer warpgroup, after its last item: the last of the
// grid's consumers to finish (every other one has read the epoch and set or
// waited for its last flag) records this launch's epoch for the next launch
// on the workspace. At kSkMaxEpoch the epochs wrap: it zeroes the flags
// too, so none holds an epoch a later launch will use.
template <class T>
SW_DEV void sw_sk_finish(unsigned char* workspace) {
  unsigned int* const hdr = sw_sk_header<T>(workspace);
  const sw_u32 epoch = sw_sk_epoch<T>(workspace);
  unsigned int done;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(done) : "l"(hdr + 1) : "memory");
  if (done + 1u < gridDim.x * T::kSkConsumers) return;
  sw_sk_store_relaxed(hdr + 1, 0u);
  if (epoch == kSkMaxEpoch) {
#pragma unroll 1
    for (sw_u32 i = 0; i < gridDim.x * (T::kSkFlagBytes / 4); ++i) sw_sk_store_relaxed(reinterpret_cast<unsigned int*>(workspace) + i, 0u);
  }
  sw_sk_store_relaxed(hdr, epoch == kSkMaxEpoch ? 0u : epoch);
}

// A consumer's accumulators in a part of a slot: thread tid's registers
// 4q..4q+3 of block mb at 16*((mb*kAcc/4 + q)*128 + tid), so each store
// and load of a warp is 512 contiguous bytes. Plain C++ accesses, not
// inline PTX: ptxas folds the offsets into the instructions (an asm
// operand would hold each address in registers of its own, which the
// consumers do not have to spare). Ordering comes from the flag: the
// stores precede the release, the loads follow the acquire, each across
// the consumer's named barrier.
struct __align__(16) sw_f4 { float x, y, z, w; };
template <class T>
SW_DEV void sw_sk_store(unsigned char* part, int tid, float (&acc)[T::kMB][T::kAcc]) {
  sw_f4* const p = reinterpret_cast<sw_f4*>(part) + tid;
#pragma unroll
  for (int mb = 0; mb < T::kMB; ++mb) {
#pragma unroll
    for (int q = 0; q < T::kAcc / 4; ++q) {
      p[(mb * (T::kAcc / 4) + q) * 128] = sw_f4{acc[mb][4 * q], acc[mb][4 * q + 1], acc[mb][4 * q + 2], acc[mb][4 * q + 3]};
    }
  }
}
template <class T>
SW_DEV void sw_sk_add(const unsigned char* part, int tid, float (&acc)[T::kMB][T::kAcc]) {
  const sw_f4* const p = reinterpret_cast<const sw_f4*>(part) + tid;
#pragma unroll
  for (int mb = 0; mb < T::kMB; ++mb) {
#pragma unroll
    for (int q = 0; q < T::kAcc / 4; ++q) {
      const sw_f4 x = p[(mb * (T::kAcc / 4) + q) * 128];
      acc[mb][4 * q] += x.x;
      acc[mb][4 * q + 1] += x.y;
      acc[mb][4 * q + 2] += x.z;
      acc[mb][4 * q + 3] += x.w;
    }
  }
}

// sw_sk_add of two parts, p0's then p1's: both parts' loads in flight
// before the first add (one L2 round trip for two parts), the same adds in
// the same order as two sw_sk_add calls, so the same bits. Only a
// consumer with at most 64 accumulators has the registers for it.
template <class T>
SW_DEV void sw_sk_add2(const unsigned char* p0, const unsigned char* p1, int tid, float (&acc)[T::kMB][T::kAcc]) {
  const sw_f4* const a = reinterpret_cast<const sw_f4*>(p0) + tid;
  const sw_f4* const b = reinterpret_cast<const sw_f4*>(p1) + tid;
  sw_f4 x[T::kMB][T::kAcc / 4], y[T::kMB][T::kAcc / 4];
#pragma unroll
  for (int mb = 0; mb < T::kMB; ++mb) {
#pragma unroll
    for (int q = 0; q < T::kAcc / 4; ++q) {
      x[mb][q] = a[(mb * (T::kAcc / 4) + q) * 128];
      y[mb][q] = b[(mb * (T::kAcc / 4) + q) * 128];
    }
  }
#pragma unroll
  for (int mb = 0; mb < T::kMB; ++mb) {
#pragma unroll
    for (int q = 0; q < T::kAcc / 4; ++q) {
      acc[mb][4 * q] = acc[mb][4 * q] + x[mb][q].x + y[mb][q].x;
      acc[mb][4 * q + 1] = acc[mb][4 * q + 1] + x[mb][q].y + y[mb][q].y;
      acc[mb][4 * q + 2] = acc[mb][4 * q + 2] + x[mb][q].z + y[mb][q].z;
      acc[mb][4 * q + 3] = acc[mb][4 * q + 3] + x[mb][q].w + y[mb][q].w;
    }
  }
}

// After a split item's mainloop (all wgmmas done): a head or middle part
// stores its partial sums and releases its flag (true: no epilogue); the
// owner's thread 0 waits for the flag of each lower CTA holding a part of
// the tile, then every thread adds their partial sums in CTA order (false:
// the epilogue runs on the sum; two parts a step where the consumer has at
// most 64 accumulators). Waiting for all of them before the first add keeps
// the epoch out of the add loop, where the accumulators leave no register
// for it.
template <class T>
SW_DEV bool sw_sk_fixup(const sw_sk_plan& p, const sw_sk_work& w, int c, float (&acc)[T::kMB][T::kAcc],
                        unsigned char* workspace, sw_u32& hung) {
  unsigned int* const flags = reinterpret_cast<unsigned int*>(workspace);
  // The slots start past the flags and the header (tiling.StreamKWorkspace).
  unsigned char* const slots = workspace + (p.grid * T::kSkFlagBytes + T::kSkHeaderBytes + 127u) / 128u * 128u;
  const int part = T::kSkParts == 2 ? c : 0;
  const int tid = threadIdx.x % 128;
  const sw_u64 off = (sw_u64)part * T::kSkPartBytes;
  if (w.role == kSkPartial) {
    // The epoch is read before the stores, so its L2 round trip overlaps
    // them instead of delaying the release the owner waits for.
    const sw_u32 epoch = tid == 0 ? sw_sk_epoch<T>(workspace) : 0u;
    sw_sk_store<T>(slots + blockIdx.x * T::kSkSlotBytes + off, tid, acc);
    // Every thread's stores come before the release.
    sw_named_bar_sync(1 + c, 128);
    if (tid == 0) sw_sk_release(flags + blockIdx.x * (T::kSkFlagBytes / 4) + part, epoch);
    return true;
  }
  const int first = (int)sw_sk_cta_of(p, ((sw_u32)w.tile - p.full * p.grid) * p.kblocks);
  const int last = (int)blockIdx.x;
  if (tid == 0) {
    const sw_u32 epoch = sw_sk_epoch<T>(workspace);
    // Four looks in flight at a time (the parts ran about as long as this
    // one, so their flags are mostly set: one L2 round trip for four, not
    // one each); a flag not yet at the epoch is waited for with acquires.
#pragma unroll 1
    for (int b0 = first; b0 < last; b0 += 4) {
      unsigned int v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) v[i] = b0 + i < last ? sw_sk_peek(flags + (b0 + i) * (T::kSkFlagBytes / 4) + part) : epoch;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (v[i] != epoch) sw_sk_wait<T>(flags + (b0 + i) * (T::kSkFlagBytes / 4) + part, epoch, hung);
      }
    }
    sw_sk_fence_acquire();
  }
  // The acquires come before every thread's loads.
  sw_named_bar_sync(1 + c, 128);
  int b = first;
  if constexpr (T::kMB * T::kAcc <= 64) {
#pragma unroll 1
    for (; b + 1 < last; b += 2) sw_sk_add2<T>(slots + b * T::kSkSlotBytes + off, slots + (b + 1) * T::kSkSlotBytes + off, tid, acc);
  }
#pragma unroll 1
  for (; b < last; ++b) sw_sk_add<T>(slots + b * T::kSkSlotBytes + off, tid, acc);
  return false;
}

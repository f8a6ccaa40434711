// swigen CUDA library v1, sm_90a: the bwd_dswiglu kernel. dout = dy @
// W_down^T is computed tile by tile in registers and never written to
// global memory. The epilogue reads de = [left | gate], computes grad_de =
// [dout*silu(gate) | dout*left*silu'(gate)] in fp32 (the op library's
// sw_op_dswiglu) and stores it; with SW_STORE_OUT also the recomputed out.
//
// Threads: warpgroup 0 is the producer (warp 0: TMA loads of the dy/W_down
// ring; warps 1 and 2: TMA loads of the left/gate epilogue sub-tiles for
// consumer 0 and 1, and the TMA stores of the finished ones). Warpgroups 1
// and 2 are the consumers issuing wgmma.
//
// A unit includes this file, defines its traits struct T (the gemm's,
// swigen_v1_sm90a_gemm.cuh, and kEpiGateOff, kEpiOutOff (SW_STORE_OUT), the
// slot's buffers; kEpiTxBytes, the bytes a de sub-tile loads; kEpiGroup,
// the fragments whose loads are issued together; kEpiFrags and
// kEpiColGroups, a warp's fragments and 8-column groups of a sub-tile;
// kTanh, the sigmoid by tanh.approx) and arrays, defines the epilogue's
// form (SW_EPI_NARROW: 64x32 sub-tiles; SW_EPI_MATRIX: ldmatrix/stmatrix
// instead of 32-bit shared-memory accesses; SW_EPI_PIPE: the pipelined
// epilogue), and includes its scheduler's walk with SW_KIND
// "swigen_v1_sm90a_bwd_dswiglu.inc".
#pragma once
#include "swigen_v1_sm90a.cuh"
#include "swigen_v1_sm90a_ops.cuh"

// The GEMM N of the kind (the hidden size I).
#define SW_N I

// TMA-stores the finished sub-tile in slot to grad_de (and out) at row rr,
// column cc: both places the producer stores from go through here.
#ifdef SW_STORE_OUT
template <class T>
SW_DEV void sw_store_results(const sw_tmap* gde, const sw_tmap* out, sw_u32 slot, int cc, int rr) {
  sw_tma_store_3d(gde, slot, cc, 0, rr);
  sw_tma_store_3d(gde, slot + T::kEpiGateOff, cc, 1, rr);
  sw_tma_store_2d(out, slot + T::kEpiOutOff, cc, rr);
  sw_bulk_commit();
}
#else
template <class T>
SW_DEV void sw_store_results(const sw_tmap* gde, sw_u32 slot, int cc, int rr) {
  sw_tma_store_3d(gde, slot, cc, 0, rr);
  sw_tma_store_3d(gde, slot + T::kEpiGateOff, cc, 1, rr);
  sw_bulk_commit();
}
#endif

// swigen CUDA library v1, sm_90a: the gemm kernel, C = A @ B with fp32
// accumulation, C stored in the operand type. A unit includes this file,
// defines its traits struct T and arrays, and includes the walk of its
// scheduler (swigen_v1_sm90a_<scheduler>.inc) inside its entry function,
// with SW_KIND naming the kind's parts, swigen_v1_sm90a_gemm.inc.
//
// Threads: warpgroup 0 is the producer (warp 0: TMA loads of the A/B ring).
// Warpgroups 1 and 2 are the consumers issuing wgmma; each stages its
// 64x64 sub-tiles of C in shared memory for TMA stores (a tile whose width
// is not a multiple of 64 stores its last 64 columns as its last sub-tile,
// rewriting the overlap with the same values).
//
// The traits T (gen/view computes every value; the manifest documents the
// launch): tile kTileM x kTileN x kTileK, kStages operand stages, kEpiStages
// epilogue slots, kMB 64-row wgmma blocks and kAcc fp32 accumulators per
// block per consumer thread, kK16 k16 steps per stage, kNB epilogue sub-tiles
// whose first columns are SubCol, kSwizzleGroup and kRasterN (tile order),
// the shared-memory layout (kStageBytes, kStageTxBytes, kBOff, kEpiOff,
// kEpiConsumerBytes, kEpiSlotBytes, kBarFull, kBarEmpty, kBarEFull,
// kBarEEmpty, kBarOrder), the schedule (kOrderWait, kEmptyArrivals,
// kEpiFullArrivals, kEpiEmptyArrivals, kTileStart, kTileStep,
// kConsumerRows, kConsumerASmem, kProducerRegs, kConsumerRegs), the wgmma
// descriptors (kDescA, kDescB, AK16, BK16, AMB), the operand boxes
// (kALoads, ALoadK, ALoadRow, ALoadRank, ALoadSmem, kBLoads, BLoadK,
// BLoadN, BLoadSmem, BLoadRank, kAMNMajor, kBMNMajor, kL2Keep), the
// cluster (kClusterSize, kClusterM, kClusterN, kRankM, kRankN, kMcMask), the
// epilogue swizzle (kEpiRowBytes, kEpiSwizzleShift, kEpiSwizzleMask), the
// operand type Elem (sw_bf16, sw_f16) and the wgmma instruction
// wgmma(acc, desc_a, desc_b, scale_d).
#pragma once
#include "swigen_v1_sm90a.cuh"

// The GEMM N of the kind: the parameter the walk sizes the tiles by.
#define SW_N N

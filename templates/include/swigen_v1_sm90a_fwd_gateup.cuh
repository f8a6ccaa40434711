// swigen CUDA library v1, sm_90a: the fwd_gateup kernel, de = x @ W with
// out = left*silu(gate) in the epilogue (fp32). W is [K,2I] logically
// ([left | gate] columns). A tile covers kTileN output columns n: its B tile
// is W's left rows n.. then its gate rows I+n.. (two loads into one stage,
// no weight repack), so accumulator column j < kTileN is left[n+j] and
// column kTileN+j is gate[n+j]. Training (SW_STORE_OUT) stores de =
// [left | gate] as well, for the backward.
//
// A unit includes this file, defines its traits struct T (the gemm's,
// swigen_v1_sm90a_gemm.cuh, and kGateAcc, the accumulator index of gate
// column 0; kEpiOutOff, kEpiLeftOff, kEpiGateOff, the slot's buffers) and
// arrays (the gemm's and kBLoadHalf), and includes its scheduler's walk with
// SW_KIND "swigen_v1_sm90a_fwd_gateup.inc".
#pragma once
#include "swigen_v1_sm90a.cuh"
#include "swigen_v1_sm90a_ops.cuh"

// The GEMM N of the kind (the hidden size I), and B's two halves.
#define SW_N I
#define SW_B_HALVES 1

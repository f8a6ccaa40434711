// swigen CUDA library v1, sm_90a: the fwd_down kernel, y = out @ W_down
// (+ residual, SW_RESIDUAL) with fp32 accumulation. In GEMM terms the
// kernel's M is the rows, N the model dim (MLP K) and K the hidden dim I:
// A = out [M,I]; B = W_down [I,K] (MN-major) or [K,I] (K-major). With the
// residual, the producer's warps 1 and 2 TMA-load the residual sub-tiles
// for consumer 0 and 1, which the consumer rewrites in place as y.
//
// A unit includes this file, defines its traits struct T (the gemm's,
// swigen_v1_sm90a_gemm.cuh, and with the residual kEpiTxBytes, the bytes a
// residual sub-tile loads, and kResGroup, the fragments whose loads are
// issued together) and arrays, and includes its scheduler's walk with
// SW_KIND "swigen_v1_sm90a_fwd_down.inc".
#pragma once
#include "swigen_v1_sm90a.cuh"
#include "swigen_v1_sm90a_ops.cuh"

// The GEMM N of the kind.
#define SW_N N

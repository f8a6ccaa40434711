#!/usr/bin/env bash
# Device call 58 (session 4): the other MN-major cluster fault -- 1x2
# sharing an MN-major A by multicast (run 22/35) -- with the masked
# descriptors of call 57 (tiling.Implemented relaxed in this build only).
. "$(dirname "$0")/lib.sh"
run timeout 180 $B verify --seed 61 --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_amn --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_amn_bmn \
  --name gemm_sm90a_bf16_m128n128k64_s5_c1x2_pingpong_amn 2>&1 | grep -v "^ok \|^built" | cut -c1-220 | tail -12

#!/usr/bin/env bash
# Device call 41 (session 3): call 40 found 2x1 + MN-major B wrong even
# with _dbgnomc (no multicast: the emitted code differs from the passing
# 1x1 MN-major kernel only in the cluster constants), while 1x2 + MN-major
# A passes with _dbgnomc. Narrow it: is it any cluster with an MN-major B
# (1x2 bmn), an MN-major A along M (2x1 amn), or the two B slabs (a 64-wide
# tile loads one)?
. "$(dirname "$0")/lib.sh"
G=gemm_sm90a_bf16_m128n128k64_s6
run timeout 200 $B verify --kernel gemm --seed 46 --name ${G}_c1x2_pingpong_bmn --name ${G}_c1x2_pingpong_bmn_dbgnomc \
  --name ${G}_c2x1_pingpong_amn --name ${G}_c2x1_pingpong_amn_dbgnomc --name gemm_sm90a_bf16_m128n64k64_s6_c2x1_pingpong_bmn_dbgnomc \
  --name ${G}_c1x1_pingpong_bmn --name ${G}_c1x2_pingpong_amn_bmn_dbgnomc 2>&1 | grep -v "^ok " | cut -c1-150 | tail -40

#!/usr/bin/env bash
# Device call 40 (session 3): bisect the MN-major cluster bug (2x1 with an
# MN-major B, 1x2 with an MN-major A: wrong on the H200, runs 10 and 22).
# _dbgnomc keeps the cluster launch, the cluster-wide stage release and the
# tile mapping, but every CTA loads its whole tiles itself. If these pass,
# the fault is in the multicast slab split; if they fail, in the rest of
# the cluster path. Controls: the same clusters with K-major operands.
. "$(dirname "$0")/lib.sh"
G=gemm_sm90a_bf16_m128n128k64_s6
run timeout 200 $B verify --kernel gemm --seed 45 --name ${G}_c2x1_pingpong_bmn_dbgnomc --name ${G}_c1x2_pingpong_amn_dbgnomc \
  --name ${G}_c2x1_pingpong --name ${G}_c1x2_pingpong --name ${G}_c2x1_pingpong_dbgnomc 2>&1 | grep -v "^ok " | tail -30
run timeout 200 $B verify --seed 45 --name ${N}_s5_c2x1_pingpong_bmn_dbgnomc --name ${N}_s5_c2x1_cooperative_bmn_dbgnomc 2>&1 | grep -v "^ok " | tail -20

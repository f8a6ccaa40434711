#!/usr/bin/env bash
# Session 7, call 97: the l2k option (operand loads with an L2 evict_last
# policy) as a config field, and the heuristic that uses it at S1.
# (1) verify every load form it changes on the 9 ragged shapes: the S1
#     heuristic (rn_g2_l2k), fp16, W_down [K,I], a 2x1 cluster (multicast
#     keep form), the overlap schedule, and gemm with an MN-major A
#     under a 1x2 cluster. (2) bench bwd's per-shape default against the
#     previous default config, interleaved. Prediction: all pass; S1 ~235 vs
#     ~243 us (call 96).
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong
log timeout 250 $B verify --name ${P}_rn_g2_l2k --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong_rn_g2_l2k --name ${P}_bmn_l2k \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c2x1_pingpong_l2k --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_l2k --seed 97
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -6
log timeout 120 $B verify --kernel gemm --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_amn_l2k --seed 97
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name ${P}_rn_g2_l2k --name $P --name ${P}_rn_g2_l2k --json "$O/results"
grep -A5 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

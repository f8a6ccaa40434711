#!/usr/bin/env bash
# Session 8, call 107: the wide-tile rule (tiling.bwdWideTile) at two
# smaller shapes, and fp16 at S1. 4096x768x4608: the rule takes 128x192
# (6 waves x 192 = 9 waves x 128). 2048x768x2048: it keeps 128x128 (2 waves
# either way; 192-wide tiles would leave more SMs idle per wave).
# Prediction: the rule's pick is the faster one at both (or within 1%).
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
log timeout 150 $B bench bwd --reps 30 --shape 4096,768,4608 --shape 2048,768,2048 --name $Q --name $P --name $Q --name $P --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 100 $B bench bwd --reps 30 --dtype fp16 --shape 16384,768,4608 --json "$O/results"
grep -A2 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

#!/usr/bin/env bash
# Session 8, call 99: ping-pong 128x192 (call 98: correct, sanitizer-clean;
# S1 226-229 vs 232 us; K=1536 355 vs 390; noepi 136 us but nomma 200 with
# L2 93% busy) under 2-CTA clusters, in training mode, and across shapes.
# Why clusters now: operand re-reads are ~1.5 GB of the ~2.1 GB that L2
# serves at S1; TMA multicast of W_down over a 2x1 pair cuts them by 30%.
# (1) verify: c2x1 rn_g4_l2k, fp16 c1x2 W_down [K,I], and the training
#     config (_out) with rn_g2_l2k, on 9 ragged shapes.
# (2) S1: 1x1 / 2x1 / 1x2 at rn_g2 and rn_g4 with l2k; nomma of 2x1.
# (3) training (_out) 128x128 s4 vs 128x192 s3, with and without rn_g2_l2k.
# (4) other shapes: K=1536, 32768x1024x4096, W_down 22 MB, and the large
#     shape against the overlap schedule.
# Prediction: c2x1 S1 215-222 us if L2 bounds it; 2-4% slower if the
# cluster's lockstep costs more (as for 128x128 in run 69).
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
log timeout 200 $B verify --name ${Q}_s4_c2x1_pingpong_rn_g4_l2k --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x2_pingpong_bmn \
  --name ${Q}_s3_c1x1_pingpong_rn_g2_out_l2k --seed 99
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -6
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name ${Q}_s4_c1x1_pingpong_rn_g2_l2k --name ${Q}_s4_c1x1_pingpong_rn_g4_l2k \
  --name ${Q}_s4_c2x1_pingpong_rn_g2_l2k --name ${Q}_s4_c2x1_pingpong_rn_g4_l2k --name ${Q}_s4_c1x2_pingpong_rn_g2_l2k --name ${Q}_s4_c1x2_pingpong_rn_g4_l2k \
  --name ${Q}_s4_c2x1_pingpong_rn_g2_l2k_dbgnomma --name ${Q}_s4_c1x1_pingpong_rn_g1_l2k --name ${Q}_s4_c1x1_pingpong_rn_l2k \
  --name ${Q}_s4_c1x1_pingpong_rn_g4_l2k --name $P --json "$O/results"
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 200 $B bench bwd --reps 20 --shape 16384,768,4608 --name ${N}_s4_c1x1_pingpong_out --name ${Q}_s3_c1x1_pingpong_out \
  --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --name ${Q}_s3_c1x1_pingpong_rn_g2_out_l2k --name ${Q}_s3_c1x1_pingpong_rn_g4_out_l2k --json "$O/results"
grep -A7 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 250 $B bench bwd --reps 20 --shape 16384,1536,4608 --shape 32768,1024,4096 --shape 16384,768,14336 --name $P --name ${N}_s5_c1x1_pingpong \
  --name ${Q}_s4_c1x1_pingpong_rn_g4_l2k --name ${Q}_s4_c2x1_pingpong_rn_g4_l2k --name ${Q}_s4_c1x1_pingpong_rn_g2 --name ${Q}_s4_c1x1_pingpong --json "$O/results"
grep -A19 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 200 $B bench bwd --reps 10 --shape 8192,4096,14336 --name ${Q}_s4_c1x1_overlap --name ${Q}_s4_c1x1_pingpong --name ${Q}_s4_c1x1_pingpong_rn_g2 \
  --name ${Q}_s4_c2x1_pingpong --json "$O/results"
grep -A5 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

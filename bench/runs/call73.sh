#!/usr/bin/env bash
# Session 6, call 73. (1) Verify what call 72 could not: fp16 c2x1 bmn
# after the slab-rank fix (128x192 MN-major B has 3 slabs; the third had
# rank 2 under a 2-CTA cluster), and the configs after it that the lost
# context failed. (2) Bench the overlap schedule under clusters.
# Predictions: the fp16 c2x1 bmn passes; c1x2 (dy multicast, 16 instead of
# 20 B of operands per output) takes 5-10% off the 1x1 overlap at S1
# (247 -> ~230 us) if its data path is L2-bound, ~0 if SM-ingress-bound
# (multicast still delivers every byte to each SM).
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
C=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap
D=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_overlap
log timeout 300 $B verify --seed 91 --timeout 60s --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c2x1_overlap_bmn --name ${D}_bmn \
  --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_cooperative_bmn \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x2_overlap --name ${C}_rn_g4_tanh --name ${D}_sf8
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -8
log timeout 480 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name $P --name $C --name ${C}_sf8 --name $D --name ${D}_sf8 --name ${C}_rn_g4_tanh --name ${P}_rn_g4_tanh \
  --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_cooperative --name ${C}_dbgnoepi --name ${P}_dbgnoepi --json "$O/results"
grep -A24 "^summary" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs results && rm -rf logs

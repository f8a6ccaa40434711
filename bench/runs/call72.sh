#!/usr/bin/env bash
# Session 6, call 72 (rev: see the log's built line). The prepared first call
# (next-session6.sh) plus the overlap schedule under 2-CTA clusters, new in
# this revision (c1x2 multicasts dy, c2x1 W_down; producer 40 / consumers 232).
# - verify the overlap at its final slice size (bf16, fp16 bmn, tanh, _sf8,
#   128x128) and the cluster variants, 9 ragged shapes each; sanitizers.
# - bench S1 and 8192x4096x14336: ping-pong (plain, rn_g4_tanh), overlap
#   default / _sf2 / _sf8, c1x2, c1x2 _sf8, c2x1, c1x2 rn_g4_tanh, cooperative
#   128x192.
# Predictions: S1 overlap 4 ~253 us, _sf8 ~277; large _sf8 ~1393 vs ping-pong
# ~1445. c1x2 cuts L2 operand traffic 20 -> 16 B per output (2.11 -> 1.81 GB
# with the epilogue's 0.6 GB): if the overlap's data path is L2-bound, c1x2
# gains up to ~10% at S1 (~230 us); run 31 saw c1x2 help the ping-pong
# mainloop (174 vs 189) but not its full kernel.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
C=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap
D=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_overlap
log timeout 300 $B verify --seed 90 --timeout 60s --name $P --name ${P}_sf8 --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn \
  --name ${P}_tanh --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap \
  --name $C --name ${C}_sf8 --name ${C}_bmn --name $D --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c2x1_overlap_bmn \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x2_overlap --name ${C}_rn_g4_tanh
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -8
for tool in memcheck racecheck; do
  for k in $P $C; do
    log timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name $k --shape 300,136,264 --timeout 60s
    grep -E "SUMMARY|failed" $O/logs/$n.txt | head -2
  done
done
log timeout 420 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name $P --name ${P}_sf2 --name ${P}_sf8 --name $C --name ${C}_sf8 --name $D --name ${C}_rn_g4_tanh \
  --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_cooperative --json "$O/results"
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs results && rm -rf logs

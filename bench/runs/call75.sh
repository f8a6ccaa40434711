#!/usr/bin/env bash
# Session 6, call 75. The overlap schedule with two k-blocks of wgmmas in
# flight (kMmaDepth 2, this revision) against the previous binary
# (.bin/prev, depth 1), interleaved in one run. Call 74's trace: per 128x192
# tile at S1, period 10.46 us, slices 5.72, wgmma waits 0.03: the wgmmas
# are done before the slices end, so the tensor pipe drains each k-block.
# Shared-memory model (NOTES run 60): ping-pong runs at ~91% of 128 B/clk,
# the overlap at ~76%; at 91% the overlap would take ~207 us.
# Prediction: depth 2 takes S1 from ~248 to 225-235 us, trace shows
# mma-wait > 0.2 us per tile; large shape gains less (K=4096: 64 k-blocks,
# slices in only 12 of them).
. "$(dirname "$0")/lib.sh"
PB=./.bin/prev/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 300 $B verify --seed 93 --timeout 60s --name $P --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap \
  --name ${P}_tanh --name ${P}_sf8 --name ${P}_dbgtrace
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -6
for r in 1 2; do
  log timeout 200 $PB bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P
  grep -A3 "^summary" $O/logs/$n.txt | tail -2 | sed 's/^/prev /' | cut -c1-120
  log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P
  grep -A3 "^summary" $O/logs/$n.txt | tail -2 | sed 's/^/new  /' | cut -c1-120
done
log timeout 400 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${P}_dbgtrace --name ${P}_sf8 --name ${P}_tanh \
  --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap --name ${P}_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh
grep -E "^trace|^consumer|^[01] |config" $O/logs/$n.txt | head -8 | cut -c1-150
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs && rm -rf logs

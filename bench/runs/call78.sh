#!/usr/bin/env bash
# Session 6, call 78. The overlap slices load their de words one slice
# ahead (this revision, uncommitted experiment; .bin/prev is HEAD without
# it), interleaved A/B at S1 and 8192x4096x14336, plus a verify.
# Call 76's trace: 12 slices per tile at 0.48 us each (5.8 of the 10.8 us
# period) for ~156 instructions per warp: latency-bound, and the
# ld.shared compete with the wgmmas' operand reads.
# Prediction: slices -> ~0.35 us, S1 249 -> ~235 us; large unchanged +-1%.
. "$(dirname "$0")/lib.sh"
PB=./.bin/prev/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 200 $B verify --seed 95 --timeout 60s --name $P --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -4
for r in 1 2; do
  log timeout 200 $PB bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P
  grep -A3 "^summary" $O/logs/$n.txt | tail -2 | sed 's/^/prev /' | cut -c1-120
  log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P
  grep -A3 "^summary" $O/logs/$n.txt | tail -2 | sed 's/^/new  /' | cut -c1-120
done
cd $O && tar czf logs.tgz logs && rm -rf logs

#!/usr/bin/env bash
# Prepared at the end of session 5 (no device time left): the first device
# call of session 6. Builds: bash bench/build.sh (main). It checks what
# session 5 could not run on the final main binary, then measures the overlap
# schedule's slice sizes through the new _sf{N} suffix per shape, with the
# cooperative 128x192 control.
# - verify: the overlap at the default slice size for fp16 bmn and tanh
#   (verified only at 2 fragments), and _sf8; 128x128 under the sanitizers
#   after the no-trap change.
# - bench at S1 and 8192x4096x14336: ping-pong, overlap default (4), _sf8,
#   cooperative 128x192.
# Predictions (NOTES run 58): S1 overlap 4 ~253 us, _sf8 ~277; large shape
# _sf8 ~1393 us vs ping-pong ~1445.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 200 $B verify --seed 90 --timeout 60s --name $P --name ${P}_sf8 --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn \
  --name ${P}_tanh --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -6
for tool in memcheck racecheck; do
  log timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name $P --shape 300,136,264 --timeout 60s
  grep -E "SUMMARY|failed" $O/logs/$n.txt | head -2
done
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $P --name ${P}_sf8 \
  --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_cooperative --json "$O/results"
grep -A10 "^summary" $O/logs/$n.txt | cut -c1-130
cd $O && tar czf logs.tgz logs results && rm -rf logs

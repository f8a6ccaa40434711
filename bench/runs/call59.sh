#!/usr/bin/env bash
# Device call 59 (session 5): the first run of the overlap schedule (branch
# wip/overlap c8d5cb3, binary .bin/ovl/swigen): verify on the ragged shapes
# (a hang traps after 4 s), sanitizers on one small shape, S1 against the
# default ping-pong kernel in the same run. Then main's open checks: the
# fwd_gateup/fwd_down catalogs after the descriptor mask (0e27350), and the
# mask's cost (pre-mask binary .bin/prev vs main, interleaved).
# Prediction: if the epilogue hides under the mainloop, 128x192 lands near
# 225 us at S1 (NOTES "Open after session 4").
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
OV=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 70 --timeout 60s --name $OV --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap \
  --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -14
for tool in memcheck racecheck; do
  log timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $V verify --name $OV --shape 300,136,264 --timeout 60s
  grep -E "SUMMARY|rror|FAIL|fail" $O/logs/$n.txt | head -4
done
log timeout 150 $V bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name $OV \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap --name bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_overlap
grep -A6 "^summary" $O/logs/$n.txt | cut -c1-130
log timeout 100 $B verify --seed 71 --kernel fwd_gateup --catalog
tail -3 $O/logs/$n.txt
log timeout 100 $B verify --seed 71 --kernel fwd_down --catalog
tail -3 $O/logs/$n.txt
for r in 1 2; do
  for b in ./.bin/prev/swigen $B; do
    log timeout 60 $b bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong
    echo "$b: $(grep -A3 "^summary" $O/logs/$n.txt | grep pingpong | cut -c1-110)"
  done
done
cd $O && tar czf logs.tgz logs && rm -rf logs

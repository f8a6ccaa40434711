#!/usr/bin/env bash
# Device call 60 (session 5). Call 59 ran the overlap schedule correct but at
# 452 us: ptxas had serialized every wgmma (C7518, a trap reachable in a
# divergent path while wgmmas are in flight). Branch wip/overlap now waits
# without a trap in that region (binary .bin/ovl/swigen). Also main's
# descriptor mask hoisted to once per stage (.bin/swigen) against the
# per-wgmma mask (.bin/old, abb9c2d) and no mask (.bin/prev, fd6fb59).
# Predictions: overlap 128x192 at S1 between 215 and 245 us; the hoisted
# mask at least as fast as no mask.
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
OV=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 72 --timeout 60s --name $OV --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap \
  --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -8
for tool in memcheck racecheck; do
  log timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $V verify --name $OV --shape 300,136,264 --timeout 60s
  grep -E "SUMMARY|rror|FAIL|fail" $O/logs/$n.txt | head -4
done
log timeout 200 $V bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $OV \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap --name bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_overlap
grep -A10 "^summary" $O/logs/$n.txt | cut -c1-130
for r in 1 2; do
  for b in ./.bin/prev/swigen ./.bin/old/swigen $B; do
    log timeout 60 $b bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong
    echo "$b: $(grep -A3 "^summary" $O/logs/$n.txt | grep pingpong | cut -c60-110)"
  done
done
cd $O && tar czf logs.tgz logs && rm -rf logs

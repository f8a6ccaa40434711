#!/usr/bin/env bash
# Device call 56 (session 4): one EEmpty arrive per consumer warp (after
# __syncwarp) instead of one per thread. ncu (call 55) counted the 32-lane
# arrives on one barrier as ~2.3M serialised shared-memory wavefronts per S1
# launch. Verify, sanitizers (pingpong), A/B against a457681 (.bin/prev).
. "$(dirname "$0")/lib.sh"
PREV=./.bin/prev/swigen
run timeout 150 $B verify --kernel bwd_dswiglu --catalog --seed 58 2>&1 | grep -v "^ok \|^built" | tail -1
run timeout 150 $B verify --seed 59 --name ${N}_s5_c1x2_pingpong --name ${N}_s4_c1x1_pingpong_out --name ${N}_s5_c1x1_pingpong_rn_g4_tanh 2>&1 | grep -v "^ok \|^built" | tail -1
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name ${N}_s5_c1x1_pingpong --shape 300,136,264 --timeout 120s 2>&1 | grep -E "SUMMARY"
done
for bin in $PREV $B $PREV $B; do
  timeout 120 $bin bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh > /tmp/b.txt 2>&1
  echo "$bin"; grep -A3 "^summary" /tmp/b.txt | tail -2 | cut -c1-112
done

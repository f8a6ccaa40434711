#!/usr/bin/env bash
# Device call 68 (session 5). A trap inside a setmaxnreg region kept ptxas to
# the kernel's 168 entry registers there; main d50ac05 (.bin/swigen) waits
# in the consumers without a trap, so they now allocate up to R172-R185.
# Checks: every catalog, the deadlock variant still reported, memcheck; the
# default config A/B against 9445484 (.bin/prev). Then the overlap consumer
# (branch wip/overlap2, .bin/o2/swigen) at 128x192, which now fits in 240
# registers. Predictions: main unchanged within 1%; overlap 128x192 below
# the cooperative 128x192 control, above 217 us (ping-pong's nomma).
. "$(dirname "$0")/lib.sh"
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 150 $B verify --seed 78 --kernel $k --catalog
  echo "$k: $(tail -1 $O/logs/$n.txt)"
done
log timeout 60 $B verify --name ${N}_s5_c1x1_pingpong_dbghang --shape 1000,256,1000 --timeout 30s
grep -iE "trap|hang|fail|rror" $O/logs/$n.txt | head -3
log timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B verify --name ${N}_s5_c1x1_pingpong --shape 300,136,264
grep -E "SUMMARY|failed" $O/logs/$n.txt | head -2
for r in 1 2; do
  for b in ./.bin/prev/swigen $B; do
    log timeout 60 $b bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong
    echo "$b: $(grep -A3 "^summary" $O/logs/$n.txt | grep pingpong | cut -c60-110)"
  done
done
V=./.bin/o2/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 78 --timeout 60s --name $P --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn --name ${P}_rn_g4_tanh
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -4
log timeout 250 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $P --name ${P}_rn_g4_tanh \
  --name ${P}_dbgnoepi --name ${P}_dbgnomma --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_cooperative
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-125
cd $O && tar czf logs.tgz logs && rm -rf logs

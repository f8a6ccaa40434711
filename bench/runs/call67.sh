#!/usr/bin/env bash
# Device call 67 (session 5): the overlap consumer inside the sm_90a
# skeleton (branch wip/overlap2, binary .bin/o2/swigen): the producer
# warpgroup issues operand loads, de loads and grad_de stores, which call 64
# showed the consumers must not. 128x128 only (ptxas keeps consumers within
# 168 registers). Prediction: S1 between 225 and 250 us; if the epilogue
# hides, near ping-pong's nomma (~217 us).
. "$(dirname "$0")/lib.sh"
V=./.bin/o2/swigen
P=bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap
log timeout 150 $V verify --seed 77 --timeout 60s --name $P --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_overlap_bmn --name ${P}_rn_g4_tanh
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -6
for tool in memcheck racecheck; do
  log timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $V verify --name $P --shape 300,136,264 --timeout 60s
  grep -E "SUMMARY|failed" $O/logs/$n.txt | head -3
done
log timeout 250 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $P --name ${P}_rn_g4_tanh \
  --name ${P}_dbgnoepi --name ${P}_dbgnomma --name ${N}_s5_c1x1_cooperative
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-125
cd $O && tar czf logs.tgz logs && rm -rf logs

#!/usr/bin/env bash
# Session 7, call 87: the handoff schedule's first run.
# (1) verify on the built-in ragged shapes (bf16, fp16 with W_down [K,I],
#     tanh), memcheck and racecheck at 300x136x264.
# (2) S1 and 8192x4096x14336 against ping-pong (and overlap) in one run, with
#     its noepi and nomma parts. Prediction from its parts: the mainloop of a
#     256x128 tile alone ~160 us (cooperative 128x256 noepi measured 158);
#     if the epilogue warpgroup hides the epilogue, S1 ~185-205 us.
. "$(dirname "$0")/lib.sh"
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff
log timeout 250 $B verify --name $H --name bwd_dswiglu_sm90a_fp16_m256n128k64_s3_c1x1_handoff_bmn --name ${H}_tanh --seed 88
grep -E "FAIL|fail|passed|error" $O/logs/$n.txt | tail -8
for tool in memcheck racecheck; do
  log timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name $H --shape 300,136,264 --timeout 120s
  tail -4 $O/logs/$n.txt
done
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $H --name ${H}_dbgnoepi --name ${H}_dbgnomma --name ${H}_tanh --json "$O/results"
grep -A10 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

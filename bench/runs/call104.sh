#!/usr/bin/env bash
# Session 8, call 104: the final revision (ldmatrix/stmatrix epilogue on,
# 128x192 heuristic). (1) verify: the bwd catalog, the heuristic on the 9
# ragged shapes, cooperative 128x256 and the training heuristic (both now
# with the x4 epilogue); compute-sanitizer memcheck and racecheck on
# 128x192 and 128x128 _out. (2) bench bwd's per-shape default at S1 and
# 8192x4096x14336, for the README. (3) the GPU test binaries.
# Prediction: all pass; S1 ~228 us (~1.51x), large ~1310 us (~1.14x).
. "$(dirname "$0")/lib.sh"
log timeout 250 $B verify --catalog --seed 104
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 120 $B verify --seed 104
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 120 $B verify --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --name bwd_dswiglu_sm90a_fp16_m128n256k64_s3_c1x1_cooperative --seed 104
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
for tool in memcheck racecheck; do
  log timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k \
    --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --shape 300,136,264 --timeout 120s
  tail -3 $O/logs/$n.txt
done
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results"
grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
bash bench/gpu_tests.sh
log timeout 120 ./.bin/tests.test -test.run 'GeneratedBindings' -test.v
grep -E "^(--- |ok|PASS|FAIL)" $O/logs/$n.txt | tail -6
cd $O && tar czf logs.tgz logs results gpu_test_*.txt && rm -rf logs results

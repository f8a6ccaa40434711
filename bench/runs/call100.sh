#!/usr/bin/env bash
# Session 8, call 100: the new heuristic (bwd_dswiglu ping-pong 128x192,
# raster n, group 4, l2k when W_down <= 16 MB; training keeps 128x128 with
# rn_g2_l2k), the new catalog, and the state of main.
# (1) verify: the heuristic on the 9 ragged shapes, the bwd catalog, the
#     training heuristic, and the heuristic at S1 (GPU reference); the
#     generated Go bindings on the GPU (tests.test).
# (2) S1 A/B, interleaved: new vs previous heuristic, inference and
#     training; bench's per-shape default at S1 and 8192x4096x14336.
# (3) The whole step (bench mlp --check) at S1, as stored and recomputed.
# Prediction: all pass; S1 ~1.52x (vs ~1.48x), large ~1.12x (vs 1.07x);
# training 1.45x (vs 1.35x); step ~1.11x.
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
log timeout 120 $B verify --seed 100
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 250 $B verify --catalog --seed 100
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 100 $B verify --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --name $Q --shape 16384,768,4608 --shape 300,136,264 --seed 100
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -3
log timeout 120 ./.bin/tests.test -test.run 'GeneratedBindings' -test.v
grep -E "^(--- |ok|PASS|FAIL)" $O/logs/$n.txt | tail -8
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --name $Q --name $P --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --name ${N}_s4_c1x1_pingpong_out \
  --name $Q --name $P --name ${N}_s4_c1x1_pingpong_rn_g4_out_l2k --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results"
grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 250 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results"
grep -vE "^\s*$" $O/logs/$n.txt | tail -16 | cut -c1-160
log timeout 200 $B bench mlp --check --recompute-out --reps 20 --shape 16384,768,4608 --json "$O/results"
grep -vE "^\s*$" $O/logs/$n.txt | tail -8 | cut -c1-160
cd $O && tar czf logs.tgz logs results && rm -rf logs results

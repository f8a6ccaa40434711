#!/usr/bin/env bash
# Session 8, call 101: where the 128x192 ping-pong tile's time goes, and the
# tuner's view of the new space.
# (1) tune at S1 over the 1x1 ping-pong space (now with 128x192 and its l2k
#     order). Prediction: the heuristic's 128x192 rn_g4_l2k ranks first or
#     within 1% of it.
# (2) the per-tile trace (_dbgtrace) of 128x192 and 128x128 at S1:
#     operand wait, epilogue and de wait per tile. Prediction: 128x192's
#     operand wait per output falls, its de wait rises (epionly 176.7 vs
#     165.5 us in call 98).
# (3) the fast-sigmoid variant (_tanh) at 128x192.
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong
P=${N}_s5_c1x1_pingpong
log timeout 420 $B tune --filter c1x1 --filter pingpong --reps 20 --jobs 16 --shape 16384,768,4608 --db "$O/results/tune-s1-session8.json" --report "$O/results/tune-s1-session8.svg"
grep -vE "^\s*$" $O/logs/$n.txt | grep -v "^\[" | tail -40 | cut -c1-150
log timeout 120 $B bench bwd --reps 20 --shape 16384,768,4608 --name ${Q}_rn_g4_l2k_dbgtrace --name ${P}_rn_g2_l2k_dbgtrace --name ${Q}_rn_g4_l2k \
  --name ${Q}_rn_g4_tanh_l2k --name ${Q}_rn_g4_l2k --json "$O/results"
grep -iE "trace|period|mainloop|wait|^summary|^bwd_" $O/logs/$n.txt | cut -c1-170 | tail -30
cd $O && tar czf logs.tgz logs results && rm -rf logs results

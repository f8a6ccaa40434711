#!/usr/bin/env bash
# Prepared at the end of session 7 for session 8's first call (not yet run;
# the first next-session8.sh ran in session 7 as call 96).
# (1) The data path under the new S1 heuristic (`_rn_g2_l2k`, 233 us in call
#     97): full, nomma, noepi, epionly, and ncu DRAM bytes of nomma. Session
#     7 measured the data path alone at 213-219 us before `_l2k`; the 205 us
#     target needs it well under that. Prediction: nomma ~200-205 us, DRAM
#     reads ~340 MB.
# (2) The whole step with the new backward (`bench mlp --check`): ~1.10x.
# (3) handoff rn_g2 with `_l2k`: still behind ping-pong (its stream alone
#     took 197 us).
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff_rn_g2_l2k
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name ${P}_dbgnomma --name ${P}_dbgnoepi \
  --name ${P}_dbgepionly --name $H --name ${H}_dbgnomma --name $P --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
M=dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
timeout 120 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
  $B verify --name ${P}_dbgnomma --shape 16384,768,4608 2>&1 | grep -E "^\s+(dram|lts|gpu__)" | head -6
log timeout 300 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results"
grep -vE "^\s*$" $O/logs/$n.txt | tail -14 | cut -c1-160
cd $O && tar czf logs.tgz logs results && rm -rf logs results

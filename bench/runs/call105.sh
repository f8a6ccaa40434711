#!/usr/bin/env bash
# Session 8, call 105: grad_de straight from registers at 128x192.
# Run 80: the 128x192 epilogue's shared-memory side costs 47 us at S1, and
# its epilogue (12 us per tile) is the critical path. The debug variant
# pstg (run 66; W_down rows permuted so each lane holds 8 consecutive
# output columns) stores grad_de with 16-byte st.global: no st.shared, no
# TMA store reading the slot, so the epilogue's shared-memory bytes halve.
# At 128x128 it was no faster (mainloop-bound). stg (quad-shuffle
# transposes, no permutation) likewise. Both may keep a few bytes of stack
# (measurement variants: the build check lets them).
# Prediction: pstg 128x192 5-10% faster than 128x192 if shared memory
# bounds that epilogue; equal if the L1/LSU path takes the same toll.
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
log timeout 120 $B verify --name ${Q}_dbgpstg --name ${Q}_dbgstg --shape 300,136,320 --shape 1000,264,1984 --shape 16384,768,4608 --seed 105
grep -E "FAIL|configs x|^ok" $O/logs/$n.txt | cut -c1-160 | tail -8
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --name $Q --name ${Q}_dbgpstg --name ${Q}_dbgstg --name $P --name ${P}_dbgpstg \
  --name $Q --name ${Q}_dbgpstg --json "$O/results"
grep -A8 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

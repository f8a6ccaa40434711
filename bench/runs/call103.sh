#!/usr/bin/env bash
# Session 8, call 103: the bwd_dswiglu epilogue with ldmatrix/stmatrix x4
# (View.EpiMatrix; .bin/m/swigen has it on, .bin/swigen off, same source
# otherwise).
# Why now: call 102 split the 128x192 epilogue: without its shared-memory
# work the kernel takes 178.5 us against 225.2, and its epilogue (12 us per
# tile, call 101) is the critical path, unlike 128x128's (run 38 measured
# ldmatrix 1-2% slower there, when the mainloop was the critical path).
# x4 moves 4 fragments per instruction: 4x fewer shared-memory instructions.
# (1) verify the EpiMatrix kernels on 9 ragged shapes (bf16 128x192, 128x128,
#     training _out, fp16 W_down [K,I]).
# (2) S1, A/B alternating binaries twice; 16384x1536x4608 and the large shape.
# Prediction: 128x192 2-5% faster if instruction issue in the epilogue
# matters; unchanged if its shared-memory bandwidth bounds it.
. "$(dirname "$0")/lib.sh"
M=./.bin/m/swigen
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
T=${N}_s4_c1x1_pingpong_rn_g2_out_l2k
log timeout 200 $M verify --name $Q --name $P --name $T --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_pingpong_bmn --seed 103
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -6
for r in 1 2; do
  for b in $B $M; do
    log timeout 100 $b bench bwd --reps 30 --shape 16384,768,4608 --name $Q --name $P --name $T --json "$O/results/$r$(basename $(dirname $b))"
    echo "$b"; grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
  done
done
for b in $B $M; do
  log timeout 150 $b bench bwd --reps 20 --shape 16384,1536,4608 --shape 8192,4096,14336 --name $Q --json "$O/results/x$(basename $(dirname $b))"
  echo "$b"; grep -A2 "^summary" $O/logs/$n.txt | cut -c1-150
done
cd $O && tar czf logs.tgz logs results && rm -rf logs results

#!/usr/bin/env bash
# Session 7, call 86: fwd_gateup's new inference heuristic (raster n, group 4).
# (1) verify it (and s5) on the built-in ragged shapes against float64.
# (2) bench gateup's default config per shape, previous binary (raster m,
#     group 8) and this one interleaved, S1 and 8192x4096x14336.
#     Prediction: 1.21-1.23x vs 1.18-1.20x at S1; >= 1.0x at the large shape.
# (3) tune at S1, inference, ping-pong 128x128 1x1: the new order should rank
#     first.
. "$(dirname "$0")/lib.sh"
G=fwd_gateup_sm90a_bf16_m128n128k64
log timeout 200 $B verify --kernel fwd_gateup --seed 86
grep -E "FAIL|fail|passed|PASS" $O/logs/$n.txt | tail -4
log timeout 200 $B verify --name ${G}_s5_c1x1_pingpong_rn_g4 --name ${G}_s6_c1x1_pingpong_rn_g4 --seed 87
grep -E "FAIL|fail|passed|PASS" $O/logs/$n.txt | tail -4
for b in ./.bin/prev/swigen $B ./.bin/prev/swigen $B; do
  log timeout 200 $b bench gateup --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results"
  echo "$b"; grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
done
log timeout 250 $B tune --kernel fwd_gateup --shape 16384,768,4608 --filter pingpong --filter c1x1 --filter m128n128 --db $O/tune-gateup.json
grep -B2 -A14 "^config" $O/logs/$n.txt | cut -c1-120
cd $O && tar czf logs.tgz logs results tune-gateup.json && rm -rf logs results

#!/usr/bin/env bash
# Session 7, call 92.
# (1) Every sm_90a catalog after this session's skeleton changes (threads and
#     barrier counts from the view, kDbgEpiOnly, the handoff branches),
#     ragged shapes against float64; sanitizers on the handoff kernel.
# (2) Where the data path's time goes at S1: the epilogue's data stream alone
#     (epionly: no operand loads, no wgmmas), plus operand loads (nomma), plus
#     wgmmas (full), for ping-pong and handoff. Prediction: if DRAM locality
#     of the tile-shaped de/grad_de stream bounds it, epionly ~200 us (604 MB
#     at ~3 TB/s); if it is the operand traffic beside it, epionly ~150 us.
# (3) The state of main: bench bwd's per-shape default at S1 and the large
#     shape.
. "$(dirname "$0")/lib.sh"
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 300 $B verify --kernel $k --catalog --seed 93
  echo $k; grep -E "FAIL|configs x" $O/logs/$n.txt | tail -4
done
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff
for tool in memcheck racecheck; do
  log timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name $H --name ${H}_rn_g2 --shape 300,136,264 --timeout 120s
  tail -3 $O/logs/$n.txt
done
P=${N}_s5_c1x1_pingpong
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name ${P}_dbgnomma --name ${P}_dbgepionly \
  --name ${H}_rn_g2 --name ${H}_rn_g2_dbgnomma --name ${H}_rn_g2_dbgepionly --name ${H}_dbgepionly --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results"
grep -A4 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

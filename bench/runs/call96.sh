#!/usr/bin/env bash
# Session 7, call 96 (prepared as next-session8.sh, run in session 7 after all).
# Run 76 (call 95): ping-pong with raster n group 2 and the operand loads'
# evict_last policy (_rn_g2_dbgl2last) took 238.5 us at S1 against 245.3 for
# the heuristic's config in the same run (operand DRAM re-reads 134 -> 40 MB),
# but 9% slower at K=4096. Before it goes into the heuristic (ping-pong runs
# for K < 2048) it must win at other K < 2048 shapes too.
# Prediction: 1-3% faster at K=768 for M >= 8192 and I >= 4096; neutral or
# slower at K=1536.
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
log timeout 500 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,768,4608 --shape 16384,768,14336 \
  --shape 16384,1536,4608 --shape 32768,1024,4096 --name $P --name ${P}_rn_g2_dbgl2last --name ${P}_rn_g2 --name $P --json "$O/results"
grep -A21 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

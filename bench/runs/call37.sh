#!/usr/bin/env bash
# Device call 37 (session 3): call 36 showed the cooperative 128x256 tile's
# mainloop at 158 us (noepi) against 189 us for 128x128 ping-pong (L2
# throughput 87% in the latter: the K=768 mainloop is bound by operand
# traffic from L2). Cooperative loses today (300 us) because its epilogue
# is not overlapped: with 2 slots per consumer, sub-tiles 2 and 3 of a
# consumer's 4 wait for a DRAM round trip each. With 4 slots (the whole
# 128x256 de tile, 128 KB, prefetched during the mainloop) and 2 operand
# stages, the epilogue only waits on shared memory.
# Prediction: coop 128x256 s2 e64x64s4 <= 230 us (noepi s2 <= 170 us).
. "$(dirname "$0")/lib.sh"
C=bwd_dswiglu_sm90a_bf16_m128n256k64
V="--name ${C}_s2_c1x1_cooperative_e64x64s4 --name ${C}_s2_c1x1_cooperative_e64x64s3 --name bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_cooperative_e64x64s3
 --name ${N}_s3_c1x1_pingpong_e64x64s4 --name ${N}_s4_c1x1_pingpong_e64x64s3 --name ${C}_s2_c1x2_cooperative_e64x64s4 --name ${C}_s2_c1x1_cooperative_rn_g4_e64x64s4_tanh"
run timeout 200 $B verify --seed 43 $V 2>&1 | grep -v "^ok " | tail -10
run timeout 400 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" --name ${N}_s5_c1x1_pingpong $V \
  --name ${C}_s2_c1x1_cooperative_e64x64s4_dbgnoepi 2>&1 | grep -A12 "^summary"
cd "$O" && tar czf results.tgz results && rm -rf results

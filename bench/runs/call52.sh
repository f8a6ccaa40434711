#!/usr/bin/env bash
# Device call 52 (session 4): with the producer storing the results (a457681),
# no consumer waits for a store any more, which also removes the cooperative
# schedule's exposed store waits. Re-time the larger tiles at S1: the
# shared-memory model (NOTES run 41) says 128x256 cooperative moves ~16% fewer
# bytes through shared memory per output than 128x128 ping-pong.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16
run timeout 400 $B bench bwd --reps 20 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong \
  --name ${P}_m128n256k64_s3_c1x1_cooperative --name ${P}_m256n128k64_s3_c1x1_cooperative --name ${P}_m128n192k64_s4_c1x1_cooperative \
  --name ${P}_m128n128k64_s5_c1x1_cooperative --name ${P}_m64n256k64_s4_c1x1_pingpong --name ${P}_m128n256k64_s3_c1x1_cooperative_dbgnoepi \
  --name ${P}_m128n256k64_s3_c1x1_cooperative_rn_g4_tanh > /tmp/b.txt 2>&1
grep -A9 "^summary" /tmp/b.txt | cut -c1-112

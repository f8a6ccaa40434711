#!/usr/bin/env bash
# Device call 28 (session 2): per-tile timeline of the ping-pong bwd kernel
# (_dbgtrace: %globaltimer stamps of CTA 0's consumers, printed per tile).
set -u
export PATH=/usr/local/cuda/bin:$PATH
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong
for v in ${N}_dbgtrace ${N}_rn_g4_tanh_dbgtrace; do
  echo "=== $v"
  timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape 16384,768,4608 --name $v > /tmp/tr.txt 2>&1
  echo "(exit $?)"; grep -c swigen-trace /tmp/tr.txt; grep -A3 "^summary" /tmp/tr.txt
  grep swigen-trace /tmp/tr.txt | tail -24
done

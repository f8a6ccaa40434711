#!/usr/bin/env bash
# Device call 30 (session 2): where the overlapped mainloop waits (operand
# full-barrier time per tile), and a deeper operand ring with a 2-slot
# shared epilogue ring.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 200 $B verify --seed 30 --name ${N}_s6_c1x1_pingpong_rn_g4_e64x64s1_tanh --name ${N}_s6_c1x1_pingpong_e64x64s1 2>&1 | grep -v "^ok " | tail -8
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s6_c1x1_pingpong_rn_g4_e64x64s1_tanh --name ${N}_s6_c1x1_pingpong_e64x64s1 \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s6_c1x1_pingpong_e64x64s1_dbgnoepi --name ${N}_s5_c1x1_pingpong_dbgnomma 2>&1 | grep -A30 "^summary"
for v in ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgtrace ${N}_s6_c1x1_pingpong_rn_g4_e64x64s1_tanh_dbgtrace; do
  echo "=== trace $v"
  timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape 16384,768,4608 --name $v > /tmp/tr.txt 2>&1
  grep swigen-trace /tmp/tr.txt | tail -10
done
cd "$O" && tar czf results.tgz results && rm -rf results

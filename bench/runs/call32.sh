#!/usr/bin/env bash
# Device call 32 (session 2): the kernel as committed: private epilogue rings
# (the shared ring reverted), epilogue loads grouped 4 fragments at a time.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
NAMES="--name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s4_c1x1_pingpong_out
  --name ${N}_s5_c1x1_pingpong_bmn --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong --name ${N}_s5_c1x1_cooperative
  --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x2_pingpong --name fwd_down_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn_res"
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 200 $B verify --seed 33 $NAMES 2>&1 | grep -v "^ok " | tail -12
run timeout 300 $B verify --seed 34 $NAMES --shape "4000,264,3000;3000,776,2056" 2>&1 | grep -v "^ok " | tail -12
bash bench/sanitize.sh 2>&1 | grep -E "===|SUMMARY|exit"
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_tanh 2>&1 | grep -A30 "^summary"
run timeout 300 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results" --name ${N}_s5_c1x1_pingpong_rn_g4_tanh 2>&1 | tail -42
cd "$O" && tar czf results.tgz results && rm -rf results

#!/usr/bin/env bash
# Device call 27 (session 2): shared epilogue ring + lagged slot release in
# the bwd epilogue (A/B against _dbgeagerrel and _dbgprivring), sanitizers,
# and the MLP ledger with cooperative 128x256 gemms and fwd_gateup.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 240 $B verify --seed 28 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name ${N}_s5_c1x1_pingpong_bmn --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong \
  --name ${N}_s4_c1x1_pingpong_e64x64s3 --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x2_pingpong \
  --name ${N}_s4_c1x1_pingpong_out --name ${N}_s5_c1x1_pingpong_dbgeagerrel \
  --name fwd_down_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn_res \
  --name fwd_gateup_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_e64x64s1_out \
  --name fwd_gateup_sm90a_bf16_m256n128k64_s3_c1x1_cooperative_e64x64s1_out 2>&1 | grep -v "^ok " | tail -30
bash bench/sanitize.sh 2>&1 | tail -30
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgeagerrel --name ${N}_s5_c1x1_pingpong_dbgprivring \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s4_c1x1_pingpong_e64x64s3 --name ${N}_s5_c1x2_pingpong \
  --name ${N}_s5_c1x2_pingpong_rn_g4_tanh 2>&1 | grep -A30 "^summary"
run timeout 200 $B bench bwd --reps 20 --shape 8192,4096,14336 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh 2>&1 | grep -A30 "^summary"
run timeout 300 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name fwd_gateup_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_e64x64s1_out --name ${N}_s5_c1x1_pingpong_rn_g4_tanh 2>&1 | tail -45
run timeout 200 $B bench mlp --reps 20 --shape 16384,768,4608 \
  --name fwd_gateup_sm90a_bf16_m256n128k64_s3_c1x1_cooperative_e64x64s1_out 2>&1 | grep -E "fwd gate-up|step|total" | head
cd "$O" && tar czf results.tgz results && rm -rf results

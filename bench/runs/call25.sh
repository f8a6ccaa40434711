#!/usr/bin/env bash
# Device call 25 (session 2): L2 prefetch of the bwd epilogue operands
# (_dbgpf), the epilogue load/store split (_dbgnoload/_dbgnostore), the
# cluster without multicast (_dbgnomc), and the first gemm bench + tune.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64_s5
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 200 $B verify --seed 25 --name ${N}_c1x1_pingpong_dbgpf --name ${N}_c1x1_pingpong_rn_g4_tanh_dbgpf --name ${N}_c2x1_pingpong_dbgnomc 2>&1 | tail -40
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_c1x1_pingpong --name ${N}_c1x1_pingpong_dbgpf \
  --name ${N}_c1x1_pingpong_rn_g4_tanh --name ${N}_c1x1_pingpong_rn_g4_tanh_dbgpf \
  --name ${N}_c1x1_pingpong_dbgnoload --name ${N}_c1x1_pingpong_dbgnostore --name ${N}_c1x1_pingpong_dbgnoepi \
  --name ${N}_c2x1_pingpong --name ${N}_c2x1_pingpong_dbgnomc 2>&1 | tail -30
G=gemm_sm90a_bf16
run timeout 200 $B bench gemm --reps 20 --shape 8192,8192,8192 \
  --name ${G}_m128n128k64_s6_c1x1_pingpong --name ${G}_m128n256k64_s4_c1x1_cooperative \
  --name ${G}_m256n128k64_s4_c1x1_cooperative --name ${G}_m128n256k64_s4_c2x1_cooperative 2>&1 | tail -20
run timeout 300 $B tune --kernel gemm --shape 8192,8192,8192 --reps 20 --db "$O/results/tune_gemm_8192.json" --report "$O/results/tune_gemm_8192.svg" 2>&1 | tail -40

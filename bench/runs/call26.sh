#!/usr/bin/env bash
# Device call 26 (session 2): the shared epilogue-operand ring (ping-pong),
# cluster-scope arrives without MEMBAR.GPU (2x1/1x2 clusters), MN-major 2x1
# re-verified, gemm clusters and the MLP's gemm shapes.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
G=gemm_sm90a_bf16
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 240 $B verify --seed 26 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name ${N}_s5_c1x1_pingpong_bmn --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong \
  --name ${N}_s4_c1x1_pingpong_e64x64s3 --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c2x1_pingpong_bmn \
  --name ${N}_s5_c1x2_pingpong --name bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c2x1_cooperative_bmn 2>&1 | grep -v "^ok " | tail -30
run timeout 200 $B verify --seed 27 --kernel gemm --name ${G}_m128n256k64_s4_c2x1_cooperative_amn_bmn --name ${G}_m128n256k64_s4_c1x2_cooperative_amn_bmn \
  --name ${G}_m128n256k64_s4_c2x1_cooperative --name fwd_down_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn_res \
  --name fwd_down_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_bmn 2>&1 | grep -v "^ok " | tail -30
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgprivring \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s4_c1x1_pingpong_e64x64s3 \
  --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x2_pingpong --name ${N}_s4_c2x1_pingpong_e64x64s3 \
  --name ${N}_s5_c2x1_pingpong_rn_g4_tanh --name bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c2x1_cooperative \
  --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c2x1_pingpong_dbgnoepi 2>&1 | grep -A30 "^summary"
run timeout 200 $B bench gemm --reps 20 --shape 8192,8192,8192 \
  --name ${G}_m128n256k64_s4_c1x1_cooperative --name ${G}_m128n256k64_s4_c2x1_cooperative \
  --name ${G}_m128n256k64_s4_c1x2_cooperative --name ${G}_m256n128k64_s4_c2x1_cooperative --name ${G}_m128n128k64_s6_c2x1_pingpong 2>&1 | grep -E "^gemm|swigen /"
for sh in 4608,768,16384 9216,768,16384; do
run timeout 200 $B bench gemm --reps 20 --shape $sh --name ${G}_m128n256k64_s4_c1x1_cooperative_amn_bmn \
  --name ${G}_m128n256k64_s4_c2x1_cooperative_amn_bmn --name ${G}_m128n128k64_s6_c1x1_pingpong_amn_bmn --name ${G}_m128n128k64_s6_c2x1_pingpong_amn_bmn 2>&1 | grep -E "^gemm|swigen /"
done
run timeout 200 $B bench gemm --reps 20 --shape 16384,768,9216 --name ${G}_m128n256k64_s4_c1x1_cooperative_bmn \
  --name ${G}_m128n256k64_s4_c2x1_cooperative_bmn --name ${G}_m128n128k64_s6_c2x1_pingpong_bmn --name ${G}_m128n128k64_s6_c1x1_pingpong_bmn 2>&1 | grep -E "^gemm|swigen /"
cd "$O" && tar czf results.tgz results && rm -rf results

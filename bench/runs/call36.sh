#!/usr/bin/env bash
# Device call 36 (session 3): is the S1 mainloop bound by L2 -> SM operand
# traffic? At K=768 a 128x128 tile pulls 393 KB of dy/W_down from L2 for
# 25 MFLOP; noepi at 175.9 us moves 1.81 GB, ~10.3 TB/s. If L2 bandwidth is
# the limit, a 2-CTA cluster (multicast: 294 KB per tile) runs noepi faster
# and m64n256 ping-pong (30 B per output vs 24) slower.
# Predictions: noepi c2x1 <= 165 us, noepi m64n256 >= 185 us; ncu L2
# throughput of noepi c1x1 >= 85%.
# Also: our plain gemm at the K=768 MLP shapes (fc1 forward N=2I=9216; the
# bwd dout GEMM N=4608) against cuBLAS, to split fwd_gateup's gap into
# GEMM and fusion. Prediction: within 0.95-1.05x of cuBLAS.
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
run timeout 400 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name $P --name ${P}_dbgnoepi --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c2x1_pingpong_dbgnoepi \
  --name ${N}_s5_c1x2_pingpong_dbgnoepi --name bwd_dswiglu_sm90a_bf16_m64n256k64_s4_c1x1_pingpong_dbgnoepi \
  --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_dbgnoepi --name ${N}_s5_c2x1_pingpong_dbgnomma --name ${P}_dbgnomma 2>&1 | grep -A12 "^summary"
for v in ${P}_dbgnoepi ${N}_s5_c2x1_pingpong_dbgnoepi $P; do
  echo "=== ncu $v"
  timeout 120 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --section SpeedOfLight --section MemoryWorkloadAnalysis \
    $B verify --name $v --shape 16384,768,4608 2>&1 | grep -E "Throughput|Duration|Frequency|Hit Rate|rror" | head -14
done
run timeout 300 $B bench gemm --reps 20 --shape 16384,9216,768 --shape 16384,4608,768 \
  --name gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative --name gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong \
  --name gemm_sm90a_bf16_m64n256k64_s4_c1x1_pingpong 2>&1 | grep -v "^built" | tail -22
cd "$O" && tar czf results.tgz results && rm -rf results

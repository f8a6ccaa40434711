#!/usr/bin/env bash
# Session 7, call 84.
# (1) smemshare's in-flight sweep: do bulk (TMA-path) copies beside wgmma n128
#     get faster with more bytes in flight (latency-bound), or saturate
#     (bandwidth-bound)? Call 83: 64 KB in flight gave 72 B/clk alone and
#     50 B/clk beside wgmma; the fused kernel needs ~45-60 B/clk of operand
#     fill at the wgmma pace. Prediction: latency-bound, rising to >= 65 B/clk
#     beside wgmma at 128-160 KB from L2.
# (2) operand stages against epilogue slots at S1: s6 e64x64s1 (192 KB ring,
#     one de slot per consumer) against s5 (default, 2 slots) and s4 e64x64s3.
#     Prediction: s6 e1 slower (a single slot serializes each consumer's de
#     chain), s4 e3 slower than s5 (run 53).
. "$(dirname "$0")/lib.sh"
( cd bench/micro && nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o /tmp/smemshare smemshare.cu ) && /tmp/smemshare 10000 | tee $O/smemshare.txt
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s6_c1x1_pingpong_e64x64s1 \
  --name ${N}_s4_c1x1_pingpong_e64x64s3 --name ${N}_s5_c1x1_pingpong --name ${N}_s6_c1x1_pingpong_e64x64s1 --json "$O/results"
grep -A6 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

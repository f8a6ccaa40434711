#!/usr/bin/env bash
# Device call 50 (session 4): test the per-SM traffic model. Every S1 variant
# so far moves its bytes at 72-92 GB/s per SM (operands 24 B per output for
# 128x128, de 4 B in, grad_de 4 B out). If that bounds the kernel, halving K
# (half the operand bytes, same epilogue work and bytes) predicts
# 18.3 -> 11.5 MB per SM, ~160 us; if the epilogue's SM work bounds it, the
# time stays near 200+ us. K=1536 predicts ~440 us.
. "$(dirname "$0")/lib.sh"
for s in 16384,384,4608 16384,768,4608 16384,1536,4608; do
  run timeout 200 $B bench bwd --reps 20 --shape $s --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c1x1_pingpong_dbgnosmem > /tmp/b.txt 2>&1
  grep -A4 "^summary" /tmp/b.txt | cut -c1-112
done

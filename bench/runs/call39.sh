#!/usr/bin/env bash
# Device call 39 (session 3): the tile order. Run 31 says the K=768 kernel
# runs at the rate L2 feeds it, and ncu shows an L2 hit rate of 73-75%
# (DRAM moves ~720 MB for a 636 MB minimum). The raster and swizzle group
# decide which dy rows and W_down columns are live at once. Session 2 saw
# rn_g4 ~1% ahead of the default (raster m, group 8). Sweep all 10 orders
# of the default tile at S1 and at 8192x4096x14336.
# Prediction: spread <= 3% at S1; the best within 1% of the default.
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
V="--name $P"
for r in "" _rn; do for g in 1 2 4 8 16; do
  [ -z "$r" ] && [ $g = 8 ] && continue
  if [ $g = 8 ]; then V="$V --name ${P}${r}"; else V="$V --name ${P}${r}_g$g"; fi
done; done
run timeout 400 $B bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results" $V 2>&1 | grep -A22 "^summary"
cd "$O" && tar czf results.tgz results && rm -rf results

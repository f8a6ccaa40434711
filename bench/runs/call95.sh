#!/usr/bin/env bash
# Session 7, call 95. The full ping-pong kernel reads 434 MB from DRAM at S1
# where de is 302 MB: 134 MB are operands the de stream evicted (call 93).
# epionly and nomma both ran DRAM at ~3.35 TB/s, so if DRAM bytes bound the
# data path, keeping dy and W_down in L2 is worth ~40 us of it.
# (1) verify the l2last variant (operand loads with an evict_last policy).
# (2) S1 and 8192x4096x14336: ping-pong and ping-pong rn_g2, each with and
#     without l2last. (3) ncu DRAM bytes for the same.
# Prediction: l2last's DRAM reads drop toward ~330 MB and S1 gets 3-8% faster.
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
log timeout 200 $B verify --name ${P}_dbgl2last --name ${P}_rn_g2_dbgl2last --seed 95
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -4
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P --name ${P}_dbgl2last --name ${P}_rn_g2 --name ${P}_rn_g2_dbgl2last --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
for v in ${P}_dbgl2last ${P}_rn_g2 ${P}_rn_g2_dbgl2last; do
  echo "=== ncu $v"
  timeout 120 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B verify --name $v --shape 16384,768,4608 2>&1 | grep -E "^\s+(sm__|dram|lts|gpu__)|ERR|rror" | head -9
done
cd $O && tar czf logs.tgz logs results && rm -rf logs results

#!/usr/bin/env bash
# Session 7, call 93.
# (1) ncu on one S1 launch each: DRAM and L2 throughput, DRAM bytes, L2 hit
#     rate and SM clock for ping-pong {full, nomma, epionly} and handoff rn_g2
#     {nomma, epionly}. Call 92 measured the epilogue's data stream alone
#     (epionly) at 176.3 us (ping-pong) and 196.9 (handoff), 219.2 / 216.9
#     with the operand loads (nomma). Prediction: epionly DRAM ~75-85% of
#     peak, well under the elementwise kernel's streaming; nomma adds L2
#     traffic, not DRAM bytes.
# (2) ping-pong in raster n group 2 (handoff's nomma gained 6% from it).
# (3) the MLP step check after the skeleton changes.
. "$(dirname "$0")/lib.sh"
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
P=${N}_s5_c1x1_pingpong
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff_rn_g2
for v in $P ${P}_dbgnomma ${P}_dbgepionly ${H}_dbgnomma ${H}_dbgepionly; do
  echo "=== ncu $v"
  timeout 150 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B verify --name $v --shape 16384,768,4608 2>&1 | grep -E "^\s+(sm__|dram|lts|gpu__)|ERR|rror" | head -10
done
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name ${P}_rn_g2 --name ${P}_rn_g2_dbgnomma --name ${P}_rn_g2_dbgepionly --json "$O/results"
grep -A5 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 200 $B bench mlp --check-only --check-shape 300,2048,264
tail -6 $O/logs/$n.txt | cut -c1-160
cd $O && tar czf logs.tgz logs results && rm -rf logs results

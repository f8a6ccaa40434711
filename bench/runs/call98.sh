#!/usr/bin/env bash
# Session 8, call 98: ping-pong with 128x192 tiles (192 fp32 accumulators per
# consumer thread, registers 32/232/232).
# Why: run 61's trace put ping-pong's bound on operand delivery (1.72 us per
# tile waiting for operands), and the micro (run 68) says TMA-path copies
# are bandwidth-bound per SM. A 128x192 tile brings 20 operand bytes per
# output element into each SM instead of 24 (plus 4 of de either way): 14%
# less ingress, for 3% of tail (3072 tiles over 132 SMs).
# (1) verify the new tile on 9 ragged shapes: bf16 rn_g2_l2k, fp16 with
#     W_down [K,I], tanh, training (_out, s3); sanitizers on one small config.
# (2) S1 against the heuristic (128x128 rn_g2_l2k, timed twice), raster
#     orders, stages, and the data path split of both tiles.
# (3) other K=768..1536 shapes, and ncu clocks/bytes of both.
# Prediction: 128x192 correct; S1 215-225 us (vs ~233); nomma below 128x128's.
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
T=${Q}_s4_c1x1_pingpong_rn_g2_l2k
log timeout 200 $B verify --name $T --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_pingpong_bmn --name ${Q}_s4_c1x1_pingpong_rn_g2_tanh_l2k \
  --name ${Q}_s3_c1x1_pingpong_out --seed 98
grep -E "FAIL|configs x" $O/logs/$n.txt | tail -6
for tool in memcheck racecheck; do
  log timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B verify --name $T --shape 300,136,264 --timeout 120s
  tail -2 $O/logs/$n.txt
done
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --name $P --name $T --name ${Q}_s4_c1x1_pingpong_rn_g2 \
  --name ${Q}_s4_c1x1_pingpong --name ${Q}_s4_c1x1_pingpong_rn_g4_l2k --name ${Q}_s3_c1x1_pingpong_rn_g2_l2k --name $P \
  --name ${T}_dbgnomma --name ${T}_dbgnoepi --name ${T}_dbgepionly --name ${P}_dbgnomma --name ${P}_dbgnoepi --name ${P}_dbgepionly \
  --name $T --json "$O/results"
grep -A16 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 200 $B bench bwd --reps 20 --shape 8192,768,4608 --shape 16384,1536,4608 --shape 32768,1024,4096 --name $P --name $T --json "$O/results"
grep -A8 "^summary" $O/logs/$n.txt | cut -c1-150
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
for k in $P $T ${P}_dbgnomma ${T}_dbgnomma; do
  echo "ncu $k"
  timeout 90 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B verify --name $k --shape 16384,768,4608 2>&1 | grep -E "^\s+(sm__|dram|lts|gpu__)|rror" | head -6
done
cd $O && tar czf logs.tgz logs results && rm -rf logs results

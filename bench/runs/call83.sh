#!/usr/bin/env bash
# Session 7, call 83.
# (1) bench/micro/smemshare.cu: do wgmma's shared-memory operand reads share
#     the SM's 128 B/clk with ld.shared, st.shared and bulk-copy (TMA) writes?
#     Prediction if the session-4 budget model holds: wgmma n128 alone ~64-70
#     cycles per instruction (~90 B/clk); with a stream beside it the sum of
#     the two stays at <= ~128 B/clk. If the paths are separate, the stream
#     runs at its own peak and wgmma keeps its rate.
# (2) next-session7.sh: `bench gateup` at S1, its first GPU run. Predictions:
#     inference 1.18-1.20x, training ~1.12x.
# (3) ping-pong 128x128 s5 under 2x1 / 1x2 clusters at S1, not re-timed since
#     session 5's register fixes. Prediction: still 2-5% slower than 1x1.
. "$(dirname "$0")/lib.sh"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
( cd bench/micro && nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o /tmp/smemshare smemshare.cu ) && /tmp/smemshare 10000 | tee $O/smemshare.txt
# next-session7.sh tars and removes $O/logs (logs.tgz); this call's own logs follow in logs2.tgz.
bash "$(dirname "$0")/next-session7.sh"
mkdir -p $O/logs
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c1x1_pingpong --json "$O/results"
grep -A6 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs2.tgz logs results && rm -rf logs

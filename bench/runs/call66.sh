#!/usr/bin/env bash
# Device call 66 (session 5). Ping-pong nomma (operand ring + epilogue, no
# wgmma) takes 217 us at S1 (call 63): the epilogue's data path runs at
# ~2.9 TB/s, 69% of the copy bandwidth. Hypothesis: too few de bytes in
# flight (2 slots of 16 KB per consumer). Deeper epilogue rings traded for
# operand stages, S1, in one run (sessions 2-3 found no gain from this on
# older kernels; the producer now also stores, so it is measured again).
. "$(dirname "$0")/lib.sh"
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s4_c1x1_pingpong_e64x64s3 \
  --name ${N}_s3_c1x1_pingpong_e64x64s4 --name ${N}_s4_c1x1_pingpong_rn_g4_e64x64s3_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name ${N}_s5_c1x1_pingpong_dbgnomma --name ${N}_s4_c1x1_pingpong_e64x64s3_dbgnomma
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-120
cd $O && tar czf logs.tgz logs && rm -rf logs

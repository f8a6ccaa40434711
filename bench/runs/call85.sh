#!/usr/bin/env bash
# Session 7, call 85.
# (1) bwd at S1, the current revision, same run: the full ping-pong kernel
#     against its own parts, no wgmma (nomma: every byte of the data path,
#     the epilogue math, no tensor work) and no epilogue (noepi), also for
#     c1x2 (dy multicast) and the overlap 128x192. Prediction: nomma ~217 us
#     (run 55) -- above the 205 us target on its own.
# (2) fwd_gateup raster order: call 83 had rn_g4 at 1.23x vs 1.20x (inference,
#     S1). Same question for training (_out) and at 8192x4096x14336, before
#     the heuristic takes it. Prediction: rn_g4 1-3% faster at S1 in both
#     modes; at the large shape within 2% either way.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnomma \
  --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c1x2_pingpong_dbgnomma --name ${N}_s5_c1x2_pingpong_dbgnoepi \
  --name ${P} --name ${P}_dbgnomma --name ${P}_dbgnoepi --name ${N}_s5_c1x1_pingpong_rn_g4 --json "$O/results"
grep -A10 "^summary" $O/logs/$n.txt | cut -c1-150
G=fwd_gateup_sm90a_bf16_m128n128k64
log timeout 300 $B bench gateup --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${G}_s5_c1x1_pingpong --name ${G}_s5_c1x1_pingpong_rn_g4 \
  --name ${G}_s5_c1x1_pingpong_rn --json "$O/results"
grep -A8 "^summary" $O/logs/$n.txt | cut -c1-150
log timeout 300 $B bench gateup --store-out --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${G}_s4_c1x1_pingpong_out \
  --name ${G}_s4_c1x1_pingpong_rn_g4_out --name ${G}_s4_c1x1_pingpong_rn_out --json "$O/results"
grep -A8 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

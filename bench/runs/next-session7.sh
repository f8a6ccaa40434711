#!/usr/bin/env bash
# Prepared at the end of session 6 (its device budget ran out first): a
# first call for session 7. `swigen bench gateup` is new and has not run on
# a GPU yet; its timing path is mlp.BenchFwdGateUp, which tune and bench mlp
# use. fwd_gateup at S1, in inference (out only) and training (de too),
# against cuBLAS + the SwiGLU elementwise kernel, 1.2x the target.
# Session 4 measured inference at 1.19-1.20x, session 6 training at 1.12x.
# Predictions: inference 1.18-1.20x (s5/s6), rn_g4 within 1%; training ~1.12x.
. "$(dirname "$0")/lib.sh"
G=fwd_gateup_sm90a_bf16_m128n128k64
log timeout 300 $B bench gateup --reps 30 --shape 16384,768,4608 --name ${G}_s5_c1x1_pingpong --name ${G}_s6_c1x1_pingpong \
  --name ${G}_s5_c1x1_pingpong_rn_g4 --name ${G}_s6_c1x1_pingpong_rn_g4 --json "$O/results"
grep -A8 "^summary" $O/logs/$n.txt | cut -c1-140
log timeout 200 $B bench gateup --store-out --reps 30 --shape 16384,768,4608 --json "$O/results"
grep -E "config|^swigen|^baseline|speedup" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs results && rm -rf logs

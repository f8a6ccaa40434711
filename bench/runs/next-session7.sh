#!/usr/bin/env bash
# Prepared at the end of session 6 (its device budget ran out before it ran):
# a first call for session 7. fwd_gateup in inference mode
# (out only) at S1, the 128x128 ping-pong candidates, through tune (each
# candidate timed with the cuBLAS GEMM + elementwise baseline in its run).
# Session 4 measured 1.19-1.20x for s5. Prediction: 1.18-1.20x again.
. "$(dirname "$0")/lib.sh"
log timeout 200 $B tune --kernel fwd_gateup --shape 16384,768,4608 --filter m128n128k64_s --filter c1x1_pingpong --reps 30 --db "$O/tune-fwd-infer.json"
tail -12 $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs && rm -rf logs

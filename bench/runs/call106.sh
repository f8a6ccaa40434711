#!/usr/bin/env bash
# Session 8, call 106: does tune agree with the new heuristic where call 101
# did not look? (1) 8192x4096x14336, 1x1 ping-pong and overlap candidates
# (heuristic: ping-pong 128x192 s4, default order). (2) S1 training
# (--store-out), 1x1 ping-pong (heuristic: 128x128 s4 rn_g2_out_l2k).
# Prediction: the heuristic first or within 1% in both.
. "$(dirname "$0")/lib.sh"
log timeout 330 $B tune --filter c1x1 --filter m128 --reps 20 --jobs 16 --shape 8192,4096,14336 --db "$O/results/tune-large-session8.json" --report "$O/results/tune-large-session8.svg"
grep -E "^(bwd_|winner|heuristic|this run|config)" $O/logs/$n.txt | cut -c1-150 | head -24
log timeout 200 $B tune --store-out --filter c1x1 --filter pingpong --filter m128 --reps 20 --jobs 16 --shape 16384,768,4608 --db "$O/results/tune-s1-train-session8.json" --report "$O/results/tune-s1-train-session8.svg"
grep -E "^(bwd_|winner|heuristic|this run|config)" $O/logs/$n.txt | cut -c1-150 | head -16
cd $O && tar czf logs.tgz logs results && rm -rf logs results

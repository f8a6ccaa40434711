#!/usr/bin/env bash
# Session 6, call 82: bench bwd's default now takes the heuristic's config
# per shape (call 81 timed 8192x4096x14336 with S1's ping-pong pick).
# Prediction: S1 runs ping-pong (~244 us), the large shape the overlap
# schedule (~1390 us, 1.07-1.10x).
. "$(dirname "$0")/lib.sh"
log timeout 250 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --json "$O/results"
grep -A4 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs && rm -rf logs

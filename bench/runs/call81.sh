#!/usr/bin/env bash
# Session 6, call 81: the state of main for the README (final revision of
# the session). The heuristic config per shape (S1: ping-pong 128x128 s5;
# 8192x4096x14336: overlap 128x192 s4), and the whole step with its check.
# Prediction: S1 ~243 us (1.42x), large ~1390 us (1.08-1.10x); step at S1
# 1.09-1.10x.
. "$(dirname "$0")/lib.sh"
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --json "$O/results"
log timeout 200 $B bench bwd --reps 30 --shape 8192,4096,14336 --json "$O/results"
for i in 1 2; do grep -E "config|^swigen|^baseline|speedup|^floor|^ceilings" $O/logs/$i.txt | cut -c1-150; done
log timeout 300 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results"
grep -E "PASS|FAIL|^\*|speedup|implementation|^fwd|^bwd|totals" $O/logs/$n.txt | cut -c1-150 | tail -30
cd $O && tar czf logs.tgz logs && rm -rf logs

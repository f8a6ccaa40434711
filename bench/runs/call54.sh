#!/usr/bin/env bash
# Device call 54 (session 4): the committed state (a457681: producer-stored
# bwd results, stmatrix staging in the store-only epilogues) end to end:
# bench mlp --check at S1 (the ledger), bench bwd, the GPU test binaries.
. "$(dirname "$0")/lib.sh"
run timeout 200 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results" > /tmp/m.txt 2>&1
grep -E "check|speedup|FAIL|rror|^  *(fwd|bwd|dW|dx|gemm)" /tmp/m.txt | cut -c1-150 | tail -16
run timeout 150 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh > /tmp/b.txt 2>&1
grep -A3 "^summary" /tmp/b.txt | cut -c1-150
cp /tmp/m.txt "$O/mlp.txt"

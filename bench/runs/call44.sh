#!/usr/bin/env bash
# Device call 44 (session 3): after the clean-up refactors (check's staged
# runs, one output comparison in bench, launch.Helper for the helper
# kernels, tiling.SpaceStoreOut for tune --store-out), everything they touch
# runs again: verify of all four kinds, the GPU test binaries (naive
# reference, baselines), bench bwd/gemm, bench mlp --check, a short
# fwd_gateup --store-out tune.
. "$(dirname "$0")/lib.sh"
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  run timeout 150 $B verify --kernel $k --catalog --seed 48 2>&1 | grep -v "^ok \|^built" | tail -3
done
run timeout 100 $B bench bwd --reps 20 --shape 16384,768,4608 2>&1 | grep -A2 "^summary"
run timeout 100 $B bench gemm --reps 20 --shape 4096,4096,4096 2>&1 | grep -E "speed" | tail -2
run timeout 150 $B bench mlp --check --reps 20 --shape 16384,768,4608 2>&1 | grep -E "check|speedup|FAIL|rror" | tail -6
run timeout 150 $B tune --kernel fwd_gateup --store-out --max 2 --db "$O/tune_confirm.json" 2>&1 | grep -E "^fwd|ok|wrong|fault|^winner" | tail -5
bash bench/gpu_tests.sh 2>&1 | grep -E "===|passed"

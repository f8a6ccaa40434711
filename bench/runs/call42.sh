#!/usr/bin/env bash
# Device call 42 (session 3): confirmation at the final revision. Every
# catalog config of the four kinds against float64, the GPU test binaries,
# and the bench/tune paths the fwd_gateup-tune change refactored (BenchBwd,
# BenchGemm, the tune worker for bwd and gemm, the DB key with StoreOut).
. "$(dirname "$0")/lib.sh"
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  run timeout 150 $B verify --kernel $k --catalog --seed 47 2>&1 | grep -v "^ok \|^built" | tail -4
done
run timeout 100 $B bench gemm --reps 20 --shape 4096,4096,4096 2>&1 | grep -E "swigen|cuBLAS" | tail -4
run timeout 150 $B tune --kernel gemm --shape 4096,4096,4096 --max 2 --db "$O/results/tune_confirm.json" 2>&1 | grep -E "^gemm|^winner|^heuristic|ok|wrong|fault" | tail -6
run timeout 150 $B tune --max 2 --db "$O/results/tune_confirm.json" 2>&1 | grep -E "^bwd|^winner|^heuristic|ok|wrong|fault" | tail -6
bash bench/gpu_tests.sh 2>&1 | tail -9
cd "$O" && tar czf results.tgz results gpu_test_*.txt 2>/dev/null; rm -rf results

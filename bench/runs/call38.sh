#!/usr/bin/env bash
# Device call 38 (session 3): (1) the fwd_down residual epilogue loads 8
# residual words, then adds, then stores (was one lds->add->sts chain per
# fragment): verify the fwd_down catalog against float64 first. (2) The new
# `tune --kernel fwd_gateup` sweeps, training (--store-out: de kept for the
# backward) and inference. (3) bench mlp with the winners.
# Predictions: fwd_down with residual >= 1.02x cuBLAS (was 0.99-1.00x);
# the fwd_gateup training winner stays near 1.11x (the tile that wins the
# plain gemm is cooperative 128x256, whose epilogue is not overlapped);
# inference >= 1.19x (helper run: ping-pong 128x128 s6 354 us vs 422).
. "$(dirname "$0")/lib.sh"
run timeout 150 $B verify --kernel fwd_down --catalog --seed 44 2>&1 | grep -v "^ok " | tail -6
run timeout 280 $B tune --kernel fwd_gateup --store-out --shape 16384,768,4608 --db "$O/results/tune_fwd_gateup_S1.json" --report "$O/results/tune_fwd_gateup_train_S1.svg" 2>&1 | grep -v "^\[" | tail -42
run timeout 100 $B tune --kernel fwd_gateup --filter c1x1 --filter pingpong --shape 16384,768,4608 --db "$O/results/tune_fwd_gateup_S1.json" --report "$O/results/tune_fwd_gateup_infer_S1.svg" 2>&1 | grep -v "^\[" | tail -20
run timeout 110 $B bench mlp --reps 20 --shape 16384,768,4608 --json "$O/results" 2>&1 | grep -v "^built" | tail -24
cd "$O" && tar czf results.tgz results && rm -rf results

#!/usr/bin/env bash
# Runs the -tags gpu test binaries (runtime/cu; lab/ref, baseline, check)
# on the GPU machine and saves their verbose logs under $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
for d in runtime/cu lab/ref lab/baseline lab/check; do
  t=${d#*/}
  echo "=== $t.test"
  (cd $d && timeout 300 ../../.bin/$t.test -test.v -test.count=1) > "$OUT/gpu_test_$t.txt" 2>&1
  echo "exit $?"; grep -E "^(--- FAIL|FAIL|PASS|ok)" "$OUT/gpu_test_$t.txt" | tail -3
  echo "$(grep -c -- '--- PASS' "$OUT/gpu_test_$t.txt") passed, $(grep -c -- '--- FAIL' "$OUT/gpu_test_$t.txt") failed, $(grep -c -- '--- SKIP' "$OUT/gpu_test_$t.txt") skipped"
done

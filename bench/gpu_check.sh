#!/usr/bin/env bash
# One device call: GPU unit tests, swigen verify on the sm_90a configs, and
# swigen bench bwd at the seed shapes. Run from the repo root on the GPU
# machine with the CGO_ENABLED=0 binaries built into .bin/ (carry .bin).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT/results"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
STEP=${STEP:-all}
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
if [[ $STEP == all || $STEP == tests ]]; then
  run ./.bin/swigen doctor
  for t in ref baseline; do [ -x .bin/$t.test ] && run timeout 300 ./.bin/$t.test -test.v -test.count=1 2>&1 | grep -E "^(=== RUN|--- |PASS|FAIL|ok)|rel|err" | tail -40; done
fi
if [[ $STEP == all || $STEP == verify ]]; then
  run timeout 400 ./.bin/swigen verify --seed ${SEED:-1} ${VERIFY_ARGS:-} 2>&1 | tee "$OUT/verify.txt"
fi
if [[ $STEP == all || $STEP == bench ]]; then
  run timeout 400 ./.bin/swigen bench bwd ${BENCH_ARGS:-} --json "$OUT/results" 2>&1 | tee "$OUT/bench.txt"
fi
(cd "$OUT" && tar czf results.tgz results && rm -rf results)

#!/usr/bin/env bash
# One device call: GPU unit tests, swigen verify on the sm_90a configs, and
# swigen bench bwd at the seed shapes. Run from the repo root on the GPU
# machine with the CGO_ENABLED=0 binaries built into .bin/ (carry .bin).
# STEP picks one part: tests, verify, catalog (verify --catalog of every
# kind), probes (each probe on the heuristic config: trace verified and
# timed, hang trapped, tune's hang test), bench; all runs every part.
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
if [[ $STEP == all || $STEP == catalog ]]; then
  for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
    run timeout 400 ./.bin/swigen verify --kernel $k --catalog --seed ${SEED:-1} 2>&1 | tee "$OUT/catalog-$k.txt" | grep -E "FAIL|failed|^seed"
  done
fi
if [[ $STEP == all || $STEP == probes ]]; then
  S=--shape=1000,768,1000
  run timeout 120 ./.bin/swigen verify --probe trace $S --shape 300,2048,264 --seed ${SEED:-1}
  echo "(the hang probe must trap and verify must exit 1)"
  run timeout 120 ./.bin/swigen verify --probe hang $S --timeout 20s
  run timeout 200 ./.bin/swigen bench bwd --probe trace --reps 20 --shape 16384,768,4608
  for p in noepi nomma; do run timeout 200 ./.bin/swigen bench bwd --probe $p --reps 20 --shape 16384,768,4608 2>&1 | grep -E "x  floor|speedup|us"; done
  run timeout 300 ./.bin/swigen tune --include-hang-test --filter pingpong --filter c1x1 --max 2 --db "$OUT/tune-hang.json" --timeout 60s
fi
if [[ $STEP == all || $STEP == bench ]]; then
  run timeout 400 ./.bin/swigen bench bwd ${BENCH_ARGS:-} --json "$OUT/results" 2>&1 | tee "$OUT/bench.txt"
fi
(cd "$OUT" && tar czf results.tgz results && rm -rf results)

#!/usr/bin/env bash
# Device call 34 (session 2): the committed kernels end to end: the catalog
# of every kind verified, the generated Go launchers, and a fresh S1 sweep
# with clusters back in the tuning space.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results/tune"
B=./.bin/swigen
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  run timeout 150 $B verify --seed 35 --kernel $k --catalog 2>&1 | grep -E "^FAIL|^seed|rror" | tail -6
done
run timeout 150 ./.bin/tests.test -test.run GeneratedBindings -test.v 2>&1 | grep -E "^(=== RUN|--- |PASS|FAIL|ok)|rel" | tail -12
run timeout 330 $B tune --shape 16384,768,4608 --reps 20 --jobs 12 --db "$O/results/tune/tune-S1-session2.json" \
  --report "$O/results/tune/tune-S1-session2.svg" 2>&1 | grep -v "^\[" | tail -45
cd "$O" && tar czf results.tgz results && rm -rf results

#!/usr/bin/env bash
# One device call (carry .bin/swigen and .bin/check.test, no wheels): the
# grouped forward (moe_fwd_gateup, Go's event timing) and its
# peers at the Go timing's shapes (bench/moe_perf.sh, uniform routing, the
# per-expert loop eager and graphed and torch._grouped_mm), then
# `swigen tune --kernel gemm` at the suite's K-major step GEMMs (the
# unfused paths' gate-up and dout GEMMs; bench/gemm_table.sh's KK list),
# one shape after another until DEADLINE seconds have passed, into
# $OUT/tune-gemm-kk.json. Short table last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
START=$(date +%s)
(cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' timeout 90 ../../.bin/check.test -test.v -test.count=1 -test.run 'TestGPUMoETiming$') >"$OUT/moe-time.log" 2>&1
grep -o 'TIME .*' "$OUT/moe-time.log"
TESTS=${TESTS:-1} PEERS=${PEERS:-loop,loopgraph,grouped,swigen} ROUTINGS=uniform LIMIT=${MOE_LIMIT:-170} \
  bash bench/moe_perf.sh >"$OUT/moe-perf.log" 2>&1
echo "moe_perf: exit $? in $(( $(date +%s) - START )) s"
KK=$(sed -n 's/^KK="\(.*\)"$/\1/p' bench/gemm_table.sh)
n=0
for s in $KK; do
  (( $(date +%s) - START > ${DEADLINE:-420} )) && { echo "deadline: stopped after $n shapes"; break; }
  ./.bin/swigen tune --kernel gemm --shape "$s" --db "$OUT/tune-gemm-kk.json" --screen-keep 2 --reps 30 --warmup 100ms \
    >>"$OUT/tune-gemm-kk.log" 2>&1 || echo "tune $s: exit $?"
  n=$((n+1))
done
echo "tuned $n gemm shapes in $(( $(date +%s) - START )) s"
grep -E "winner|speedup" "$OUT/tune-gemm-kk.log" | tail -40 | cut -c1-160
tail -25 "$OUT/moe-perf.log"

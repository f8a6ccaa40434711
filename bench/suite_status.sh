#!/usr/bin/env bash
# One device call for where the engine stands (carry .bin/swigen): the four
# fused variants over the suite (fused, unfused and baseline in one run,
# bench/plan_check.sh), the dispatch plan at shapes outside the suite that
# no tuning saw (OFF), and the heuristic gemm against cuBLAS at the
# issue's gemm shapes (GEMMS). Logs under $OUT, the JSON records packed
# into $OUT/records.tgz (the transfer back takes a bounded number of
# files); a short table last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT/off" "$OUT/gemm"
SW=./.bin/swigen
VERIFY=0 BENCH_LIMIT=${BENCH_LIMIT:-110} bash bench/plan_check.sh >"$OUT/plan.log" 2>&1
for s in ${OFF:-6144,5120,13824 16384,2048,5632 32768,4096,1792 1024,4096,11008 3000,2048,5632 12288,3584,18944}; do
  for k in bwd gateup; do
    timeout 60 $SW bench $k --shape "$s" --reps 30 --json "$OUT/off" >"$OUT/off/$k-$s.log" 2>&1
    echo "off $k $s: $(grep -E 'plan|speedup over' "$OUT/off/$k-$s.log" | tr -s ' ' | tr '\n' ' ' | cut -c1-200)"
  done
done >"$OUT/off.log"
for s in ${GEMMS:-2048,7168,4096 4096,7168,4096 8192,8192,8192 16384,9216,768 8192,28672,4096 4096,14336,4096 8192,3584,8192}; do
  timeout 60 $SW bench gemm --shape "$s" --reps 30 >"$OUT/gemm/$s.log" 2>&1
  echo "gemm $s: $(grep -iE 'speedup|cublas' "$OUT/gemm/$s.log" | tail -2 | tr -s ' ' | tr '\n' ' ' | cut -c1-200)"
done >"$OUT/gemm.log"
tar czf "$OUT/records.tgz" -C "$OUT" off gemm $(cd "$OUT" && ls -d plan-* 2>/dev/null) && rm -rf "$OUT"/off "$OUT"/gemm "$OUT"/plan-*
tail -8 "$OUT/plan.log"; cat "$OUT/off.log" "$OUT/gemm.log"

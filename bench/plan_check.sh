#!/usr/bin/env bash
# One device call for the dispatch plan (carry .bin/, built by bench/build.sh):
# verify of both paths (fused and unfused) on the ragged shapes and one
# large shape, for the catalog's bwd_dswiglu and fwd_gateup configs; then
# bench --suite of the four variants, which times the fused kernel, the
# unfused path (swigen gemm + elementwise) and the baseline in one run,
# records under $OUT/plan-<variant>/ (VARIANTS picks some).
# Prints a short table last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
summary=()
timed() { # timed LABEL CMD...: runs CMD, logs to $OUT/LABEL.log, records wall, exit and the verdict lines
  local label=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" >"$OUT/$label.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  summary+=("$(printf '%-16s wall %6.1fs exit %d  %s' "$label" "$(awk "BEGIN{print $t1 - $t0}")" "$rc" "$(grep -E 'failed$|speedup over' "$OUT/$label.log" | tr '\n' ' ' | cut -c1-220)")")
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [[ ${VERIFY:-1} == 1 ]]; then
  timed verify-bwd $SW verify --catalog --kernel bwd_dswiglu
  timed verify-fwd $SW verify --catalog --kernel fwd_gateup
  timed verify-large $SW verify --kernel bwd_dswiglu --shape 8192,8192,3584 --shape 2048,4096,3584
  timed verify-large-fwd $SW verify --kernel fwd_gateup --shape 2048,4096,3584
  grep -E "^FAIL" "$OUT"/verify-*.log | head -20
fi
for v in ${VARIANTS:-bwd bwd-out fwd fwd-out}; do
  case $v in
    bwd) b=(bwd) ;;
    bwd-out) b=(bwd --store-out) ;;
    fwd) b=(gateup) ;;
    fwd-out) b=(gateup --store-out) ;;
  esac
  mkdir -p "$OUT/plan-$v"
  timed bench-$v timeout ${BENCH_LIMIT:-240} $SW bench "${b[@]}" --suite --reps 30 --json "$OUT/plan-$v"
  grep -E "unfused .* plan" "$OUT/bench-$v.log" | awk '{print $2, $(NF-2), $(NF-1), $NF}' | head -20
done
echo
printf '%s\n' "${summary[@]}"

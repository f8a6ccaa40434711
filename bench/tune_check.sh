#!/usr/bin/env bash
# One device call for swigen tune (carry .bin/, built by bench/build.sh):
#   STEP=speed  the default tune at the seed shape with a cold and a warm
#               build cache, the same with --exhaustive (same winner?), an
#               interrupted tune (provisional best), and the hang test;
#   STEP=suite  tune --suite for the VARIANTS given (default: all four),
#               each into $WORK/suite-<variant>.json (TUNE_ARGS adds
#               flags), then bench --suite --tuned with that DB, records
#               under $WORK/bench-<variant>;
#   STEP=fast   the default tune at the seed shape once, verbose (where
#               each job's time goes).
# Prints a short table last; the DBs and logs land in $WORK (default /tmp/swigen-tune), packed into $OUT/tune.tgz.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
W=${WORK:-/tmp/swigen-tune}
mkdir -p "$W"
STEP=${STEP:-speed}
SW=./.bin/swigen
summary=()
timed() { # timed LABEL CMD...: runs CMD, logs to $W/LABEL.log, records wall and exit
  local label=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" >"$W/$label.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  summary+=("$(printf '%-22s wall %7.1fs exit %d  %s' "$label" "$(awk "BEGIN{print $t1 - $t0}")" "$rc" "$(grep -E '^winner|^suite:|provisional' "$W/$label.log" | head -1 | cut -c1-120)")")
  tail -n 25 "$W/$label.log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [[ $STEP == speed ]]; then
  S=16384,768,4608
  timed tune-cold   $SW tune --shape $S --db "$W/cold.json"
  timed tune-warm   $SW tune --shape $S --db "$W/warm.json"
  timed tune-exhaus $SW tune --shape $S --db "$W/exhaustive.json" --exhaustive
  timed tune-intr   timeout -s INT 12 $SW tune --shape 8192,8192,7168 --db "$W/interrupted.json"
  timed tune-hang   $SW tune --include-hang-test --filter pingpong --filter c1x1 --max 2 --db "$W/hang.json" --timeout 60s
  ls -la "$W"
fi
if [[ $STEP == fast ]]; then
  timed tune-default $SW tune --shape 16384,768,4608 --db "$W/default.json" -v
  grep -E "tune-worker:" "$W/tune-default.log" | head -8
fi
if [[ $STEP == suite ]]; then
  for v in ${VARIANTS:-bwd bwd-out fwd fwd-out}; do
    case $v in
      bwd) a=(--kernel bwd_dswiglu); b=(bwd) ;;
      bwd-out) a=(--kernel bwd_dswiglu --store-out); b=(bwd --store-out) ;;
      fwd) a=(--kernel fwd_gateup); b=(gateup) ;;
      fwd-out) a=(--kernel fwd_gateup --store-out); b=(gateup --store-out) ;;
    esac
    timed suite-$v timeout ${VARIANT_LIMIT:-400} $SW tune --suite "${a[@]}" --db "$W/suite-$v.json" ${TUNE_ARGS:-}
    mkdir -p "$W/bench-$v"
    timed bench-$v timeout ${BENCH_LIMIT:-200} $SW bench "${b[@]}" --suite --tuned "$W/suite-$v.json" --json "$W/bench-$v"
  done
fi
tar czf "$OUT/tune.tgz" -C "$(dirname "$W")" "$(basename "$W")"
echo
printf '%s\n' "${summary[@]}"

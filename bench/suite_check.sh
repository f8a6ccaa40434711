#!/usr/bin/env bash
# One device call for the heuristic over the model-shape suite (carry
# .bin/, built by bench/build.sh): bench --suite of the four variants with
# the heuristic's configs (--json records), shapes outside the suite with
# the heuristic's config and then the rules' (tiling.RuleHeuristic, given
# in OFF_SUITE as SHAPE:BWD_RULE_CONFIG:GATEUP_RULE_CONFIG, "-" where the
# rules agree), and verify of the heuristic's configs. Logs and records go
# to $WORK (default /tmp/swigen-suite), packed into $OUT/suite.tgz; a short
# table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
W=${WORK:-/tmp/swigen-suite}
mkdir -p "$W" "$OUT"
SW=./.bin/swigen
summary=()
step() { # step LABEL CMD...: logs to $W/LABEL.log, keeps the speedup line
  local label=$1; shift
  "$@" >"$W/$label.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-26s exit %d  %s' "$label" "$rc" "$(grep -E '^speedup|^(bwd|fwd)_.*x  floor|FAIL|PASS|passed|failed' "$W/$label.log" | tail -1 | cut -c1-150)")")
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for v in bwd bwd-out fwd fwd-out; do
  case $v in
    bwd) b=(bwd) ;;
    bwd-out) b=(bwd --store-out) ;;
    fwd) b=(gateup) ;;
    fwd-out) b=(gateup --store-out) ;;
  esac
  mkdir -p "$W/suite-$v"
  step suite-$v timeout 200 $SW bench "${b[@]}" --suite --json "$W/suite-$v"
done
for e in ${OFF_SUITE:-}; do
  IFS=: read -r shape rb rg <<<"$e"
  mkdir -p "$W/off"
  step "off-bwd-$shape" timeout 60 $SW bench bwd --shape "$shape" --json "$W/off"
  [[ $rb != - ]] && step "off-bwd-$shape-rule" timeout 60 $SW bench bwd --shape "$shape" --name "$rb" --json "$W/off"
  step "off-gateup-$shape" timeout 60 $SW bench gateup --shape "$shape" --json "$W/off"
  [[ $rg != - ]] && step "off-gateup-$shape-rule" timeout 60 $SW bench gateup --shape "$shape" --name "$rg" --json "$W/off"
done
for k in bwd_dswiglu fwd_gateup; do
  step verify-$k timeout 120 $SW verify --kernel $k --seed ${SEED:-1}
done
tar czf "$OUT/suite.tgz" -C "$(dirname "$W")" "$(basename "$W")"
echo
printf '%s\n' "${summary[@]}"

#!/usr/bin/env bash
# One device call (carry .bin/, from bash bench/build.sh): swigen tune on the
# grouped kinds at the two expert shapes of the ring-depth A/B
# (docs/PERFORMANCE.md#moe-training-forward-and-grouped-backward), ping-pong
# 128x128 at every ring depth that fits (k64 s3..s6, k128 s2/s3), each
# candidate verified on the grouped routings, then timed against the
# per-expert cuBLAS loop + elementwise baseline at the shape:
#   Qwen3-30B-A3B  T=65536 K=2048 I=768  E=128
#   DeepSeek-V3    T=32768 K=7168 I=2048 E=256
# for moe_fwd_gateup (inference, training), moe_bwd_dswiglu (with and without
# out) and moe_gemm (the down projection: M,N,K = T,K,I of the layer).
# ROUTING (uniform|zipf, default uniform), KINDS (default all five variants),
# FILTER (default m128n128k; e.g. 'k128' for the k128 rings only) and MAX (per
# tune, default 0: all) narrow it. A tune is skipped once 480 s have gone.
# The DBs land in $OUT/moe-tune-*.json; the table (tune table) prints last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
ROUTING=${ROUTING:-uniform}
FILTER=${FILTER:-m128n128k}
MAX=${MAX:-0}
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
fail=0
for v in ${KINDS:-fwd fwd-out bwd bwd-out gemm}; do
  case $v in
    fwd) a=(--kernel moe_fwd_gateup) ;;
    fwd-out) a=(--kernel moe_fwd_gateup --store-out) ;;
    bwd) a=(--kernel moe_bwd_dswiglu) ;;
    bwd-out) a=(--kernel moe_bwd_dswiglu --store-out) ;;
    gemm) a=(--kernel moe_gemm) ;;
    *) echo "unknown variant $v"; exit 2 ;;
  esac
  for model in qwen3 dsv3; do
    case $model in
      qwen3) s=65536,2048,768,128 ;;
      dsv3) s=32768,7168,2048,256 ;;
    esac
    if (( $(date +%s) - start > 480 )); then echo "skip $v $model: 480 s gone"; continue; fi
    db="$OUT/moe-tune-$v-$model-$ROUTING.json"
    if timeout 300 $SW tune --arch sm_90a "${a[@]}" --shape "$s" --routing "$ROUTING" --filter "$FILTER" --max "$MAX" \
        --screen-keep 0 --timeout 90s --db "$db" >"$OUT/moe-tune-$v-$model.log" 2>&1; then
      echo "== $v $model ($s, $ROUTING): $(grep -m1 '^winner' "$OUT/moe-tune-$v-$model.log" | cut -c1-160)"
    else
      echo "== $v $model: exit $? ($(tail -1 "$OUT/moe-tune-$v-$model.log" | cut -c1-160))"; fail=1
    fi
    grep -E "moe_(fwd|bwd|gemm)_sm90a" "$OUT/moe-tune-$v-$model.log" | head -14
  done
done
echo "== measured rows (swigen tune table), $(( $(date +%s) - start )) s"
$SW tune table "$OUT"/moe-tune-*.json || fail=1
exit $fail

#!/usr/bin/env bash
# One device call: swigen's plain gemm against cuBLAS at the GEMMs of the
# unfused path (carry .bin/, built by bench/build.sh).
#   SHAPES  gemm sizes M,N,K, space-separated (default: the dout and
#           de GEMMs of the suite shapes where fusion loses)
#   NAMES   gemm configs, space-separated (default: the cooperative and
#           ping-pong candidates that win the fused kinds)
# Prints one line per (shape, config) last: swigen us, cuBLAS us, ratio.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
W=${WORK:-/tmp/swigen-gemm}
mkdir -p "$W" "$OUT"
SW=./.bin/swigen
SHAPES=${SHAPES:-"8192,3584,8192 4096,2048,7168 2048,7168,4096 4096,14336,4096 8192,7168,8192 4096,18944,3584 4096,4096,7168"}
NAMES=${NAMES:-"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong gemm_sm90a_bf16_m128n256k64_s4_c2x1_cooperative gemm_sm90a_bf16_m256n128k64_s4_c1x2_cooperative"}
args=()
for n in $NAMES; do args+=(--name "$n"); done
for s in $SHAPES; do
  # Log names without commas: the device transfer refuses them.
  $SW bench gemm --shape "$s" "${args[@]}" --reps ${REPS:-40} >"$W/gemm-${s//,/x}.log" 2>&1 || echo "bench gemm $s: exit $?"
done
cp "$W"/*.log "$OUT"/ 2>/dev/null
echo
printf '%-18s %-50s %9s %9s %6s\n' shape config swigen_us cublas_us ratio
for s in $SHAPES; do
  awk -v s="$s" '
    /^gemm M=/ { cfg = $6; sw = ""; cb = "" }
    /^  cuBLAS/ { cb = $2 }
    /swigen \/ cuBLAS speed/ { printf "%-18s %-50s %9s %9s %6s\n", s, substr(cfg, 12), sw, cb, $5; next }
    /^  swigen / { sw = $3 }
  ' "$W/gemm-${s//,/x}.log"
done

#!/usr/bin/env bash
# One device call (carry .bin/ with swigen, from bash bench/build.sh) for
# issue 43's shape order and the elementwise module's move to
# templates/kernelsrc: tune --kernel gemm at an M,N,K shape that is not
# symmetric, then emit --tuned at the same --shape string must take its
# winner (and name the nearest tuned shape at another); verify of gemm at
# M,N,K shapes (ragged, and one per order-sensitive size); the unfused
# paths (swigen's gemm + the elementwise module) verified and timed.
# Logs go to $OUT/shape-order.tgz; a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=${SW:-./.bin/swigen}
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/shape-order.tgz" -C "$LOG" .' EXIT
G=4096,7168,2048 # M,N,K
rows=()
check() { # check LABEL GREP CMD...: PASS when CMD exits 0 and its output has GREP
	local label=$1 want=$2; shift 2
	local log=$LOG/$label.log
	timeout 240 "$@" >"$log" 2>&1
	local rc=$?
	if [ $rc = 0 ] && grep -q -- "$want" "$log"; then rows+=("PASS  $label")
	else rows+=("FAIL  $label (rc=$rc; want '$want'; $(grep -v '^\s*$' "$log" | tail -1 | cut -c1-100))"); fi
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
check tune-gemm "winner: gemm_" $SW tune --kernel gemm --shape $G --max 4 --db "$LOG/tune-gemm.json"
check emit-tuned-same "using the tuned winner for gemm sm_90a bf16 M=4096 N=7168 K=2048" \
	$SW emit --no-compile -o "$LOG/emit-same" --arch sm_90a --kernel gemm --shape $G --tuned "$LOG/tune-gemm.json"
check emit-tuned-keyed "using the tuned winner" \
	$SW emit --no-compile -o "$LOG/emit-keyed" --arch sm_90a --kernel gemm --shape M=4096,N=7168,K=2048 --tuned "$LOG/tune-gemm.json"
check emit-tuned-nearest "nearest tuned shape is --shape $G, M,N,K" \
	$SW emit --no-compile -o "$LOG/emit-other" --arch sm_90a --kernel gemm --shape 8192,7168,2048 --tuned "$LOG/tune-gemm.json"
check verify-gemm-mnk ", 0 failed" $SW verify --kernel gemm --shape "2048,7168,4096;300,264,1032;129,1032,4096;64,7168,2048" --seed 3
check verify-gemm-ragged ", 0 failed" $SW verify --kernel gemm --seed 4
check verify-unfused-bwd ", 0 failed" $SW verify --kernel bwd_dswiglu --path unfused --seed 5
check verify-unfused-fwd ", 0 failed" $SW verify --kernel fwd_gateup --path unfused --seed 6
check bench-gemm-mnk "." $SW bench gemm --shape $G --reps 20
check bench-bwd-unfused "." $SW bench bwd --shape 8192,8192,3584 --path unfused --reps 20
echo
printf '%s\n' "${rows[@]}"

#!/usr/bin/env bash
# One device call (carry .bin/, from bash bench/build.sh) for issue 43's
# kind registry: every path that now looks a kind up instead of switching
# on it, run on the GPU. verify of each kind (check's verifiers map), the
# unfused paths (the workspace from UnfusedN/UnfusedIntoOutput), bench
# bwd/gateup/gemm (Benched, the elementwise kind, the plain GEMM), a short
# tune of fwd_gateup and gemm (Tunable, the SwiGLU baseline), then the
# Python ops (opspec.OPS and variant_of from kinds_gen.py) through
# bench/py_check.sh. Logs go to $OUT/kinds-check.tgz (py_check's to $OUT);
# a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=${SW:-./.bin/swigen}
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/kinds-check.tgz" -C "$LOG" .' EXIT
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
for k in bwd_dswiglu fwd_gateup fwd_down gemm; do
	check "verify-$k" ", 0 failed" $SW verify --kernel $k --seed 7
done
check verify-bwd-out ", 0 failed" $SW verify --name bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_out_l2k --seed 8
check verify-gateup-train ", 0 failed" $SW verify --name fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out --seed 9
check verify-unfused-bwd ", 0 failed" $SW verify --kernel bwd_dswiglu --path unfused --seed 10
check verify-unfused-gateup ", 0 failed" $SW verify --kernel fwd_gateup --path unfused --seed 11
check verify-unfused-gateup-train ", 0 failed" $SW verify --name fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out --path unfused --seed 12
check bench-bwd "." $SW bench bwd --shape 8192,4096,3584 --reps 20
check bench-gateup "inference" $SW bench gateup --shape 8192,4096,3584 --reps 20
check bench-gemm "." $SW bench gemm --shape 4096,7168,2048 --reps 20
check tune-gateup "winner: fwd_gateup_" $SW tune --kernel fwd_gateup --shape 8192,4096,3584 --max 3 --db "$LOG/tune-gateup.json"
check tune-gemm "winner: gemm_" $SW tune --kernel gemm --shape 4096,7168,2048 --max 3 --db "$LOG/tune-gemm.json"
TEST_LIMIT=200 bash bench/py_check.sh >"$LOG/py-check.log" 2>&1
if grep -q "FAIL" "$LOG/py-check.log" || ! grep -q "PASS" "$LOG/py-check.log"; then
	rows+=("FAIL  py-check ($(grep -m1 FAIL "$LOG/py-check.log" | cut -c1-100))")
else rows+=("PASS  py-check"); fi
echo
printf '%s\n' "${rows[@]}"

#!/usr/bin/env bash
# One device call over the GPU paths the hardening (issue 42) touched:
# the checks now made before any GPU step (--device, --tol, --nvcc), the
# compilers and tune workers now run in their own process group (a
# deliberately hanging config must be killed with its group), and diff of
# a compiled package against the build cache. Needs .bin/swigen
# (bash bench/build.sh, carry .bin/). Logs go to $OUT/harden-gpu.tgz; the
# table printed last gives each step's exit code, the one expected, and
# PASS or FAIL.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=${SW:-./.bin/swigen}
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/harden-gpu.tgz" -C "$LOG" .' EXIT
S=16384,768,4608
rows=()
fails=0
n=0
run() { # run LABEL WANT_RC CMD...: logs to $LOG/NN-LABEL.log
	local label=$1 want=$2 log t0 rc verdict
	shift 2
	n=$((n + 1))
	log=$LOG/$(printf %02d $n)-$label.log
	t0=$(date +%s.%N)
	timeout 300 "$@" >"$log" 2>&1
	rc=$?
	verdict=PASS
	if [ "$rc" != "$want" ]; then verdict=FAIL; fails=$((fails + 1)); fi
	rows+=("$(printf '%-22s %s rc=%-3s want=%-2s %6.1fs  %s' "$label" "$verdict" "$rc" "$want" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")" "$(grep -v '^\s*$' "$log" | tail -1 | cut -c1-90)")")
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NVCC_DIR=$(dirname "$(command -v nvcc)")
run doctor 0 $SW doctor
run verify-seed 0 $SW verify --kernel gemm
run verify-nvcc-dir 0 $SW verify --kernel gemm --nvcc "$NVCC_DIR"
run verify-tol-inf 2 $SW verify --tol Inf
run verify-device-neg 2 $SW verify --device -1
run verify-nvcc-zero 2 $SW verify --nvcc /dev/zero
run bench-bwd 0 $SW bench bwd --shape $S --reps 40
run bench-device-neg 2 $SW bench bwd --device -1
run tune-slow-nan 2 $SW tune --slow-factor NaN
# The hang test's config deadlocks on purpose: its worker (and anything it
# started) must be killed by the group at the timeout, and tune exit 0.
run tune-hang-test 0 $SW tune --include-hang-test --filter pingpong --filter c1x1 --max 2 --timeout 60s --db "$LOG/tune.json"
run emit-pkg 0 $SW emit --arch sm_90a --go-package kernels -o "$LOG/pkg"
run diff-pkg-outside 0 $SW diff -o "$LOG/pkg"
run leftovers 0 bash -c "! ls -d ${TMPDIR:-/tmp}/swigen-build-* \"$LOG\"/pkg/.swigen-emit-* 2>/dev/null | grep -q ."
echo
printf '%s\n' "${rows[@]}"
if [ "$fails" -eq 0 ]; then echo "harden_gpu_check: PASS (${#rows[@]} steps)"; else echo "harden_gpu_check: FAIL ($fails of ${#rows[@]} steps)"; fi

#!/usr/bin/env bash
# One device call for the PyTorch package (carry .bin/, built by
# bench/build.sh): emits --py-package packages with .bin/swigen into a
# temp dir (gemm; fwd_gateup inference and training; fwd_down with and
# without residual; bwd_dswiglu and its StoreOut variant, W_down MN-major
# for SwiGLUMLP's [K, I] weight), then runs the Python GPU tests against
# them (python/tests/gpu), the bitwise check against Go's launch of the
# same cubins included, and SwiGLUMLP's step on packages emitted with
# --path unfused; and a K-major bwd_dswiglu --store-out package that
# SwiGLUMLP's compiled step meets only after its first trace (the registry
# changing under torch.compile). Prints a short pass/fail table last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
PKG=$(mktemp -d)
summary=()
step() { # step LABEL CMD...: logs to $OUT/LABEL.log, records wall and exit
  local label=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" >"$OUT/$label.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  summary+=("$(printf '%-22s %-4s wall %6.1fs  %s' "$label" "$([[ $rc == 0 ]] && echo PASS || echo FAIL)" "$(awk "BEGIN{print $t1 - $t0}")" "$(tail -1 "$OUT/$label.log" | cut -c1-120)")")
  return $rc
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
emit() { # emit NAME FLAGS...
  local n=$1; shift
  step "emit-$n" $SW emit --arch sm_90a --py-package "$n" -o "$PKG/$n" "$@" && dirs="${dirs:+$dirs:}$PKG/$n"
}
dirs=""
emit k_gemm --kernel gemm &
emit k_gateup --kernel fwd_gateup --shape 2048,4096,3584 &
emit k_gateup_train --kernel fwd_gateup --store-out --shape 2048,4096,3584 &
emit k_down --kernel fwd_down &
emit k_bwd --kernel bwd_dswiglu &
emit k_bwd_out --kernel bwd_dswiglu --store-out --major-b mn &
wait
# (the emits ran in subshells: collect what they wrote)
dirs=$(ls -d "$PKG"/k_*/__init__.py 2>/dev/null | xargs -n1 dirname | paste -sd:)
# --name fixes the arch: no --arch.
step emit-k_down_res $SW emit --py-package k_down_res -o "$PKG/k_down_res" --name fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn_res
dirs="$dirs:$PKG/k_down_res"
# The plans' unfused path alone (every call unfused), for UnfusedMLPTest.
mkdir -p "$PKG/unf"
step emit-u_gateup_train $SW emit --arch sm_90a --py-package u_gateup_train -o "$PKG/unf/u_gateup_train" --kernel fwd_gateup --store-out --path unfused &
step emit-u_bwd_out $SW emit --arch sm_90a --py-package u_bwd_out -o "$PKG/unf/u_bwd_out" --kernel bwd_dswiglu --store-out --major-b mn --path unfused &
# The backward's kernel K-major, registered only by MLPTest's
# test_compile_follows_the_registry after the trace (W_down's layout flips).
mkdir -p "$PKG/alt"
step emit-a_bwd_out $SW emit --arch sm_90a --py-package a_bwd_out -o "$PKG/alt/a_bwd_out" --kernel bwd_dswiglu --store-out &
wait
export SWIGEN_PY_UNFUSED_PACKAGES=$(ls -d "$PKG"/unf/u_*/__init__.py 2>/dev/null | xargs -n1 dirname | paste -sd:)
export SWIGEN_PY_ALT_PACKAGES=$(ls -d "$PKG"/alt/a_*/__init__.py 2>/dev/null | xargs -n1 dirname | paste -sd:)
for f in "$OUT"/emit-*.log; do summary+=("$(printf '%-22s %s' "$(basename "$f" .log)" "$(grep -cE 'sm_90a' "$f") kernels")"); done
export SWIGEN_PY_PACKAGES=$dirs
export SWIGEN_GO_TESTS=$PWD/.bin/tests.test # the bitwise check against Go's launch
step py-gpu-tests bash -c "cd python/tests && timeout ${TEST_LIMIT:-300} python3 -m unittest -v gpu.test_torch_ops gpu.test_gpu gpu.test_bitwise"
grep -E " \.\.\. |^(FAIL|ERROR)|Error:|^Ran |^OK|^FAILED" "$OUT/py-gpu-tests.log" | head -60
echo
printf '%s\n' "${summary[@]}"

#!/usr/bin/env bash
# One device call (carry .bin/swigen): the PyTorch side of the grouped
# kinds on the GPU. Emits eight packages with the machine's nvcc
# (moe_fwd_gateup inference; --store-out: the train variant storing out
# and de; moe_bwd_dswiglu --store-out: grad_de and the recomputed out;
# moe_gemm: swigen::moe_down, the down projection),
# then runs python/tests/gpu/test_moe.py with them: the
# reference path (ScoreTest: the router score on it, dscore included), KernelTest (swigen::moe_gateup on its kernel: routings
# against float64, CUDA-graph replay with new offs, compile fullgraph,
# opcheck, bad inputs) and TrainKernelTest (swigen::moe_gateup_train's out
# and de, the layer's training step with its forward on the kernel; alone,
# the train package also runs swigen::moe_gateup and the layer under
# no_grad, de dropped) and
# BwdKernelTest (swigen::moe_dswiglu_out, the whole step on both kernels) and
# DownKernelTest (swigen::moe_down on moe_gemm: routings against float64,
# CUDA-graph replay with new offs, the layer's step, opcheck) and
# ScoreKernelTest on three --score packages (moe_fwd_gateup --score, its
# --store-out --score train variant, moe_bwd_dswiglu --store-out --score:
# the ops with a router score against float64 on every routing, dscore the
# column-order sum of the kernel's partials bit for bit, bitwise repeat, the
# layer's step, CUDA-graph replay with new offs and scores, compile
# fullgraph, opcheck); an eighth package, moe_wgrad, runs
# python/tests/gpu/test_moe_wgrad.py's WgradKernelTest (swigen::moe_wgrad,
# both of the layer's weight gradients at the same routings against
# float64, empty experts zero, bitwise repeats, CUDA-graph replay with new
# offs, opcheck).
#
#   bash bench/moe_py_check.sh [TESTS]
#
# TESTS (default gpu.test_moe gpu.test_moe_wgrad) is what unittest runs, e.g.
# gpu.test_moe.ScoreKernelTest; every package is emitted either way (in
# parallel). Logs go to $OUT; a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
PKG=$(mktemp -d)
rows=()
TESTS=${1:-gpu.test_moe gpu.test_moe_wgrad}
emit() { # emit NAME FLAGS...: in the background; its rc lands in $OUT/emit-NAME.rc
  local n=$1; shift
  echo "$*" >"$OUT/emit-$n.flags"
  (timeout 180 $SW emit --arch sm_90a "$@" --py-package "$n" -o "$PKG/$n" >"$OUT/emit-$n.log" 2>&1; echo $? >"$OUT/emit-$n.rc") &
}
names="swigen_moe swigen_moe_train swigen_moe_bwd swigen_moe_down swigen_moe_score swigen_moe_train_score swigen_moe_bwd_score swigen_moe_wgrad"
emit swigen_moe --kernel moe_fwd_gateup
emit swigen_moe_train --kernel moe_fwd_gateup --store-out
emit swigen_moe_bwd --kernel moe_bwd_dswiglu --store-out
emit swigen_moe_down --kernel moe_gemm
emit swigen_moe_score --kernel moe_fwd_gateup --score
emit swigen_moe_train_score --kernel moe_fwd_gateup --store-out --score
emit swigen_moe_bwd_score --kernel moe_bwd_dswiglu --store-out --score
emit swigen_moe_wgrad --kernel moe_wgrad
wait
for n in $names; do
  rc=$(cat "$OUT/emit-$n.rc" 2>/dev/null || echo missing)
  if [ "$rc" = 0 ]; then rows+=("PASS  emit $n ($(cat "$OUT/emit-$n.flags"))")
  else rows+=("FAIL  emit $n (rc=$rc; $(tail -1 "$OUT/emit-$n.log" | cut -c1-100))"); fi
done
log="$OUT/py-moe.log"
(cd python/tests && SWIGEN_MOE_PACKAGE="$PKG/swigen_moe" SWIGEN_MOE_TRAIN_PACKAGE="$PKG/swigen_moe_train" \
  SWIGEN_MOE_BWD_PACKAGE="$PKG/swigen_moe_bwd" SWIGEN_MOE_DOWN_PACKAGE="$PKG/swigen_moe_down" \
  SWIGEN_MOE_SCORE_PACKAGE="$PKG/swigen_moe_score" SWIGEN_MOE_TRAIN_SCORE_PACKAGE="$PKG/swigen_moe_train_score" \
  SWIGEN_MOE_BWD_SCORE_PACKAGE="$PKG/swigen_moe_bwd_score" SWIGEN_MOE_WGRAD_PACKAGE="$PKG/swigen_moe_wgrad" \
  timeout 360 python3 -m unittest -v $TESTS) >"$log" 2>&1
rc=$?
skips=$(grep -c "skipped" "$log")
# Every package is given, so no kernel class may skip: neither itself (its
# setUpClass finds no kernel of its variant) nor by its skipUnless (no torch
# or GPU, a package variable unset), which marks each of its tests skipped.
if [ $rc = 0 ] && grep -q '^OK' "$log" && ! grep -qE "KernelTest.*skipped" "$log"; then rows+=("PASS  $TESTS ($(grep -E '^Ran' "$log"); $skips skipped)")
else rows+=("FAIL  $TESTS (rc=$rc; $(grep -E '^(FAIL|ERROR):' "$log" | head -3 | tr '\n' ' ' | cut -c1-200))"); fi
grep -E "(ok|FAIL|ERROR|skipped.*)$" "$log" | grep -E "^test_" | cut -c1-140
echo "== summary"
for r in "${rows[@]}"; do echo "$r"; done
for r in "${rows[@]}"; do case $r in FAIL*) exit 1;; esac; done
exit 0

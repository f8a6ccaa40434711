#!/usr/bin/env bash
# One device call (carry .bin/swigen): the PyTorch side of the grouped
# kinds on the GPU. Emits five packages with the machine's nvcc
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
# CUDA-graph replay with new offs, the layer's step, opcheck); a fifth
# package, moe_wgrad, runs python/tests/gpu/test_moe_wgrad.py's
# WgradKernelTest (swigen::moe_wgrad, both of the layer's weight gradients
# at the same routings against float64, empty experts zero, bitwise
# repeats, CUDA-graph replay with new offs, opcheck).
# Logs go to $OUT; a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
PKG=$(mktemp -d)
rows=()
emit() { # emit NAME FLAGS...
  local n=$1; shift
  if timeout 180 $SW emit --arch sm_90a "$@" --py-package "$n" -o "$PKG/$n" >"$OUT/emit-$n.log" 2>&1; then
    rows+=("PASS  emit $n ($*)")
  else
    rows+=("FAIL  emit $n (rc=$?; $(tail -1 "$OUT/emit-$n.log" | cut -c1-100))")
  fi
}
emit swigen_moe --kernel moe_fwd_gateup
emit swigen_moe_train --kernel moe_fwd_gateup --store-out
emit swigen_moe_bwd --kernel moe_bwd_dswiglu --store-out
emit swigen_moe_down --kernel moe_gemm
emit swigen_moe_wgrad --kernel moe_wgrad
log="$OUT/py-moe.log"
(cd python/tests && SWIGEN_MOE_PACKAGE="$PKG/swigen_moe" SWIGEN_MOE_TRAIN_PACKAGE="$PKG/swigen_moe_train" \
  SWIGEN_MOE_BWD_PACKAGE="$PKG/swigen_moe_bwd" SWIGEN_MOE_DOWN_PACKAGE="$PKG/swigen_moe_down" \
  SWIGEN_MOE_WGRAD_PACKAGE="$PKG/swigen_moe_wgrad" \
  timeout 300 python3 -m unittest -v gpu.test_moe gpu.test_moe_wgrad) >"$log" 2>&1
rc=$?
skips=$(grep -c "skipped" "$log")
# Every package is given, so no kernel class may skip: neither itself (its
# setUpClass finds no kernel of its variant) nor by its skipUnless (no torch
# or GPU, a package variable unset), which marks each of its tests skipped.
if [ $rc = 0 ] && grep -q '^OK' "$log" && ! grep -qE "KernelTest.*skipped" "$log"; then rows+=("PASS  gpu.test_moe, gpu.test_moe_wgrad ($(grep -E '^Ran' "$log"); $skips skipped)")
else rows+=("FAIL  gpu.test_moe, gpu.test_moe_wgrad (rc=$rc; $(grep -E '^(FAIL|ERROR):' "$log" | head -3 | tr '\n' ' ' | cut -c1-200))"); fi
grep -E "(ok|FAIL|ERROR|skipped.*)$" "$log" | grep -E "^test_" | cut -c1-140
echo "== summary"
for r in "${rows[@]}"; do echo "$r"; done
for r in "${rows[@]}"; do case $r in FAIL*) exit 1;; esac; done
exit 0

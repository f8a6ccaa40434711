#!/usr/bin/env bash
# One device call (carry .bin/, built by bash bench/build.sh) per kind:
#   bash bench/moe_check.sh       the grouped (MoE) fwd gate-up + SwiGLU
#                                 kernel, moe_fwd_gateup (below);
#   bash bench/moe_check.sh bwd   the grouped backward, moe_bwd_dswiglu
#                                 (the same three steps on its five configs,
#                                 see check_bwd; at most 430 s of timeouts);
#   bash bench/moe_check.sh gemm  the grouped plain GEMM, moe_gemm (the
#                                 same three steps on its five configs, see
#                                 check_gemm; at most 295 s of timeouts);
#   bash bench/moe_check.sh score the router score (_score) of both grouped
#                                 kinds (see check_score; at most 430 s of
#                                 timeouts);
#   bash bench/moe_check.sh wgrad the K-grouped weight gradient, moe_wgrad
#                                 (the same three steps on its three
#                                 configs, see check_wgrad; at most 330 s
#                                 of timeouts).
# moe_fwd_gateup, inference (out) and training (_out: de = [left | gate]
# too):
#   1. verify: lab/check TestGPUMoEFwdGateUp, eight configs, each inference
#      and training (bf16 ping-pong and cooperative 128x128, ping-pong
#      64x128, fp16) on every routing of check.MoERoutings (empty experts,
#      one-token experts, one expert holding every token, sizes
#      TileM-1/TileM/TileM+1, a single expert, uniform and Zipf over 16
#      experts, an empty last expert) against the float64 per-expert
#      reference (out; training: de's left and gate halves too), every
#      output poisoned before each launch, each launch run three times and
#      every output compared bit for bit; T = 0 refused by the shape rule;
#   2. compute-sanitizer memcheck and racecheck on the ping-pong 64x128
#      configs, inference and training, first three routings
#      (SWIGEN_MOE_ROUTINGS=3);
#   3. timing (CUDA events, median of 30, L2 warm), uniform routing,
#      inference and training at 128x128 ping-pong: Qwen3-30B-A3B experts
#      (T = 8192*8 routed rows, K 2048, I 768, E 128) and DeepSeek-V3 (T =
#      4096*8, K 7168, I 2048, E 256). No peer here: the per-expert cuBLAS
#      loop and torch._grouped_mm are left to the Python side.
# At most 570 s of timeouts (a passing run takes about 2-3 minutes). Logs go
# to $OUT; a PASS/FAIL table is printed last.
set -u
KIND=${1:-fwd}
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
T=../../.bin/check.test
declare -a rows

record() { # name, ok (0/1), log
  if [ "$2" = 0 ]; then rows+=("PASS  $1"); else rows+=("FAIL  $1 ($3)"); fi
}

# moe_bwd_dswiglu: 1. verify (lab/check TestGPUMoEBwd: ping-pong 128x128
# with and without store_out, cooperative with store_out, ping-pong 64x128
# with store_out, fp16 with the tanh sigmoid, on every routing of
# check.MoERoutings against the float64 per-expert reference, grad_de and
# out poisoned, each launch run three times and compared bit for bit in
# every output; T = 0 refused); 2. compute-sanitizer memcheck and racecheck
# on ping-pong 64x128 with store_out, first three routings; 3. timing at
# the same two expert shapes, ping-pong 128x128 without and with store_out.
check_bwd() {
  log="$OUT/moe-bwd-verify.log"
  (cd lab/check && timeout 150 $T -test.v -test.count=1 -test.run 'TestGPUMoEBwd$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEBwd ' "$log" && ! grep -q -- '--- SKIP' "$log" && ok=0
  record "verify moe_bwd_dswiglu, 5 configs x 8 routings, repeat 3 (bitwise)" $ok "rc=$rc, $log"
  grep -E '^\s+moe_bwd_gpu_test.go:[0-9]+: (PASS|.*pass false)' "$log" | sed 's/^ *//' | cut -c1-200 > "$OUT/moe-verify-lines.txt"
  for tool in memcheck racecheck; do
    log="$OUT/moe-bwd-sanitize-$tool.log"
    (cd lab/check && SWIGEN_MOE_ROUTINGS=3 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 \
      $T -test.v -test.count=1 -test.run 'TestGPUMoEBwd$/moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out$') >"$log" 2>&1
    rc=$?
    ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEBwd/' "$log" && grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" && ok=0
    record "compute-sanitizer $tool (moe_bwd m64n128 ping-pong _out, 3 routings)" $ok "rc=$rc, $log"
  done
  log="$OUT/moe-bwd-time.log"
  (cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' timeout 80 $T -test.v -test.count=1 -test.run 'TestGPUMoEBwdTiming$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEBwdTiming' "$log" && ok=0
  record "timing moe_bwd_dswiglu (Qwen3-30B-A3B, DeepSeek-V3 experts, uniform; without and with out)" $ok "rc=$rc, $log"
}

# moe_gemm: 1. verify (lab/check TestGPUMoEGemm: ping-pong and cooperative
# 128x128, ping-pong 64x128 with K-major B, ping-pong 128x128 with MN-major
# B, fp16, on every routing of check.MoERoutings (the routing's K as K, its
# I as N) against the float64 per-expert reference, C poisoned, each launch
# run three times and compared bit for bit; T = 0 refused; offs outside
# the contract give the clamped offs' bits, TestGPUMoEGemmBadOffs); 2.
# compute-sanitizer memcheck and racecheck on ping-pong 64x128, first three
# routings; 3. timing of the down projection (C [T,H] = h [T,I] @
# W_down[e]^T, K-major W_down [E,H,I]) of the same two layers, ping-pong and
# cooperative 128x128.
check_gemm() {
  log="$OUT/moe-gemm-verify.log"
  (cd lab/check && timeout 110 $T -test.v -test.count=1 -test.run 'TestGPUMoEGemm$|TestGPUMoEGemmBadOffs$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEGemm ' "$log" && grep -q -- '--- PASS: TestGPUMoEGemmBadOffs ' "$log" \
    && ! grep -q -- '--- SKIP' "$log" && ok=0
  record "verify moe_gemm, 5 configs x 8 routings, repeat 3 (bitwise); bad offs = clamped offs (2 configs)" $ok "rc=$rc, $log"
  grep -E '^\s+moe_gemm_gpu_test.go:[0-9]+: (PASS|.*pass false)' "$log" | sed 's/^ *//' | cut -c1-200 > "$OUT/moe-verify-lines.txt"
  for tool in memcheck racecheck; do
    log="$OUT/moe-gemm-sanitize-$tool.log"
    (cd lab/check && SWIGEN_MOE_ROUTINGS=3 timeout 55 compute-sanitizer --tool $tool --error-exitcode 9 \
      $T -test.v -test.count=1 -test.run 'TestGPUMoEGemm$/moe_gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong$') >"$log" 2>&1
    rc=$?
    ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEGemm/' "$log" && grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" && ok=0
    record "compute-sanitizer $tool (moe_gemm m64n128 ping-pong, 3 routings)" $ok "rc=$rc, $log"
  done
  log="$OUT/moe-gemm-time.log"
  (cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' timeout 75 $T -test.v -test.count=1 -test.run 'TestGPUMoEGemmTiming$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEGemmTiming' "$log" && ok=0
  record "timing moe_gemm down projection (Qwen3-30B-A3B, DeepSeek-V3 experts, uniform; ping-pong, cooperative)" $ok "rc=$rc, $log"
}

# The router score (_score): 1. verify (lab/check TestGPUMoEScore: the
# forward, inference and training, and the backward, with and without
# store_out, six configs on every routing of check.MoERoutings against the
# float64 reference with the score, dscore from the summed partials; every
# output, the partials too, poisoned; each launch run three times and
# compared bit for bit); 2. compute-sanitizer memcheck and racecheck on
# the fp16 64x128 training forward and backward score configs, first
# three routings; 3. timing of the backward with and without the score
# (same tile, with store_out) at the two expert shapes.
check_score() {
  log="$OUT/moe-score-verify.log"
  (cd lab/check && timeout 150 $T -test.v -test.count=1 -test.run 'TestGPUMoEScore$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEScore ' "$log" && ! grep -q -- '--- SKIP' "$log" \
    && [ "$(grep -c -- '--- PASS: TestGPUMoEScore/' "$log")" = 6 ] && ok=0
  record "verify _score, 6 configs (3 fwd, 3 bwd) x 8 routings, repeat 3 (bitwise, partials too)" $ok "rc=$rc, $log"
  grep -E '^\s+moe_score_gpu_test.go:[0-9]+: (PASS|.*pass false)' "$log" | sed 's/^ *//' | cut -c1-320 > "$OUT/moe-verify-lines.txt"
  sanitized='TestGPUMoEScore$/^(moe_fwd_gateup_sm90a_fp16_m64n128k64_s5_c1x1_pingpong_out_score|moe_bwd_dswiglu_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn_out_score_tanh)$'
  for tool in memcheck racecheck; do
    log="$OUT/moe-score-sanitize-$tool.log"
    (cd lab/check && SWIGEN_MOE_ROUTINGS=3 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 \
      $T -test.v -test.count=1 -test.run "$sanitized") >"$log" 2>&1
    rc=$?
    ok=1; [ $rc = 0 ] && [ "$(grep -c -- '--- PASS: TestGPUMoEScore/' "$log")" = 2 ] \
      && grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" && ok=0
    record "compute-sanitizer $tool (_score fp16 m64n128 fwd training and bwd _out, 3 routings)" $ok "rc=$rc, $log"
  done
  log="$OUT/moe-score-time.log"
  (cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' \
    SWIGEN_MOE_TIMED=moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out,moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score \
    timeout 80 $T -test.v -test.count=1 -test.run 'TestGPUMoEBwdTiming$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEBwdTiming' "$log" && ok=0
  record "timing moe_bwd_dswiglu _out without and with _score (Qwen3-30B-A3B, DeepSeek-V3 experts, uniform)" $ok "rc=$rc, $log"
}

# moe_wgrad: 1. verify (lab/check TestGPUMoEWgrad: ping-pong 128x128 and
# 64x128, fp16, on every routing of check.MoERoutings for the config's
# TileK (the routing's I as N, its K as K; empty experts, sizes TileK+-1 and
# 2*TileK+-1 = TileM+-1 at 128) against the float64 per-expert reference,
# dW poisoned (an empty expert must write zeros), each launch run three
# times and compared bit for bit; T = 0 refused; offs outside the contract
# give the clamped offs' bits, TestGPUMoEWgradBadOffs); 2.
# compute-sanitizer memcheck and racecheck on ping-pong 64x128, first three
# routings (empty experts, one-token experts, one expert holding all); 3.
# timing of both weight gradients (dW [E,2I,H], dW_down [E,H,I]) of the
# two layers, ping-pong 128x128.
check_wgrad() {
  log="$OUT/moe-wgrad-verify.log"
  (cd lab/check && timeout 120 $T -test.v -test.count=1 -test.run 'TestGPUMoEWgrad$|TestGPUMoEWgradBadOffs$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEWgrad ' "$log" && grep -q -- '--- PASS: TestGPUMoEWgradBadOffs ' "$log" \
    && ! grep -q -- '--- SKIP' "$log" && [ "$(grep -c -- '--- PASS: TestGPUMoEWgrad/' "$log")" = 3 ] && ok=0
  record "verify moe_wgrad, 3 configs x 8 routings, repeat 3 (bitwise); bad offs = clamped offs" $ok "rc=$rc, $log"
  grep -E '^\s+moe_wgrad_gpu_test.go:[0-9]+: (PASS|.*pass false)' "$log" | sed 's/^ *//' | cut -c1-200 > "$OUT/moe-verify-lines.txt"
  for tool in memcheck racecheck; do
    log="$OUT/moe-wgrad-sanitize-$tool.log"
    (cd lab/check && SWIGEN_MOE_ROUTINGS=3 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 \
      $T -test.v -test.count=1 -test.run 'TestGPUMoEWgrad$/moe_wgrad_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_amn_bmn$') >"$log" 2>&1
    rc=$?
    ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEWgrad/' "$log" && grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" && ok=0
    record "compute-sanitizer $tool (moe_wgrad m64n128 ping-pong, 3 routings)" $ok "rc=$rc, $log"
  done
  log="$OUT/moe-wgrad-time.log"
  (cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' timeout 90 $T -test.v -test.count=1 -test.run 'TestGPUMoEWgradTiming$') >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEWgradTiming' "$log" && ok=0
  record "timing moe_wgrad, both weight gradients (Qwen3-30B-A3B, DeepSeek-V3 experts, uniform; ping-pong 128x128)" $ok "rc=$rc, $log"
}

case $KIND in
fwd) ;;
bwd) check_bwd ;;
gemm) check_gemm ;;
score) check_score ;;
wgrad) check_wgrad ;;
*) echo "usage: bash bench/moe_check.sh [fwd|bwd|gemm|score|wgrad]" >&2; exit 2 ;;
esac
if [ "$KIND" = fwd ]; then
# 1. verify (each config builds once with the machine's nvcc).
log="$OUT/moe-verify.log"
(cd lab/check && timeout 180 $T -test.v -test.count=1 -test.run 'TestGPUMoEFwdGateUp$') >"$log" 2>&1
rc=$?
ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoEFwdGateUp ' "$log" && ! grep -q -- '--- SKIP' "$log" \
  && [ "$(grep -c -- '--- PASS: TestGPUMoEFwdGateUp/.*_out ' "$log")" = 4 ] && ok=0
record "verify moe_fwd_gateup, 8 configs (4 training) x 8 routings, repeat 3 (bitwise)" $ok "rc=$rc, $log"
grep -E '^\s+moe_gpu_test.go:[0-9]+: (PASS|.*pass false)' "$log" | sed 's/^ *//' | cut -c1-320 > "$OUT/moe-verify-lines.txt"

# 2. compute-sanitizer on the small configs, inference and training.
sanitized='TestGPUMoEFwdGateUp$/^moe_fwd_gateup_sm90a_bf16_m64n128k64_(s8_c1x1_pingpong|s5_c1x1_pingpong_out)$'
for tool in memcheck racecheck; do
  log="$OUT/moe-sanitize-$tool.log"
  (cd lab/check && SWIGEN_MOE_ROUTINGS=3 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
    $T -test.v -test.count=1 -test.run "$sanitized") >"$log" 2>&1
  rc=$?
  ok=1; [ $rc = 0 ] && [ "$(grep -c -- '--- PASS: TestGPUMoEFwdGateUp/' "$log")" = 2 ] \
    && grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" && ok=0
  record "compute-sanitizer $tool (m64n128 ping-pong, inference and training, 3 routings)" $ok "rc=$rc, $log"
done

# 3. timing.
log="$OUT/moe-time.log"
(cd lab/check && SWIGEN_MOE_TIME='65536,2048,768,128;32768,7168,2048,256' timeout 90 $T -test.v -test.count=1 -test.run 'TestGPUMoETiming$') >"$log" 2>&1
rc=$?
ok=1; [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUMoETiming' "$log" && ok=0
record "timing (Qwen3-30B-A3B, DeepSeek-V3 experts, uniform; inference and training)" $ok "rc=$rc, $log"

fi

echo "== verify lines"; cat "$OUT/moe-verify-lines.txt"
echo "== timing"; grep -o 'TIME .*' "$log" || true
echo "== summary"
for r in "${rows[@]}"; do echo "$r"; done
for r in "${rows[@]}"; do case $r in FAIL*) exit 1;; esac; done
exit 0

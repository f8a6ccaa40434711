#!/usr/bin/env bash
# One device call (carry .bin/, built by bench/build.sh): the stream-K
# scheduler (scheduler streamk, name suffix _sk) on the H200.
#   1. swigen verify of stream-K configs of every kind (gemm cooperative
#      128x256 and ping-pong 128x128; fwd_gateup, fwd_down, bwd_dswiglu)
#      against the float64 reference on random and ragged shapes, every
#      shape launched 2-3 times with the main output compared bit for bit
#      (--repeat: fixed-order fixup, no atomics on data);
#      the Python runtime launches two of them with torch (its workspace);
#   2. compute-sanitizer memcheck and racecheck on a small stream-K config at
#      a shape where every tile is split (9 tiles, 132 SMs);
#   3. bench gemm: stream-K vs the static scheduler vs cuBLAS at
#      2048x7168x4096, 4096x7168x4096 and 8192x8192x8192 (M,N,K); bench
#      gateup at M = 64 and 512 (K 7168, I 2048), static vs stream-K.
# Logs go to $OUT; a PASS/FAIL table and the timing table are printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
SK_COOP=gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk
SK_PP=gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk
STATIC_COOP=gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative
declare -a rows

record() { # name, exit code, log
  if [ "$2" = 0 ]; then rows+=("PASS  $1"); else rows+=("FAIL  $1 (exit $2, $3)"); fi
}

# 1. verify. A gemm's shapes are M,N,K, as every command reads them. Large shapes
# use the GPU reference (itself checked against the CPU one); the ragged
# and small ones the CPU float64 reference. The built-in list (no --shape)
# adds ragged M, N, K, the smallest K and one row.
if [ "${VERIFY:-1}" = 1 ]; then  # VERIFY=0: timing only
SHAPES=(--shape "2048,7168,4096" --shape "64,7168,2048" --shape "512,7168,2048" --shape "1000,7000,4104"
  --shape "300,264,1032" --shape "129,1032,4096" --shape "4096,7168,2048")
for n in $SK_COOP $SK_PP; do
  log="$OUT/verify-$n.log"
  timeout 240 $SW verify --name $n "${SHAPES[@]}" --repeat 3 --seed 7 --timeout 60s >"$log" 2>&1
  record "verify --repeat 3 $n (7 shapes)" $? "$log"
done
log="$OUT/verify-ragged-$SK_PP.log"
timeout 150 $SW verify --name $SK_PP --repeat 2 --seed 11 --timeout 60s >"$log" 2>&1
record "verify --repeat 2 $SK_PP (built-in ragged list)" $? "$log"

# The fused kinds (verify shapes are the MLP's M,K,I; bwd on its fused path).
kind_verify() { # name, repeat, shapes...
  local n=$1 rep=$2; shift 2
  local log="$OUT/verify-$n.log"
  timeout 240 $SW verify --name $n --path fused "$@" --repeat $rep --seed 5 --timeout 60s >"$log" 2>&1
  record "verify --repeat $rep $n ($*)" $? "$log"
}
kind_verify fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk 3 --shape "512,7168,2048;64,7168,2048;300,1032,264;129,264,1000"
kind_verify fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out 2 --shape "512,7168,2048;300,1032,264"
kind_verify fwd_gateup_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn 2 --shape "64,7168,2048;1000,4104,1000"
kind_verify fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_bmn_res 2 --shape "64,7168,2048;512,7168,2048;300,264,1032"
kind_verify fwd_down_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk 2 --shape "2048,7168,2048;129,1000,4104"
kind_verify bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_sk 3 --shape "4096,7168,2048;300,1032,264;129,4104,1000"
kind_verify bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out 2 --shape "512,7168,2048;300,1032,264"

# The Python runtime (python/swigen_rt): Kernel.launch allocates the
# workspace with torch; each kernel is compared with torch's own math
# (python/tests/gpu/test_gpu.py, test_emitted_kernels).
for n in $SK_COOP bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_sk; do
  d="$OUT/py-$n"
  log="$OUT/py-$n.log"
  ( $SW emit --name $n -o "$d" && cd python/tests && SWIGEN_PY_KERNELS="$d" timeout 120 python3 -m unittest -v gpu.test_gpu 2>&1 ) >"$log" 2>&1
  rc=$?
  # A skipped test (no torch, no GPU) exits 0: count only a run that passed.
  if [ $rc = 0 ] && ! grep -q "test_emitted_kernels .* ok" "$log"; then rc=8; fi
  record "python Kernel.launch $n (workspace from torch)" $rc "$log"
done

# 2. compute-sanitizer on a shape where every tile is split.
for tool in memcheck racecheck; do
  log="$OUT/sanitize-$tool.log"
  timeout 180 compute-sanitizer --tool $tool --error-exitcode 9 $SW verify --name $SK_PP --shape 300,1024,264 --timeout 120s >"$log" 2>&1
  record "compute-sanitizer $tool $SK_PP 300,1024,264" $? "$log"
done

fi

# 3. timing: stream-K vs static vs cuBLAS (each run also compares both
# outputs, and fails on a mismatch). BENCH=0: correctness only.
if [ "${BENCH:-1}" = 1 ]; then
for s in 2048,7168,4096 4096,7168,4096 8192,8192,8192; do
  log="$OUT/bench-gemm-${s//,/x}.log"
  timeout 150 $SW bench gemm --shape "$s" --name $STATIC_COOP --name $SK_COOP --name $SK_PP --reps ${REPS:-40} >"$log" 2>&1
  record "bench gemm $s" $? "$log"
done
log="$OUT/bench-gateup-small-m.log"
timeout 150 $SW bench gateup --shape 64,7168,2048 --shape 512,7168,2048 \
  --name fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong --name fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk --reps ${REPS:-40} >"$log" 2>&1
record "bench gateup 64,7168,2048 512,7168,2048 (static vs _sk)" $? "$log"

fi
echo
printf '%-18s %-52s %9s %9s %6s\n' shape config swigen_us cublas_us ratio
for s in 2048,7168,4096 4096,7168,4096 8192,8192,8192; do
  awk -v s="$s" '
    /^gemm M=/ { cfg = $6; sw = ""; cb = "" }
    /^  cuBLAS/ { cb = $2 }
    /swigen \/ cuBLAS speed/ { printf "%-18s %-52s %9s %9s %6s\n", s, substr(cfg, 12), sw, cb, $5; next }
    /^  swigen / { sw = $3 }
  ' "$OUT/bench-gemm-${s//,/x}.log"
done
echo
echo "bench gateup (static, then _sk; see $log):"
grep -E "^(gateup|fwd_gateup|  swigen|  plan|  fused)|speed" "$log" | head -24
echo
for r in "${rows[@]}"; do echo "$r"; done

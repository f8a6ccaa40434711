#!/usr/bin/env bash
# One device call of at most 6 minutes (carry .bin/, built by bench/build.sh):
# stream-K's epoch flags (docs/DESIGN.md#tile-scheduler).
#   1. swigen verify --repeat 3 of stream-K configs of every kind (gemm
#      ping-pong and cooperative, fwd_gateup, fwd_down, bwd_dswiglu) at a
#      small M, a large reduction dim (every tile split over many CTAs) and
#      ragged shapes, against the float64 reference; each repeat launches on
#      the same workspace with its partial slots NaN-filled first, so an
#      owner passing a flag before its launch's partial is stored fails the
#      bitwise comparison;
#   2. TestGPUStreamKEpochs: launches on one workspace with flags left by
#      earlier launches (the last epoch, the reset scheme's 1), the header's
#      epoch advancing by one a launch, and the wrap (the last epoch zeroes
#      flags and header), on the device's grid and on a 48-CTA one (a
#      multiple of 16, as a MIG slice gives: launch.Kernel.LimitSMs);
#      TestGPUStreamKTwoStreams: a workspace per stream;
#   3. Python (torch): a CUDA graph captured on a stream-K launch, replayed
#      with eager launches between on one workspace: the epoch advances at
#      every replay, every output bitwise the first's.
# Logs go to $OUT; a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
ROWS="$OUT/rows.txt"
: >"$ROWS"

record() { # name, exit code, log (a file: verifies run two at a time)
  if [ "$2" = 0 ]; then echo "PASS  $1" >>"$ROWS"; else echo "FAIL  $1 (exit $2, $3)" >>"$ROWS"; fi
}

# 1. A gemm's shapes are M,N,K; the fused kinds' M,K,I (fwd_gateup and
# bwd_dswiglu on their fused path). Small M, large reduction dim, ragged;
# two configs at a time (the build cache writes by rename).
verify() { # name, shapes...
  local n=$1; shift
  local log="$OUT/verify-$n.log"
  timeout 70 $SW verify --name $n --path fused "$@" --repeat 3 --seed 13 --timeout 30s >"$log" 2>&1
  record "verify --repeat 3 $n ($*)" $? "$log"
}
G="--shape 64,7168,2048 --shape 256,1024,16384 --shape 300,264,1032 --shape 1000,1000,4104"
verify gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk $G &
verify gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk $G &
wait
verify fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk --shape "64,7168,2048;129,16384,512;300,1032,264" &
verify fwd_gateup_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn --shape "64,7168,2048;129,16384,512;1000,4104,1000" &
wait
verify fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_bmn_res --shape "64,7168,2048;129,512,16384;300,264,1032" &
verify bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_sk --shape "64,7168,2048;129,16384,512;300,1032,264" &
wait

# 2. The Go GPU tests on one workspace and on two streams.
log="$OUT/gotest-epochs.log"
(cd lab/check && timeout 90 ../../.bin/check.test -test.v -test.count=1 -test.run 'TestGPUStreamK(Epochs|TwoStreams)$') >"$log" 2>&1
record "TestGPUStreamKEpochs, TestGPUStreamKTwoStreams" $? "$log"

# 3. Python: CUDA graph replay on the kernel's own workspace.
n=gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk
d="$OUT/py-$n"
log="$OUT/py-graph-$n.log"
( $SW emit --name $n -o "$d" && cd python/tests && SWIGEN_PY_KERNELS="$d" timeout 60 python3 -m unittest -v gpu.test_gpu.TorchTest.test_emitted_streamk_graph 2>&1 ) >"$log" 2>&1
rc=$?
# A skipped test (no torch, no GPU) exits 0: count only a run that passed.
# unittest -v prints the test's name, then its docstring's first line and
# the verdict on the next line, so look for the verdict after the name.
if [ $rc = 0 ] && ! grep -A1 "test_emitted_streamk_graph" "$log" | grep -q '\.\.\. ok$'; then rc=8; fi
record "python CUDA graph replay $n (epoch in the workspace)" $rc "$log"

echo
cat "$ROWS"
! grep -q '^FAIL' "$ROWS"

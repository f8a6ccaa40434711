#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck on one small config of each
# sm_90a schedule (run on the GPU machine, .bin carried).
set -u
export PATH=/usr/local/cuda/bin:$PATH
for name in bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_cooperative; do
  for tool in memcheck racecheck; do
    echo "=== compute-sanitizer --tool $tool $name"
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 ./.bin/swigen verify --name $name --shape 300,136,264 --timeout 120s 2>&1 | tail -6
    echo "(exit ${PIPESTATUS[0]})"
  done
done

#!/usr/bin/env bash
# Device call 29 (session 2): the bwd epilogue issues its shared-memory
# loads 4 fragments at a time (before: load -> math -> store per fragment,
# one dependency chain per sub-tile, as the call-28 trace showed).
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 240 $B verify --seed 29 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh \
  --name ${N}_s5_c1x1_pingpong_bmn --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong \
  --name ${N}_s4_c1x1_pingpong_out --name ${N}_s5_c1x1_cooperative --name ${N}_s5_c2x1_pingpong 2>&1 | grep -v "^ok " | tail -20
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_tanh \
  --name ${N}_s5_c1x1_pingpong_dbgprivring --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c1x1_cooperative \
  --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative --name ${N}_s5_c1x2_pingpong_rn_g4_tanh 2>&1 | grep -A30 "^summary"
run timeout 200 $B bench bwd --reps 20 --shape 8192,4096,14336 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh 2>&1 | grep -A30 "^summary"
echo "=== trace"
timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgtrace > /tmp/tr.txt 2>&1
grep swigen-trace /tmp/tr.txt | tail -12
cd "$O" && tar czf results.tgz results && rm -rf results

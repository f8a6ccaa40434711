#!/usr/bin/env bash
# Device call 31 (session 2): the epilogue-order barrier for the shared ring
# (call 30: a 2-slot shared ring trapped at 1536x264x2056: a consumer that
# skips the other's ring positions could wait on a slot barrier two phases
# ahead), verified on shapes with many tiles per CTA; then the benchmarks.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
NAMES="--name ${N}_s5_c1x1_pingpong --name ${N}_s6_c1x1_pingpong_rn_g4_e64x64s1_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh
  --name ${N}_s4_c1x1_pingpong_out --name ${N}_s5_c1x1_pingpong_bmn --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong
  --name ${N}_s5_c2x1_pingpong --name fwd_down_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn_res"
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 200 $B verify --seed 31 $NAMES 2>&1 | grep -v "^ok " | tail -12
run timeout 300 $B verify --seed 32 $NAMES --shape "4000,264,3000;3000,776,2056;16384,768,4608" 2>&1 | grep -v "^ok " | tail -12
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s6_c1x1_pingpong_rn_g4_e64x64s1_tanh \
  --name ${N}_s5_c1x1_pingpong_dbgprivring --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c1x1_pingpong_dbgnomma 2>&1 | grep -A30 "^summary"
cd "$O" && tar czf results.tgz results && rm -rf results

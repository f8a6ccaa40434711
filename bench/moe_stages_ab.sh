#!/usr/bin/env bash
# One device call (carry .bin/swigen and .bin/check.test, from bash
# bench/build.sh): the grouped kinds' operand-ring depth A/B
# (docs/PERFORMANCE.md#moe-training-forward-and-grouped-backward: the faster
# kernel of each pair measured so far had the shallower ring). Ping-pong
# 128x128 at every depth that fits: moe_fwd_gateup inference s4/s5/s6,
# training s3/s4; moe_bwd_dswiglu s4/s5, with out s3/s4; and the same tile
# 128 deep along K (k128: 256 contiguous bytes of each weight row a stage
# instead of 128) at the deepest ring that fits: fwd inference s3, training
# s2, bwd s2 and with out s2.
#   1. swigen verify --name each (routings vs float64; timing checks no output);
#   2. two rounds of lab/check's timing tests (median of 30 launches each,
#      L2 warm, uniform routing) at Qwen3-30B-A3B and DeepSeek-V3 expert
#      shapes, the configs in one order, then reversed.
# Logs go to $OUT; the table (config, shape, us per round) is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=./.bin/swigen
T=../../.bin/check.test
SHAPES='65536,2048,768,128;32768,7168,2048,256'
p=moe_fwd_gateup_sm90a_bf16_m128n128k64
b=moe_bwd_dswiglu_sm90a_bf16_m128n128k64
p2=moe_fwd_gateup_sm90a_bf16_m128n128k128
b2=moe_bwd_dswiglu_sm90a_bf16_m128n128k128
CONFIGS=(${p}_s4_c1x1_pingpong ${p}_s5_c1x1_pingpong ${p}_s6_c1x1_pingpong ${p2}_s3_c1x1_pingpong
  ${p}_s3_c1x1_pingpong_out ${p}_s4_c1x1_pingpong_out ${p2}_s2_c1x1_pingpong_out
  ${b}_s4_c1x1_pingpong_bmn ${b}_s5_c1x1_pingpong_bmn ${b2}_s2_c1x1_pingpong_bmn
  ${b}_s3_c1x1_pingpong_bmn_out ${b}_s4_c1x1_pingpong_bmn_out ${b2}_s2_c1x1_pingpong_bmn_out)
fail=0
for c in "${CONFIGS[@]}"; do
  if timeout 120 $SW verify --name "$c" >"$OUT/verify-$c.log" 2>&1; then echo "verify PASS $c"
  else echo "verify FAIL $c ($(tail -1 "$OUT/verify-$c.log" | cut -c1-120))"; fail=1; fi
done
join() { local IFS=,; echo "$*"; }
rev=(); for ((i = ${#CONFIGS[@]} - 1; i >= 0; i--)); do rev+=("${CONFIGS[i]}"); done
for round in 1 2; do
  if [ $round = 1 ]; then names=$(join "${CONFIGS[@]}"); else names=$(join "${rev[@]}"); fi
  (cd lab/check && SWIGEN_MOE_TIME="$SHAPES" SWIGEN_MOE_TIMED="$names" timeout 200 $T -test.v -test.count=1 \
    -test.run 'TestGPUMoETiming$|TestGPUMoEBwdTiming$') >"$OUT/ab-round$round.log" 2>&1 || { echo "round $round: exit $?"; fail=1; }
done
echo "== A/B (us: round 1, round 2)"
for c in "${CONFIGS[@]}"; do
  for s in 65536 32768; do
    r1=$(grep -h "($c)\|TIME $c " "$OUT/ab-round1.log" | grep "T=$s " | grep -o 'median [0-9.]*' | cut -d' ' -f2)
    r2=$(grep -h "($c)\|TIME $c " "$OUT/ab-round2.log" | grep "T=$s " | grep -o 'median [0-9.]*' | cut -d' ' -f2)
    printf '%-64s T=%-6s %9s %9s\n' "$c" "$s" "${r1:--}" "${r2:--}"
  done
done
exit $fail

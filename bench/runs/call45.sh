#!/usr/bin/env bash
# Device call 45 (session 4): the sm_90a epilogues stage their sub-tiles
# with ldmatrix/stmatrix (x4: four accumulator fragments per instruction)
# instead of 32-bit ld/st.shared, and dgate uses s + silu*(1-s) (one FFMA
# less). Verify every kind, sanitizers, then A/B against the previous
# revision's binary (.bin/old/swigen, dc6c558) in the same run. Full logs
# go to $O/logs.
. "$(dirname "$0")/lib.sh"
OLD=./.bin/old/swigen
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 150 $B verify --kernel $k --catalog --seed 50; grep -v "^ok \|^built" "$O/logs/$n.txt" | tail -2
done
bash bench/sanitize.sh > "$O/logs/sanitize.txt" 2>&1; grep -E "ERROR SUMMARY|exit" "$O/logs/sanitize.txt"
for bin in $OLD $B $OLD $B; do
  log timeout 120 $bin bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh
  grep -A3 "^summary" "$O/logs/$n.txt" | tail -2 | cut -c1-160
done
for s in 16384,768,4608 8192,4096,14336; do
  log timeout 120 $B bench bwd --reps 20 --shape $s --json "$O/results"; grep -A2 "^summary" "$O/logs/$n.txt" | tail -1 | cut -c1-160
done
for bin in $OLD $B; do
  tag=$(basename $(dirname $bin))
  log timeout 150 $bin tune --kernel fwd_gateup --filter m128n128k64_s5_c1x1_pingpong --max 2 --db "$O/tune_gu_$tag.json"
  grep -E "^baseline|^winner|^heuristic" "$O/logs/$n.txt" | cut -c1-160
  log timeout 150 $bin tune --kernel fwd_gateup --store-out --filter m128n128k64_s4_c1x1_pingpong_out --max 2 --db "$O/tune_gus_$tag.json"
  grep -E "^baseline|^winner|^heuristic" "$O/logs/$n.txt" | cut -c1-160
done
log timeout 100 $B bench gemm --reps 20 --shape 4096,4096,4096; grep -E "speed" "$O/logs/$n.txt" | tail -1
bash bench/gpu_tests.sh > "$O/logs/gputests.txt" 2>&1; grep -E "===|passed|FAIL" "$O/logs/gputests.txt" | tail -8

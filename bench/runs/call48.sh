#!/usr/bin/env bash
# Device call 48 (session 4): L2 cache hints on every sm_90a TMA copy
# (operands evict_last, epilogue tensors evict_first). Call 47 showed the
# epilogue's de loads slow the mainloop more than the epilogue math
# (noepi 186.7 us vs nosmem 166.5). Verify, then A/B against _dbgnohint
# (same kernel, evict_normal everywhere) and the previous revision's binary.
. "$(dirname "$0")/lib.sh"
OLD=./.bin/old/swigen
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 150 $B verify --kernel $k --catalog --seed 51; grep -v "^ok \|^built" "$O/logs/$n.txt" | tail -1
done
log timeout 150 $B verify --seed 52 --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnohint --name ${N}_s4_c1x1_pingpong_out
grep -v "^ok \|^built" "$O/logs/$n.txt" | tail -2
S1=16384,768,4608
log timeout 300 $B bench bwd --reps 30 --shape $S1 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnohint \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgnohint \
  --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnoepi --name ${N}_s5_c1x1_pingpong_dbgnosmem
grep -A9 "^summary" "$O/logs/$n.txt" | cut -c1-112
log timeout 120 $OLD bench bwd --reps 30 --shape $S1 --name ${N}_s5_c1x1_pingpong; grep -A1 "^summary" "$O/logs/$n.txt" | tail -1 | cut -c1-112
log timeout 200 $B bench bwd --reps 20 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnohint
grep -A3 "^summary" "$O/logs/$n.txt" | cut -c1-112
for bin in $OLD $B; do
  tag=$(basename $(dirname $bin))
  log timeout 150 $bin tune --kernel fwd_gateup --filter m128n128k64_s5_c1x1_pingpong --max 2 --db "$O/tune_gu_$tag.json"
  grep -E "^winner" "$O/logs/$n.txt" | cut -c1-140
  log timeout 150 $bin tune --kernel fwd_gateup --store-out --filter m128n128k64_s4_c1x1_pingpong_out --max 2 --db "$O/tune_gus_$tag.json"
  grep -E "^winner" "$O/logs/$n.txt" | cut -c1-140
done
for bin in $OLD $B; do
  log timeout 100 $bin bench gemm --reps 20 --shape 4096,4096,4096 --shape 16384,4608,768; grep -E "speed" "$O/logs/$n.txt" | tail -2
done
cd "$O" && tar czf logs.tgz logs && rm -rf logs

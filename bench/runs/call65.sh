#!/usr/bin/env bash
# Device call 65 (session 5): main after the descriptor-mask hoist (063d68d)
# and the build-check change: every catalog, the MN-major cluster configs the
# mask fixed (calls 57-58), memcheck, the GPU test binaries, then the
# numbers for README: bench mlp --check and bench bwd at S1 and the large
# shape, with JSON records.
. "$(dirname "$0")/lib.sh"
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 150 $B verify --seed 76 --kernel $k --catalog
  echo "$k: $(tail -1 $O/logs/$n.txt)"; grep -E "^FAIL|rror" $O/logs/$n.txt | head -3
done
log timeout 250 $B verify --seed 76 --name gemm_sm90a_bf16_m128n256k64_s4_c2x1_cooperative_bmn --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_bmn \
  --name gemm_sm90a_bf16_m128n256k64_s4_c2x1_cooperative_amn_bmn --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_amn \
  --name gemm_sm90a_bf16_m128n256k64_s4_c1x2_cooperative_amn_bmn --name gemm_sm90a_bf16_m128n128k64_s5_c1x2_pingpong_amn \
  --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c2x1_pingpong_bmn --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x2_pingpong_bmn
echo "clusters: $(tail -1 $O/logs/$n.txt)"; grep -E "^FAIL|rror" $O/logs/$n.txt | head -3
log timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B verify --name ${N}_s5_c1x1_pingpong --shape 300,136,264
grep -E "SUMMARY|failed" $O/logs/$n.txt | head -2
OUT=$O bash bench/gpu_tests.sh
log timeout 200 $B bench mlp --check --reps 20 --shape 16384,768,4608 --json "$O/results"
grep -E "check|speedup|FAIL|rror|^  *(fwd|bwd|dW|dx|gemm|total|step)" $O/logs/$n.txt | cut -c1-150 | tail -18
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --json "$O/results"
grep -A5 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs

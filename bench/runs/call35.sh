#!/usr/bin/env bash
# Prepared for the next device session (compile-verified only): the bwd
# epilogue storing grad_de from registers (_dbgstg: a 4x4 transpose in each
# lane quad, then 16-byte st.global through a raw pointer; epilogue slots
# released once read; no st.shared, no TMA store).
# Prediction: most of the ~31 us the stores cost at S1 (run 29), i.e.
# ~230-240 us for the default config.
. "$(dirname "$0")/lib.sh"
NAMES="--name ${N}_s6_c1x1_pingpong_e64x64s1_dbgstg --name ${N}_s5_c1x1_pingpong_dbgstg --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgstg --name ${N}_s5_c1x1_cooperative_dbgstg
  --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong_dbgstg --name ${N}_s5_c1x1_pingpong_bmn_dbgstg"
run timeout 200 $B verify --seed 40 $NAMES 2>&1 | grep -v "^ok " | tail -12
run timeout 200 $B verify --seed 41 $NAMES --shape "4000,264,3000;3000,776,2056" 2>&1 | grep -v "^ok " | tail -12
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgstg \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgstg \
  --name ${N}_s6_c1x1_pingpong_e64x64s1_dbgstg 2>&1 | grep -A10 "^summary"
# (s6 with one epilogue slot per consumer: stg frees a slot as soon as it is
# read, so a deeper operand ring may now pay; it lost without stg, call 31.)
# The second issue shape (K=4096): the mainloop dominates there, so a
# cooperative 128x256 tile (m64n256 per consumer, the best plain-gemm tile)
# may beat ping-pong even without epilogue overlap. Prediction: >= 1.05x.
run timeout 300 $B bench bwd --reps 20 --shape 8192,4096,14336 --json "$O/results" \
  --name ${N}_s5_c1x1_pingpong --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative \
  --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x2_cooperative --name bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c2x1_cooperative 2>&1 | grep -A10 "^summary"
# fwd_gateup with _dbgstg (out and de stored from registers, 16-byte
# st.global; no shared-memory staging, no TMA stores). Prediction: the
# cooperative 128x256 tile then runs near its GEMM time (cuBLAS 321 us at
# S1) instead of 386 us: >= 1.2x against cuBLAS + elementwise.
G=fwd_gateup_sm90a_bf16
run timeout 200 $B verify --seed 42 --name ${G}_m128n256k64_s3_c1x1_cooperative_e64x64s1_out_dbgstg \
  --name ${G}_m128n128k64_s4_c1x1_pingpong_out_dbgstg --name ${G}_m128n128k64_s6_c1x1_pingpong_dbgstg 2>&1 | grep -v "^ok " | tail -8
for v in ${G}_m128n256k64_s3_c1x1_cooperative_e64x64s1_out_dbgstg ${G}_m128n128k64_s4_c1x1_pingpong_out_dbgstg; do
  run timeout 200 $B bench mlp --reps 20 --shape 16384,768,4608 --name $v --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgstg 2>&1 | grep -E -A5 "^fwd gate-up|^bwd dout" | grep -E "swigen|baseline \(|kernel"
done
cd "$O" && tar czf results.tgz results && rm -rf results

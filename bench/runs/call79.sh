#!/usr/bin/env bash
# Session 6, call 79: debug pstg (this revision). Does a grad_de store from
# registers (16-byte st.global, no shuffles: W_down's rows permuted by a
# 5-D tensor map) beat st.shared + TMA store? Shared-memory model (NOTES
# run 62): ping-pong 128x128 moves 76 B of shared memory per output at ~91%
# of 128 B/clk; pstg takes the st.shared and the TMA store's read off (8 B).
# Prediction: if global stores bypass the shared-memory banks, S1 ~242 ->
# ~220 us; if they cost the same, no gain (session 3's stg, with quad
# shuffles, lost 12%).
. "$(dirname "$0")/lib.sh"
SH="--shape 300,136,256 --shape 1000,776,1056 --shape 129,8,224 --shape 3000,264,2048 --shape 2048,768,4608"
log timeout 200 $B verify --seed 96 --timeout 60s $SH --name ${N}_s5_c1x1_pingpong_dbgpstg --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgpstg \
  --name bwd_dswiglu_sm90a_fp16_m128n256k64_s3_c1x1_cooperative_dbgpstg
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-220 | tail -6
grep "^built" $O/logs/$n.txt | cut -c1-120
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgpstg \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgpstg --name ${N}_s5_c1x1_pingpong_dbgstg \
  --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative --name bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_dbgpstg
grep -A16 "^summary" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs && rm -rf logs

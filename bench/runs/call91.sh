#!/usr/bin/env bash
# Session 7, call 91: is the handoff data path (nomma ~230 us at S1, ~2.6 TB/s
# of de + grad_de) bound by DRAM page locality? Each 256x128 tile reads and
# writes 256-byte pieces of rows 18 KB apart; the elementwise baseline streams
# whole rows at 4.15 TB/s. Raster n makes the CTAs running at once share rows
# (36 tiles across I at S1), so their pieces of a row meet in DRAM.
# Prediction if locality bounds it: rn nomma <= 200 us, full <= 215 us.
. "$(dirname "$0")/lib.sh"
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff
log timeout 250 $B verify --name $H --seed 92
grep -E "FAIL|fail|passed|error" $O/logs/$n.txt | tail -4
log timeout 400 $B bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name $H --name ${H}_dbgnomma \
  --name ${H}_rn --name ${H}_rn_dbgnomma --name ${H}_rn_g2 --name ${H}_rn_g2_dbgnomma --name ${H}_rn_g16 --name ${H}_rn_g16_dbgnomma \
  --name ${H}_g2 --name ${H}_g2_dbgnomma --json "$O/results"
grep -A12 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

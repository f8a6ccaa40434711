#!/usr/bin/env bash
# Session 7, call 88: the handoff epilogue with its memory accesses free to schedule (call 87: volatile asm serialized the steps; nomma 229.7 us, full 277.3 at S1).
# (1) verify on the built-in ragged shapes (bf16, fp16 with W_down [K,I], tanh).
# (2) S1 and 8192x4096x14336 against ping-pong in one run, with its noepi and
#     nomma parts. Prediction: nomma well under 229.7 us (the steps overlap
#     now); full = max(noepi 153, nomma) + a little, so ~200-230 us at S1.
. "$(dirname "$0")/lib.sh"
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff
log timeout 250 $B verify --name $H --name bwd_dswiglu_sm90a_fp16_m256n128k64_s3_c1x1_handoff_bmn --name ${H}_tanh --seed 89
grep -E "FAIL|fail|passed|error" $O/logs/$n.txt | tail -8
log timeout 300 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $H --name ${H}_dbgnoepi --name ${H}_dbgnomma --name ${H}_tanh --json "$O/results"
grep -A10 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

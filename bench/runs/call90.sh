#!/usr/bin/env bash
# Session 7, call 90 (call 89 again, after its illegal setmaxnreg.dec to 136): the handoff epilogue with the next tile's de prefetched
# into L2 (cp.async.bulk.prefetch.tensor), A/B against the previous binary
# (call 88: nomma 230.3 us, full 273.7 at S1; the data path, not the
# mainloop (noepi 151.1), bounds it, at ~2.6 TB/s of de + grad_de).
# Prediction: if the epilogue's de loads were DRAM-latency bound, nomma drops
# to ~170-190 us and the full kernel to ~190-210 us at S1.
. "$(dirname "$0")/lib.sh"
H=bwd_dswiglu_sm90a_bf16_m256n128k64_s3_c1x1_handoff
log timeout 250 $B verify --name $H --name bwd_dswiglu_sm90a_fp16_m256n128k64_s3_c1x1_handoff_bmn --name ${H}_tanh --seed 91
grep -E "FAIL|fail|passed|error" $O/logs/$n.txt | tail -8
for b in ./.bin/prev/swigen $B; do
  log timeout 300 $b bench bwd --reps 30 --shape 16384,768,4608 --name ${N}_s5_c1x1_pingpong --name $H --name ${H}_dbgnomma --name ${H}_tanh --json "$O/results"
  echo $b; grep -A5 "^summary" $O/logs/$n.txt | cut -c1-150
done
cd $O && tar czf logs.tgz logs results && rm -rf logs results

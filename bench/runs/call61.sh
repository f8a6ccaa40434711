#!/usr/bin/env bash
# Device call 61 (session 5). Call 60: overlap no longer serialized but
# 392.7 us at S1 and 0.67x at 8192x4096x14336, where the epilogue is
# negligible: the mainloop itself runs ~0.35 us per k-block slower than
# ideal. Hypothesis: consumer 0's thread 0 waiting for consumer 1's release
# before each refill stalls consumer 0's wgmma issue. This build
# (.bin/ovl/swigen) refills without waiting when it can; .bin/ovl0d/swigen is
# call 60's build. noepi/nomma split the time.
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 73 --timeout 60s --name $P --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap \
  --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -8
log timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $V verify --name $P --shape 300,136,264 --timeout 60s
grep -E "SUMMARY|rror|FAIL|fail" $O/logs/$n.txt | head -4
log timeout 250 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnoepi \
  --name $P --name ${P}_dbgnoepi --name ${P}_dbgnomma --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-130
log timeout 100 ./.bin/ovl0d/swigen bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P
grep -A4 "^summary" $O/logs/$n.txt | cut -c1-130
cd $O && tar czf logs.tgz logs && rm -rf logs

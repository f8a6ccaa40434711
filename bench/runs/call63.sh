#!/usr/bin/env bash
# Device call 63 (session 5). Call 62: the overlap kernel reads no more DRAM
# than ping-pong (1.8-2.0 GB, L2 hit 80-81%): not HBM. Its try-only refill
# used mbarrier.try_wait, which may suspend thread 0; this build polls with
# test_wait. Also ping-pong nomma for the load ring's own speed.
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 74 --timeout 60s --name $P --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -4
log timeout 250 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnomma \
  --name $P --name ${P}_dbgnoepi --name ${P}_dbgnomma --name bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap_dbgnomma
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-130
cd $O && tar czf logs.tgz logs && rm -rf logs

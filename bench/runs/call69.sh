#!/usr/bin/env bash
# Device call 69 (session 5). Call 68: overlap 128x192 at producer 32 /
# consumers 240 failed to launch: setmaxnreg redistributes the entry
# allocation (3 x 168 = 504 per thread-triple), so 32 + 2 x 240 never
# fits and TRY_ALLOC spins until the producer's deadline traps. Now 24/240
# (a 4-byte entry spill allowed). Same checks and bench as call 68's second
# half.
. "$(dirname "$0")/lib.sh"
V=./.bin/o2/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 150 $V verify --seed 79 --timeout 60s --name $P --name bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x1_overlap_bmn --name ${P}_rn_g4_tanh
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -4
log timeout 250 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $P --name ${P}_rn_g4_tanh \
  --name ${P}_dbgnoepi --name ${P}_dbgnomma --name bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_cooperative
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-125
cd $O && tar czf logs.tgz logs && rm -rf logs

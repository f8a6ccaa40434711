#!/usr/bin/env bash
# Device call 71 (session 5): call 70 found the overlap consumer's slice size
# decisive (fragments per slice 1: 368.0 us, 2: 283.6, 4: 252.7 at S1).
# 8 (.bin/o2f8, 6 slices per tile, no spill) and 16 (.bin/o2f16, one slice
# per sub-tile, a 24-byte spill) on branch wip/overlap2.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 100 ./.bin/o2f8/swigen verify --seed 81 --timeout 60s --name $P
echo "f8 verify: $(tail -1 $O/logs/$n.txt)"
log timeout 150 ./.bin/o2f8/swigen bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $P
echo "f8:"; grep -A5 "^summary" $O/logs/$n.txt | cut -c1-120
log timeout 100 ./.bin/o2f16/swigen bench bwd --reps 20 --shape 16384,768,4608 --name $P
echo "f16: $(grep -A2 "^summary" $O/logs/$n.txt | grep overlap | cut -c60-120)"
cd $O && tar czf logs.tgz logs && rm -rf logs

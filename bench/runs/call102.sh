#!/usr/bin/env bash
# Session 8, call 102: why the 128x192 epilogue is slow.
# Call 101's trace: 128x192 spends 11.9-12.7 us per tile in its epilogue
# (6 sub-tiles, ~1.8 us each) against a 6.6-7.3 us mainloop, so the tensor
# cores idle ~30% of each period; 128x128 spends 5.8 us (4 sub-tiles,
# ~1.2 us each) and is mainloop-bound. Same instruction mix per sub-tile
# (SASS: every epilogue opcode x1.5), so not register spills.
# (1) the epilogue's parts at 128x192 and 128x128 (no de loads, no stores,
#     no shared memory at all), full kernel time;
# (2) 128x128 with 8 and 16 fragments per load group (.bin/g8, .bin/g16:
#     epiGroup changed, everything else equal; 128x192 spills at 8), full
#     and trace, against epiGroup 4.
# Prediction: if the epilogue's shared-memory traffic beside the other
# consumer's wgmma bounds it, nosmem falls far more than noload/nostore;
# g8/g16 shorten the 128x128 epilogue but not the kernel (mainloop-bound).
. "$(dirname "$0")/lib.sh"
Q=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k
P=${N}_s5_c1x1_pingpong_rn_g2_l2k
log timeout 200 $B bench bwd --reps 20 --shape 16384,768,4608 --name $Q --name ${Q}_dbgnosmem --name ${Q}_dbgnoload --name ${Q}_dbgnostore \
  --name $P --name ${P}_dbgnosmem --name ${P}_dbgnoload --name ${P}_dbgnostore --name ${P}_dbgtrace --json "$O/results"
grep -A9 "^summary" $O/logs/$n.txt | cut -c1-150
grep -A4 "^trace:" $O/logs/$n.txt
for g in 8 16; do
  log timeout 120 ./.bin/g$g/swigen bench bwd --reps 20 --shape 16384,768,4608 --name $P --name ${P}_dbgtrace --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --json "$O/results/g$g"
  grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
  grep -A4 "^trace:" $O/logs/$n.txt
done
log timeout 120 $B bench bwd --reps 20 --shape 16384,768,4608 --name $P --name ${N}_s4_c1x1_pingpong_rn_g2_out_l2k --json "$O/results"
grep -A3 "^summary" $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs results && rm -rf logs results

#!/usr/bin/env bash
# Device call 70 (session 5): the overlap consumer's slice size on branch
# wip/overlap2 (128x192 s4): 2 accumulator fragments per slice (.bin/o2,
# 24 slices per tile), 4 (.bin/o2f4, 12 slices) and 1 (.bin/o2f1, 48 slices).
# Fewer, larger slices mean fewer EFull checks and loop trips between
# k-blocks, more registers live per slice. S1 only.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
log timeout 100 ./.bin/o2f4/swigen verify --seed 80 --timeout 60s --name $P
echo "f4 verify: $(tail -1 $O/logs/$n.txt)"
for b in o2 o2f4 o2f1; do
  log timeout 100 ./.bin/$b/swigen bench bwd --reps 20 --shape 16384,768,4608 --name $P
  echo "$b: $(grep -A2 "^summary" $O/logs/$n.txt | grep overlap | cut -c60-120)"
done
cd $O && tar czf logs.tgz logs && rm -rf logs

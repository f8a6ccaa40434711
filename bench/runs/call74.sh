#!/usr/bin/env bash
# Session 6, call 74: the printf-free trace (new). Verify the trace variants
# (results must be right), then bench S1 and 8192x4096x14336 with each trace
# next to its plain kernel: the trace's cost shows in the same run, and its
# per-tile summary says where the overlap schedule's consumers wait.
# Predictions: trace <= 2% slower than plain. Overlap at S1 (248 us, 23-24
# tiles per consumer, ~10.5 us per tile): if the slices hold up the wgmma
# issue, mma-wait per tile stays small and the period exceeds mainloop time
# in noepi (167 us -> ~7 us per tile); if de arrives late, de-wait is large.
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
Q=${N}_s5_c1x1_pingpong
log timeout 200 $B verify --seed 92 --timeout 60s --name ${P}_dbgtrace --name ${Q}_dbgtrace --name ${P}_sf8_dbgtrace
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -4
log timeout 400 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name $P --name ${P}_dbgtrace --name ${P}_sf8_dbgtrace \
  --name $Q --name ${Q}_dbgtrace --name ${P}_tanh_dbgtrace
grep -E "^trace|^consumer|^[01] |config" $O/logs/$n.txt | cut -c1-140
grep -A14 "^summary" $O/logs/$n.txt | cut -c1-140
cd $O && tar czf logs.tgz logs && rm -rf logs

#!/usr/bin/env bash
# Session 6, call 76 (depth-2 reverted: main is the depth-1 overlap of calls
# 72-74 plus the trace's issue/drain words). Where does the overlap schedule
# (128x192) start to beat ping-pong (128x128 s5, the heuristic) as K grows?
# Calls 72-75: K=768 ping-pong 2.5% faster; 8192x4096x14336 overlap 3-4%
# faster. Shapes: M=16384, I=4608 at K = 768, 1536, 2048, 4096, and the
# large one. Then the depth-1 trace with the issue/drain words.
# Prediction: the crossover lies near K=1536-2048 (the slices, 12 per tile,
# spread over more k-blocks as K grows).
. "$(dirname "$0")/lib.sh"
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
SH="--shape 16384,768,4608 --shape 16384,1536,4608 --shape 16384,2048,4608 --shape 16384,4096,4608 --shape 8192,4096,14336"
for r in 1 2; do
  log timeout 250 $B bench bwd --reps 30 $SH --name ${N}_s5_c1x1_pingpong --name $P
  grep -A12 "^summary" $O/logs/$n.txt | cut -c1-120
done
log timeout 200 $B bench bwd --reps 30 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${P}_dbgtrace
grep -E "^trace|^consumer|^[01] " $O/logs/$n.txt | cut -c1-150
grep -A4 "^summary" $O/logs/$n.txt | cut -c1-120
cd $O && tar czf logs.tgz logs && rm -rf logs

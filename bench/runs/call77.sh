#!/usr/bin/env bash
# Session 6, call 77: the overlap schedule as a product config (this
# revision): catalog 128x192 bf16/fp16, heuristic for K >= 2048, tuning space.
# (1) the whole sm_90a catalog on the ragged shapes; (2) the MLP step check
# at a K that picks the overlap schedule, with and without --recompute-out
# (then HeuristicStoreOut keeps ping-pong); (3) tune at 8192x4096x14336 over
# the 1x1 candidates. Prediction: all pass; tune ranks overlap 128x192 s4 at
# or near the top (~1390 us vs ping-pong ~1440).
. "$(dirname "$0")/lib.sh"
log timeout 500 $B verify --catalog --seed 94 --timeout 60s
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -5
grep -c "^ok " $O/logs/$n.txt
for ro in "" --recompute-out; do
  log timeout 200 $B bench mlp --check-only --check-shape 300,2048,264 $ro
  grep -iE "overlap|pingpong|pass|fail|rel" $O/logs/$n.txt | cut -c1-160 | head -12
done
log timeout 420 $B tune --shape 8192,4096,14336 --filter _c1x1_ --reps 20 --db "$O/tune-large.json" --report "$O/tune-large.svg"
tail -25 $O/logs/$n.txt | cut -c1-150
cd $O && tar czf logs.tgz logs && rm -rf logs

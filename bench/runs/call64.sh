#!/usr/bin/env bash
# Device call 64 (session 5). Call 63: test_wait changed nothing; the
# overlap load ring alone (nomma) is 1.87x slower than ping-pong's with the
# same 128x128 tile and 5 stages (2775 vs 1485 us at 8192x4096x14336).
# Hypotheses: (a) thread 0's per-load tile-coordinate divisions (now cached),
# (b) loads issued from consumer 0's thread 0 at all: SWIGEN_EXP_PWARP=1
# builds a ninth producer warp that issues every load, as ping-pong does.
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
P=bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap
Q=bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap
log timeout 150 $V verify --seed 75 --timeout 60s --name $P --name $Q
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -3
export SWIGEN_EXP_PWARP=1
log timeout 150 $V verify --seed 75 --timeout 60s --name $Q
grep -v "^ok \|^built" $O/logs/$n.txt | cut -c1-200 | tail -3
log timeout 200 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $Q --name ${Q}_dbgnomma
echo "PWARP=1:"; grep -A7 "^summary" $O/logs/$n.txt | cut -c1-130
unset SWIGEN_EXP_PWARP
log timeout 200 $V bench bwd --reps 20 --shape 16384,768,4608 --shape 8192,4096,14336 --name ${N}_s5_c1x1_pingpong --name $Q --name ${Q}_dbgnomma --name $P
echo "thread 0 loads:"; grep -A9 "^summary" $O/logs/$n.txt | cut -c1-130
cd $O && tar czf logs.tgz logs && rm -rf logs

#!/usr/bin/env bash
# Device call 51 (session 4): the bwd epilogue software-pipelined (group
# g+1's ld.shared issued before group g's math and st.shared; not for _out,
# which would spill) and one EEmpty arrive per consumer warp instead of
# 128. Call 50 showed the epilogue is exposed (K=384: 196 us against a
# 118 us mainloop). Verify, sanitizers, A/B against a457681 (.bin/prev) and
# dc6c558 (.bin/old) in the same run.
. "$(dirname "$0")/lib.sh"
OLD=./.bin/old/swigen; PREV=./.bin/prev/swigen
log timeout 150 $B verify --kernel bwd_dswiglu --catalog --seed 55; grep -v "^ok \|^built" "$O/logs/$n.txt" | tail -1
log timeout 200 $B verify --seed 56 --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s4_c1x1_pingpong_out \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_dbgtrace --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong_bmn --name ${N}_s5_c1x1_pingpong_dbgstg
grep -v "^ok \|^built\|swigen-trace" "$O/logs/$n.txt" | tail -3
bash bench/sanitize.sh > "$O/logs/sanitize.txt" 2>&1; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/logs/sanitize.txt"
S1=16384,768,4608
for bin in $PREV $B $OLD $PREV $B; do
  log timeout 120 $bin bench bwd --reps 30 --shape $S1 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh
  echo "$bin"; grep -A3 "^summary" "$O/logs/$n.txt" | tail -2 | cut -c1-112
done
for s in 16384,384,4608 8192,4096,14336; do
  log timeout 200 $B bench bwd --reps 20 --shape $s --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_dbgnoepi; grep -A3 "^summary" "$O/logs/$n.txt" | tail -2 | cut -c1-112
done
v=${N}_s5_c1x1_pingpong_dbgtrace
timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape $S1 --name $v > "$O/logs/trace.txt" 2>&1
grep swigen-trace "$O/logs/trace.txt" | tail -400 | awk '
  { j=$3; sub(/j=/,"",j); if (j+0 < 2) next; c=$2; m=$6; sub(/mainloop=/,"",m); w=$10; gsub(/[)]/,"",w); o=$5; sub(/order=/,"",o); ep=$11; sub(/epilogue=/,"",ep); de=$15; gsub(/[),]/,"",de);
    n[c]++; M[c]+=m; W[c]+=w; O[c]+=o; E[c]+=ep; D[c]+=de }
  END { for (c in n) printf "trace %s tiles=%d order=%.0f mainloop=%.0f (operand wait %.0f) epilogue=%.0f (de wait %.0f) ns\n", c, n[c], O[c]/n[c], M[c]/n[c], W[c]/n[c], E[c]/n[c], D[c]/n[c] }'
cd "$O" && tar czf logs.tgz logs && rm -rf logs

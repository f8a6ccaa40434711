#!/usr/bin/env bash
# Device call 49 (session 4): bwd_dswiglu's producer warp stores the
# results. Call 47's trace: thread 0 of each consumer waited ~1.0-1.2 us per
# tile for its TMA stores to read their slots (4 sub-tiles), with the whole
# warpgroup behind it at the next named barrier, on the critical path
# (mainloop + epilogue of consumer 0). Now every consumer thread fences and
# arrives on the slot's EEmpty barrier (128 arrivals) and moves on; the
# producer's epilogue warp stores the slot, waits for the read, reloads it.
# The store-only kinds stage with stmatrix.x4 (measured neutral in call 45).
# Verify, sanitizers, then A/B against the previous revision (dc6c558).
. "$(dirname "$0")/lib.sh"
OLD=./.bin/old/swigen
for k in bwd_dswiglu gemm fwd_gateup fwd_down; do
  log timeout 150 $B verify --kernel $k --catalog --seed 53; grep -v "^ok \|^built" "$O/logs/$n.txt" | tail -1
done
log timeout 200 $B verify --seed 54 --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s4_c1x1_pingpong_out \
  --name ${N}_s5_c1x1_pingpong_rn_g4_tanh --name ${N}_s5_c1x1_pingpong_dbgtrace --name bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_pingpong_bmn
grep -v "^ok \|^built\|swigen-trace" "$O/logs/$n.txt" | tail -3
bash bench/sanitize.sh > "$O/logs/sanitize.txt" 2>&1; grep -E "===|ERROR SUMMARY|exit" "$O/logs/sanitize.txt"
S1=16384,768,4608
for bin in $OLD $B $OLD $B; do
  log timeout 120 $bin bench bwd --reps 30 --shape $S1 --name ${N}_s5_c1x1_pingpong --name ${N}_s5_c1x1_pingpong_rn_g4_tanh
  grep -A3 "^summary" "$O/logs/$n.txt" | tail -2 | cut -c1-112
done
log timeout 300 $B bench bwd --reps 20 --shape $S1 --name ${N}_s5_c1x2_pingpong --name ${N}_s5_c2x1_pingpong --name ${N}_s4_c1x1_pingpong_e64x64s3 \
  --name ${N}_s5_c1x1_pingpong_dbgnoload --name ${N}_s5_c1x1_pingpong_dbgnostore --name ${N}_s5_c1x1_pingpong_dbgnoepi
grep -A7 "^summary" "$O/logs/$n.txt" | cut -c1-112
for s in $S1 8192,4096,14336; do
  log timeout 150 $B bench bwd --reps 20 --shape $s --json "$O/results"; grep -A2 "^summary" "$O/logs/$n.txt" | tail -1 | cut -c1-150
done
v=${N}_s5_c1x1_pingpong_dbgtrace
timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape $S1 --name $v > "$O/logs/trace.txt" 2>&1
grep swigen-trace "$O/logs/trace.txt" | tail -400 | awk '
  { j=$3; sub(/j=/,"",j); if (j+0 < 2) next; c=$2; m=$6; sub(/mainloop=/,"",m); w=$10; gsub(/[)]/,"",w); o=$5; sub(/order=/,"",o); ep=$11; sub(/epilogue=/,"",ep); de=$15; gsub(/[),]/,"",de);
    n[c]++; M[c]+=m; W[c]+=w; O[c]+=o; E[c]+=ep; D[c]+=de }
  END { for (c in n) printf "trace %s tiles=%d order=%.0f mainloop=%.0f (operand wait %.0f) epilogue=%.0f (de wait %.0f) ns\n", c, n[c], O[c]/n[c], M[c]/n[c], W[c]/n[c], E[c]/n[c], D[c]/n[c] }'
bash bench/gpu_tests.sh > "$O/logs/gputests.txt" 2>&1; grep -E "===|passed|FAIL" "$O/logs/gputests.txt" | tail -8
cd "$O" && tar czf logs.tgz logs results && rm -rf logs results

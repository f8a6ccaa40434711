#!/usr/bin/env bash
# Device call 46 (session 4): where do clusters lose? The mainloop alone
# (noepi), the data movement + epilogue alone (nomma) and the full kernel for
# 1x1, 1x2 (dy multicast) and 2x1 (W_down multicast), then per-tile traces
# (_dbgtrace) of 1x1 and 1x2 averaged over CTA 0's steady state.
. "$(dirname "$0")/lib.sh"
mkdir -p "$O/logs"
names=""
for c in c1x1 c1x2 c2x1; do for d in "" _dbgnoepi _dbgnomma; do names="$names --name ${N}_s5_${c}_pingpong$d"; done; done
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 $names > "$O/logs/bench.txt" 2>&1
grep -A12 "^summary" "$O/logs/bench.txt" | cut -c1-120
for c in c1x1 c1x2 c2x1; do
  v=${N}_s5_${c}_pingpong_dbgtrace
  echo "=== trace $v"
  timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape 16384,768,4608 --name $v > "$O/logs/trace_$c.txt" 2>&1
  grep swigen-trace "$O/logs/trace_$c.txt" | tail -400 | awk '
    { j=$3; sub(/j=/,"",j); if (j+0 < 2) next; c=$2; m=$6; sub(/mainloop=/,"",m); w=$10; gsub(/[)]/,"",w); o=$5; sub(/order=/,"",o); ep=$11; sub(/epilogue=/,"",ep); de=$15; bar=$17; gsub(/[),]/,"",de); gsub(/[)]/,"",bar);
      n[c]++; M[c]+=m; W[c]+=w; O[c]+=o; E[c]+=ep; D[c]+=de; B[c]+=bar }
    END { for (c in n) printf "%s tiles=%d order=%.0f mainloop=%.0f (operand wait %.0f) epilogue=%.0f (de wait %.0f, barrier %.0f) ns\n", c, n[c], O[c]/n[c], M[c]/n[c], W[c]/n[c], E[c]/n[c], D[c]/n[c], B[c]/n[c] }'
  grep swigen-trace "$O/logs/trace_$c.txt" | tail -2
done
cd "$O" && tar czf logs.tgz logs && rm -rf logs

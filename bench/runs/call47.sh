#!/usr/bin/env bash
# Device call 47 (session 4): the ping-pong epilogue's time split. The trace
# now also stamps thread 0's wait for each TMA store to read its slot; the
# epilogue halves (_dbgnoload: no de loads, _dbgnostore: no grad_de stores,
# _dbgnosmem: neither, no staging) against the full kernel in one run.
. "$(dirname "$0")/lib.sh"
mkdir -p "$O/logs"
names=""
for d in "" _dbgnoload _dbgnostore _dbgnosmem _dbgnoepi; do names="$names --name ${N}_s5_c1x1_pingpong$d"; done
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 $names > "$O/logs/bench.txt" 2>&1
grep -A6 "^summary" "$O/logs/bench.txt" | cut -c1-110
for v in ${N}_s5_c1x1_pingpong_dbgtrace ${N}_s5_c1x1_pingpong_rn_g4_tanh_dbgtrace; do
  echo "=== trace $v"
  timeout 200 $B bench bwd --reps 20 --warmup 100ms --shape 16384,768,4608 --name $v > "$O/logs/trace.txt" 2>&1
  grep swigen-trace "$O/logs/trace.txt" | tail -400 | awk '
    { j=$3; sub(/j=/,"",j); if (j+0 < 2) next; c=$2; m=$6; sub(/mainloop=/,"",m); w=$10; gsub(/[)]/,"",w); o=$5; sub(/order=/,"",o); ep=$11; sub(/epilogue=/,"",ep); de=$15; bar=$17; st=$20; gsub(/[),]/,"",de); gsub(/[),]/,"",bar); gsub(/[)]/,"",st);
      n[c]++; M[c]+=m; W[c]+=w; O[c]+=o; E[c]+=ep; D[c]+=de; B[c]+=bar; S[c]+=st }
    END { for (c in n) printf "%s tiles=%d order=%.0f mainloop=%.0f (operand wait %.0f) epilogue=%.0f (de wait %.0f, barrier %.0f, store read %.0f) ns\n", c, n[c], O[c]/n[c], M[c]/n[c], W[c]/n[c], E[c]/n[c], D[c]/n[c], B[c]/n[c], S[c]/n[c] }'
  grep swigen-trace "$O/logs/trace.txt" | tail -1
done
cd "$O" && tar czf logs.tgz logs && rm -rf logs

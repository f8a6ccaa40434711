#!/usr/bin/env bash
# Device call 55 (session 4): is shared memory the bound? ncu on one launch
# of the default kernel, its mainloop alone (_dbgnoepi) and its math without
# epilogue memory traffic (_dbgnosmem): L1/shared data-bank reads and
# writes (every client: LSU, TMA, wgmma operand fetch) as % of peak, next to
# L2 and DRAM throughput. The model (NOTES run 45) predicts the banks near
# their peak in all three.
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed
for v in $P ${P}_dbgnoepi ${P}_dbgnosmem bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_dbgnoepi; do
  echo "=== ncu $v"
  timeout 120 ncu --launch-count 1 --launch-skip 2 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B bench bwd --reps 20 --warmup 10ms --shape 16384,768,4608 --name $v > /tmp/n.txt 2>&1
  grep -E "^\s+(sm__|l1tex|gpu__|lts__|dram__)|rror|ERR" /tmp/n.txt | head -10
done
echo "=== section fallback"
timeout 120 ncu --launch-count 1 --launch-skip 2 --kernel-name regex:bwd_dswiglu --section MemoryWorkloadAnalysis_Tables \
  $B bench bwd --reps 20 --warmup 10ms --shape 16384,768,4608 --name $P > /tmp/n.txt 2>&1
grep -iE "shared|bank|rror" /tmp/n.txt | head -20

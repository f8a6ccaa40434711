#!/usr/bin/env bash
# Device call 33 (session 2): is the overlapped mainloop slowed by the
# epilogue's shared-memory traffic? _dbgnosmem (epilogue math without any
# shared memory) against the full kernel and the other splits; ncu pipe and
# shared-memory bank utilisation.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}; mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
run timeout 300 $B bench bwd --reps 20 --shape 16384,768,4608 --json "$O/results" \
  --name ${N} --name ${N}_dbgnosmem --name ${N}_dbgnoepi --name ${N}_dbgnoload --name ${N}_dbgnostore --name ${N}_dbgnomma 2>&1 | grep -A30 "^summary"
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
for v in ${N} ${N}_dbgnosmem ${N}_dbgnoepi; do
  echo "=== ncu $v"
  timeout 120 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B verify --name $v --shape 16384,768,4608 2>&1 | grep -E "^\s+(sm__|l1tex|smsp|gpu__)|ERR|rror" | head -12
done
cd "$O" && tar czf results.tgz results && rm -rf results

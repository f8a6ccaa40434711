#!/usr/bin/env bash
# Session 6, call 80. (1) ncu on ping-pong vs pstg at S1: do 16-byte global
# stores from registers take the shared-memory banks' bandwidth (call 79:
# pstg, without st.shared and the TMA store's read, is not faster)?
# Counters: L1 data-bank reads/writes, shared and global LSU wavefronts,
# tensor pipe active. (2) the MLP step ledger at 8192x4096x14336, where the
# backward's fused kernel is now the overlap schedule.
# Prediction: pstg's data-bank writes drop by ~1/3 (no st.shared) while its
# global wavefronts rise; the step at the large shape ~1.05x.
. "$(dirname "$0")/lib.sh"
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
for v in ${N}_s5_c1x1_pingpong ${N}_s5_c1x1_pingpong_dbgpstg; do
  echo "=== ncu $v"
  timeout 150 ncu --clock-control none --launch-count 1 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B verify --name $v --shape 16384,768,4608 2>&1 | grep -E "^\s+(sm__|l1tex|lts|gpu__)|ERR|rror" | head -12
done
log timeout 300 $B bench mlp --shape 8192,4096,14336 --reps 20 --json "$O/results"
grep -vE "^\s*$" $O/logs/$n.txt | tail -30 | cut -c1-160
cd $O && tar czf logs.tgz logs results && rm -rf logs

#!/usr/bin/env bash
# Device call 43 (session 3): is the full kernel's slower mainloop a clock
# effect? ncu showed 1.61 GHz under the full kernel and 1.75 GHz under
# noepi (clocks free). With clocks locked to base (--clock-control base)
# both run at one frequency: if full/noepi stays ~1.35 (254/189), clocks
# are not the cause. Prediction: the ratio drops by <= 0.08 (the 8% clock gap).
. "$(dirname "$0")/lib.sh"
P=${N}_s5_c1x1_pingpong
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
for cc in base none; do for v in $P ${P}_dbgnoepi ${P}_dbgnosmem; do
  echo "=== ncu --clock-control $cc $v"
  timeout 100 ncu --clock-control $cc --launch-count 1 --launch-skip 2 --kernel-name regex:bwd_dswiglu --metrics $M \
    $B bench bwd --reps 20 --warmup 10ms --shape 16384,768,4608 --name $v 2>&1 | grep -E "^\s+(sm__|l1tex|gpu__)|rror" | head -6
done; done

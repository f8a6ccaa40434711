#!/usr/bin/env bash
# Device call 62 (session 5). Call 61: the overlap kernel's loads are slow on
# their own (nomma at 8192x4096x14336: 2012 us vs ping-pong's whole kernel
# 1447), ~0.85 us per k-block for 128x128 and 128x192 alike. Is it HBM (L2
# misses from the tile order) or the load chain's latency? ncu on one launch
# of each at that shape: DRAM bytes, L2 hit rate, duration.
. "$(dirname "$0")/lib.sh"
V=./.bin/ovl/swigen
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
for nm in ${N}_s5_c1x1_pingpong bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_overlap bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_dbgnomma; do
  log timeout 120 ncu -k regex:^bwd_dswiglu_sm90a --metrics $M $V verify --name $nm --shape 8192,4096,14336 --timeout 60s
  echo "--- $nm"; grep -E "gpu__time|dram__bytes|hit_rate|srcunit_tex|hmma" $O/logs/$n.txt | head -6
done
cd $O && tar czf logs.tgz logs && rm -rf logs

#!/usr/bin/env bash
# One device call (carry .bin/swigen and .bin-gt/swigen): the gemm table
# against no table on shapes outside the suite ([gemm-engine] item 4's
# held-out rule, docs/PERFORMANCE.md#gemm-table). .bin-gt/swigen is this
# revision built with tiling/measured.json replaced by a table of the gemm
# DB alone:
#   swigen tune table bench/results/gemm-table/suite-gemm-h100.json -o tiling/measured.json
#   CGO_ENABLED=0 go build -o .bin-gt/swigen ./cmd/swigen   (then restore the file)
# Both binaries run bench/gemm_table.sh's phase 2 on the outside shapes
# alone (ONLY=outside), one after the other on the same GPU, each pick
# against cuBLAS in its own process. Held-out shapes: the six of
# gemm_table.sh and twelve more public model sizes (Yi-34B, Mistral-Nemo,
# Gemma-2-27B, Phi-3-medium, Qwen2-1.5B, InternLM2-20B; ragged M at 1000,
# 3000, 6000, 6161), none of them tuned. Prints per shape both speeds and
# the geomean and min of each binary last.
set -u
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
export ONLY=outside PHASE=2
export OUT_KK="4096,37888,3584 4096,27648,5120 3000,14336,4096 6161,27648,5120 4096,40960,7168 4096,20480,7168 6000,28672,5120 2048,73728,4608 3072,35840,5120 8192,17920,1536 4096,32768,6144 1000,14336,4096"
export OUT_KMN="6144,4096,28672 4096,7168,40960 3072,5120,35840"
export OUT_MNMN="8192,3072,8192 40960,7168,4096 17920,1536,8192"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
for b in heuristic:.bin/swigen table:.bin-gt/swigen; do
  name=${b%%:*}
  mkdir -p "$OUT/$name"
  t0=$(date +%s)
  OUT=$OUT/$name SW=./${b#*:} WORK=/tmp/swigen-gemmtab-$name bash bench/gemm_table.sh >"$OUT/$name.txt" 2>&1
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s"
done
# group shape config swigen_us cublas_us speed, per binary; joined by shape.
join -j1 <(awk '{print $1"/"$2, $3, $6}' "$OUT/heuristic/gemm-table-rows.txt" | sort) \
         <(awk '{print $1"/"$2, $3, $6}' "$OUT/table/gemm-table-rows.txt" | sort) >"$OUT/ab.txt"
echo
printf '%-36s %-28s %6s   %-28s %6s\n' shape heuristic speed table speed
awk '{printf "%-36s %-28s %6s   %-28s %6s\n", $1, substr($2,1,28), $3, substr($4,1,28), $5}' "$OUT/ab.txt"
awk '$3 > 0 && $5 > 0 { n++; lh += log($3); lt += log($5); if (!mh || $3 < mh) mh = $3; if (!mt || $5 < mt) mt = $5 }
  END { printf "\nn %d  heuristic geomean %.3f min %.3f | table geomean %.3f min %.3f (speed = cuBLAS us / swigen us)\n", n, exp(lh/n), mh, exp(lt/n), mt }' "$OUT/ab.txt"

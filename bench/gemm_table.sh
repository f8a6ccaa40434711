#!/usr/bin/env bash
# The gemm table ([gemm-engine] item 4), two device calls (carry .bin/,
# built by bench/build.sh):
#   PHASE=1  swigen tune --kernel gemm --suite: the training step's GEMMs on
#            swigen's gemm at every suite shape (82 problems: gate-up, dout,
#            dx, dW, dW_down, in their majors), ~14 screened candidates each
#            after the prune model, the best 2 and the heuristic measured
#            fully. Writes $OUT/suite-gemm.json. Expected 6-8 minutes.
#            Then: copy it to bench/results/tune/suite-gemm.json, rebuild the
#            table (the command in tiling/measured.json's source, with the
#            new DB added), bash bench/build.sh, run phase 2.
#   PHASE=2  swigen bench gemm, the heuristic's config (the table's nearest
#            winner of the same majors) vs cuBLAS at every step GEMM of the
#            suite (the 82 tuned and the 14 fwd down GEMMs, which the step
#            runs on fwd_down: their nearest winner is a dx one) and at 6
#            shapes outside it. Expected 2-3 minutes. ONLY=outside times
#            the shapes outside the suite alone (OUT_KK, OUT_KMN, OUT_MNMN
#            replace them), e.g. to A/B two binaries' picks in one call.
# Prints a short table last: per group geomean and min of swigen/cuBLAS
# speed, the 2048,7168,4096 row, and PASS/FAIL against the targets
# (geomean >= 1.03, min >= 0.98 over the suite's step GEMMs).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
W=${WORK:-/tmp/swigen-gemmtab}
mkdir -p "$W" "$OUT"
SW=${SW:-./.bin/swigen}
PHASE=${PHASE:-1}

if [ "$PHASE" = 1 ]; then
  start=$(date +%s)
  # The call's limit is 600 s: tune stops at LIMIT so the DB (written as
  # results come) and the logs come back even when the suite runs long.
  timeout "${LIMIT:-570}" $SW tune --kernel gemm --suite --db "$OUT/suite-gemm.json" --screen-keep 2 --reps 30 --warmup 100ms \
    >"$OUT/tune-gemm.log" 2>"$OUT/tune-gemm.err"
  rc=$?
  echo "tune --kernel gemm --suite: exit $rc in $(( $(date +%s) - start )) s"
  tail -n 100 "$OUT/tune-gemm.log"
  [ $rc = 0 ] && echo "PASS phase 1 (records in \$OUT/suite-gemm.json)" || echo "FAIL phase 1 (see tune-gemm.err)"
  exit $rc
fi

# Phase 2: the suite's step GEMMs by majors (M,N,K), then the shapes
# outside it: Qwen2-7B gate-up at M=4096, Mistral-7B dx at M=6144,
# Llama-2-13B gate-up at M=4096, Llama-3-8B dout at ragged M=3000,
# Qwen2.5-14B gate-up at ragged M=6161 (6144+17), Phi-3-mini dW_down at
# M=8192.
KK="16384,9216,768 16384,4608,768 8192,28672,4096 8192,14336,4096 4096,14336,4096 4096,7168,4096 2048,7168,4096 2048,3584,4096 128,28672,4096 128,14336,4096 8192,57344,8192 8192,28672,8192 8192,14336,8192 8192,7168,8192 8192,3584,8192 32768,7168,8192 32768,3584,8192 8192,37888,3584 8192,18944,3584 4096,18944,3584 4096,9472,3584 4096,28672,4096 4096,4096,7168 4096,2048,7168 512,4096,7168 512,2048,7168 2048,1536,2048 2048,768,2048 8192,28672,3584 8192,14336,3584 16384,14336,3584 16384,7168,3584"
KMN="16384,768,9216 16384,768,4608 8192,4096,28672 8192,4096,14336 4096,4096,14336 4096,4096,7168 2048,4096,7168 2048,4096,3584 128,4096,28672 128,4096,14336 8192,8192,57344 8192,8192,28672 8192,8192,14336 8192,8192,7168 8192,8192,3584 32768,8192,7168 32768,8192,3584 8192,3584,37888 8192,3584,18944 4096,3584,18944 4096,3584,9472 4096,4096,28672 4096,7168,4096 4096,7168,2048 512,7168,4096 512,7168,2048 2048,2048,1536 2048,2048,768 8192,3584,28672 8192,3584,14336 16384,3584,14336 16384,3584,7168"
MNMN="9216,768,16384 4608,768,16384 28672,4096,8192 14336,4096,8192 14336,4096,4096 7168,4096,4096 7168,4096,2048 3584,4096,2048 28672,4096,128 14336,4096,128 57344,8192,8192 28672,8192,8192 14336,8192,8192 7168,8192,8192 3584,8192,8192 7168,8192,32768 3584,8192,32768 37888,3584,8192 18944,3584,8192 18944,3584,4096 9472,3584,4096 28672,4096,4096 4096,7168,4096 2048,7168,4096 4096,7168,512 2048,7168,512 1536,2048,2048 768,2048,2048 28672,3584,8192 14336,3584,8192 14336,3584,16384 7168,3584,16384"
OUT_KK=${OUT_KK:-"4096,37888,3584 4096,27648,5120 3000,14336,4096 6161,27648,5120"}
OUT_KMN=${OUT_KMN:-"6144,4096,28672"}
OUT_MNMN=${OUT_MNMN:-"8192,3072,8192"}

run() { # name majorA majorB shapes...
  local name=$1 ma=$2 mb=$3; shift 3
  local args=()
  for s in "$@"; do args+=(--shape "$s"); done
  $SW bench gemm --major-a "$ma" --major-b "$mb" "${args[@]}" --reps 30 --warmup 100ms >"$OUT/gemm-$name.log" 2>&1 \
    || echo "bench gemm $name: exit $?"
}
if [ "${ONLY:-}" != outside ]; then
  run suite-kk k k $KK
  run suite-kmn k mn $KMN
  run suite-mnmn mn mn $MNMN
fi
run outside-kk k k $OUT_KK
run outside-kmn k mn $OUT_KMN
run outside-mnmn mn mn $OUT_MNMN

# One row per shape: group, M,N,K, config, swigen us, cuBLAS us, speed.
rows() { # group log
  awk -v g="$1" '
    /^gemm M=/ { shape = $2 "," $3 "," $4; cfg = $6; sw = ""; cb = "" }
    /swigen \/ cuBLAS speed/ { printf "%s %s %s %s %s %s\n", g, shape, substr(cfg, 12), sw, cb, $5; next }
    /^  cuBLAS/ { cb = $2 }
    /^  swigen / { sw = $3 }
  ' "$2"
}
{
  for n in kk kmn mnmn; do rows suite-$n "$OUT/gemm-suite-$n.log"; rows outside-$n "$OUT/gemm-outside-$n.log"; done
} >"$OUT/gemm-table-rows.txt"
cat "$OUT/gemm-table-rows.txt"
echo
awk '
  { if ($4 + 0 <= 0 || $5 + 0 <= 0) next; r = $5 / $4  # cuBLAS us / swigen us
    g = ($1 ~ /^suite/) ? "suite" : "outside"
    n[g]++; l[g] += log(r); if (!(g in mn) || r < mn[g]) { mn[g] = r; at[g] = $1 " " $2 " " $3 } }
  $1 == "suite-kk" && $2 == "M=2048,N=7168,K=4096" { row = $0 }
  END {
    printf "%-8s %5s %8s %8s  %s\n", "group", "n", "geomean", "min", "min at"
    for (g in n) printf "%-8s %5d %8.3f %8.3f  %s\n", g, n[g], exp(l[g] / n[g]), mn[g], at[g]
    print "2048x7168x4096 (k/k): " row
    ok = n["suite"] >= 96 && exp(l["suite"] / n["suite"]) >= 1.03 && mn["suite"] >= 0.98
    printf "%s targets (suite: geomean >= 1.03, min >= 0.98, 96 rows)\n", ok ? "PASS" : "FAIL"
  }' "$OUT/gemm-table-rows.txt"

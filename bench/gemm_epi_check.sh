#!/usr/bin/env bash
# One device call (< 8 minutes): the gemm epilogue levers of
# docs/PERFORMANCE.md#gemm-epilogue, A/B of an old binary directory against
# .bin/ (both built by bench/build.sh; carry both):
#   1. verify (new binary) of the kernels the change touches: ping-pong of
#      every kind (the order arrive before the drain) and the gemm space's
#      new points (whole-tile epilogue staging, a tile order, the narrow
#      widths 176-240);
#   2. bench gemm vs cuBLAS (same process) at the unfused path's GEMMs of
#      bench/gemm_sweep.sh plus 4096,7168,4096, 8192^3 and the seed's
#      gate-up GEMM (K-major A and B), new binary: the heuristic's 128x256,
#      its whole-tile-staged and raster-n forms, ping-pong 128x128 plain and
#      whole-tile-staged, 256x128 whole-tile-staged, 128x176 and 128x240
#      (widths not a multiple of 64); old binary: 128x256 (the same SASS: the drift
#      reference) and ping-pong 128x128 (the order change). Two rounds,
#      binaries alternating;
#   3. bench bwd at the seed 16384,768,4608, old and new alternating, two
#      rounds (must not get slower);
#   4. the dispatch rule (new binary) at OFF_SHAPES, outside the suite:
#      bench bwd and gateup --store-out, fused, unfused and the plan's path
#      (PLAN=0 skips).
#
#   OLD=.bin-old bash bench/gemm_epi_check.sh      (REPS, default 40)
#
# Logs under $OUT; a PASS/FAIL table of the verifies, then one line per
# gemm shape (each config's swigen/cuBLAS, median of the rounds), then the
# seed's bwd times, last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
OLD=${OLD:-.bin-old}
REPS=${REPS:-40}
W=${WORK:-/tmp/swigen-gemm-epi}
mkdir -p "$W" "$OUT"
export SWIGEN_CACHE_DIR=$W/cache
NEW_SW=./.bin/swigen OLD_SW=$OLD/swigen
for b in "$NEW_SW" "$OLD_SW"; do [[ -x $b ]] || { echo "FAIL: $b missing (bench/build.sh; carry it)"; exit 1; }; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
P=gemm_sm90a_bf16
D=${P}_m128n256k64_s4_c1x1_cooperative             # the heuristic's gemm
WS=${P}_m128n256k64_s3_c1x1_cooperative_e64x64s4   # whole-tile staging
RN=${P}_m128n256k64_s4_c1x1_cooperative_rn         # raster n
PP=${P}_m128n128k64_s6_c1x1_pingpong               # ping-pong
PW=${P}_m128n128k64_s5_c1x1_pingpong_e64x64s4      # ping-pong, whole-tile staging
W2=${P}_m256n128k64_s3_c1x1_cooperative_e64x64s4
N176=${P}_m128n176k64_s5_c1x1_cooperative          # nvjet's width, last sub-tile overlapping
N240=${P}_m128n240k64_s4_c1x1_cooperative
SHAPES=${SHAPES:-"2048,7168,4096 4096,7168,4096 8192,3584,8192 4096,2048,7168 4096,14336,4096 8192,7168,8192 4096,18944,3584 8192,8192,8192 16384,9216,768"}
NEW_NAMES="$D $WS $RN $PP $PW $W2 $N176 $N240"
OLD_NAMES="$D $PP"
VERIFY_NAMES="$PP $WS $PW $W2 $N176 $N240 ${P}_m128n208k64_s4_c1x1_cooperative ${P}_m128n224k64_s4_c1x1_cooperative \
${P}_m128n256k64_s4_c1x1_cooperative_rn_g16 \
bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out \
fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn_res"

# 0. Warm the build cache: every kernel below, both binaries, compiled in
# parallel (the benches and verifies then hit the cache).
t0=$(date +%s)
i=0
for n in $NEW_NAMES $VERIFY_NAMES; do $NEW_SW emit --name "$n" -o "$W/warm/new$i" >"$W/warm-new$i.log" 2>&1 & i=$((i + 1)); done
for n in $OLD_NAMES bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k; do
  $OLD_SW emit --name "$n" -o "$W/warm/old$i" >"$W/warm-old$i.log" 2>&1 & i=$((i + 1))
done
wait
echo "build cache warmed in $(($(date +%s) - t0)) s"

# 1. verify (new binary), one config per process (VERIFY=0 skips).
vres=()
[[ ${VERIFY:-1} == 1 ]] || VERIFY_NAMES=""
for n in $VERIFY_NAMES; do
  if timeout 90 $NEW_SW verify --name "$n" >"$W/verify-$n.log" 2>&1; then r=PASS; else r="FAIL($?)"; fi
  vres+=("$(printf '%-8s verify %-62s %s' "$r" "$n" "$(tail -1 "$W/verify-$n.log" | cut -c1-60)")")
done

# 2. bench gemm, binaries alternating, two rounds.
gemm() { # gemm TAG BINARY NAMES...
  local tag=$1 bin=$2; shift 2
  local args=() s
  for n in "$@"; do args+=(--name "$n"); done
  for s in $SHAPES; do args+=(--shape "$s"); done
  $bin bench gemm "${args[@]}" --reps "$REPS" >"$W/gemm-$tag.log" 2>&1 || echo "FAIL bench gemm $tag: exit $? ($(tail -1 "$W/gemm-$tag.log"))"
}
# BENCH=0 skips 2 and 3 (a verify-only call); ROUNDS=1 times one round.
if [[ ${BENCH:-1} == 1 ]]; then
gemm new-r0 "$NEW_SW" $NEW_NAMES
gemm old-r0 "$OLD_SW" $OLD_NAMES
if [[ ${ROUNDS:-2} == 2 ]]; then
  gemm old-r1 "$OLD_SW" $OLD_NAMES
  gemm new-r1 "$NEW_SW" $NEW_NAMES
fi

# 3. bench bwd at the seed, alternating.
for r in $(seq 0 $((${ROUNDS:-2} - 1))); do
  for v in old new; do
    [[ $v == old ]] && bin=$OLD_SW || bin=$NEW_SW
    mkdir -p "$W/bwd-$v-r$r"
    $bin bench bwd --shape 16384,768,4608 --reps "$REPS" --json "$W/bwd-$v-r$r" >"$W/bwd-$v-r$r.log" 2>&1 || echo "FAIL bench bwd $v r$r: exit $?"
  done
done
fi
# 4. The dispatch rule at shapes outside the suite that no tuning saw
# (PLAN=0 skips): fused, unfused and the plan's path, one run each.
if [[ ${PLAN:-1} == 1 && ${BENCH:-1} == 1 ]]; then
  OFF_SHAPES=${OFF_SHAPES:-"6144,5120,13824 3072,3584,18944"}
  for s in $OFF_SHAPES; do
    for v in "bwd" "gateup --store-out"; do
      tag="plan-$(tr -d ' -' <<<"$v")-${s//,/x}"
      mkdir -p "$W/$tag"
      # shellcheck disable=SC2086 # v is words
      $NEW_SW bench $v --shape "$s" --reps "$REPS" --json "$W/$tag" >"$W/$tag.log" 2>&1 || echo "FAIL bench $v $s: exit $?"
    done
  done
fi
echo "device time so far: $(($(date +%s) - t0)) s"
cp -r "$W"/*.log "$W"/bwd-* "$W"/plan-* "$OUT"/ 2>/dev/null

echo
for l in "${vres[@]}"; do echo "$l"; done
python3 - "$W" "$SHAPES" "$NEW_NAMES" <<'PY'
import glob, json, os, re, statistics, sys
w, shapes, names = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def parse(path):
    """(shape, config) -> swigen's speed over cuBLAS's (the bench's
    "swigen / cuBLAS speed", cuBLAS time / swigen time) from one log."""
    out, key = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^gemm M=(\d+) N=(\d+) K=(\d+)\s+config (\S+)", line)
        if m:
            key = ("%s,%s,%s" % m.group(1, 2, 3), m.group(4))
        m = re.search(r"swigen / cuBLAS speed: ([0-9.]+)x", line)
        if m and key:
            out[key] = float(m.group(1))
    return out
runs = {"new": [], "old": []}
for p in sorted(glob.glob(os.path.join(w, "gemm-*.log"))):
    runs["new" if "gemm-new" in p else "old"].append(parse(p))
short = {"m128n256k64_s4_c1x1_cooperative": "coop", "m128n256k64_s3_c1x1_cooperative_e64x64s4": "coop_ws",
         "m128n256k64_s4_c1x1_cooperative_rn": "coop_rn", "m128n128k64_s6_c1x1_pingpong": "pp",
         "m128n128k64_s5_c1x1_pingpong_e64x64s4": "pp_ws", "m256n128k64_s3_c1x1_cooperative_e64x64s4": "c256_ws",
         "m128n176k64_s5_c1x1_cooperative": "n176", "m128n240k64_s4_c1x1_cooperative": "n240"}
def med(v, s, n):
    xs = [r[(s, n)] for r in runs[v] if (s, n) in r]
    return "%5.3f" % statistics.median(xs) if xs else "  -  "
cols = [("new", n) for n in names] + [("old", names[0]), ("old", names[3])]
print("\nswigen speed / cuBLAS speed (higher is better), median of the rounds; /old: the old binary")
print("%-16s " % "M,N,K" + " ".join("%9s" % (short.get(n.split("bf16_")[-1], n[-9:]) + ("/old" if v == "old" else "")) for v, n in cols))
for s in shapes:
    print("%-16s " % s + " ".join("%9s" % med(v, s, n) for v, n in cols))
def stat(v, n, f):
    xs = [float(med(v, s, n)) for s in shapes if med(v, s, n).strip() != "-"]
    return "%5.3f" % f(xs) if xs else "  -  "
print("%-16s " % "geomean" + " ".join("%9s" % stat(v, n, statistics.geometric_mean) for v, n in cols))
print("%-16s " % "min" + " ".join("%9s" % stat(v, n, min) for v, n in cols))
print("\nthe dispatch rule off the suite (speedups over the baseline; best: the faster of swigen's paths):")
for d in sorted(glob.glob(os.path.join(w, "plan-*"))):
    for f in glob.glob(os.path.join(d, "*.json")):
        r = json.load(open(f))
        if not r.get("unfused_us"):
            continue
        best = "fused" if r["us"] <= r["unfused_us"] else "unfused"
        print("  %-34s fused %5.3fx unfused %5.3fx plan %-7s %5.3fx %s" % (
            os.path.basename(d), r["baseline_us"] / r["us"], r["baseline_us"] / r["unfused_us"], r["plan"],
            r["plan_speedup"], "ok" if r["plan"] == best or abs(r["us"] / r["unfused_us"] - 1) < 0.01 else "SLOWER PATH"))
print("\nbwd at 16384,768,4608 (us, fused / baseline):")
for d in sorted(glob.glob(os.path.join(w, "bwd-*-r*"))):
    for f in glob.glob(os.path.join(d, "*.json")):
        r = json.load(open(f))
        print("  %-12s %8.1f / %8.1f  %5.3fx  %s" % (os.path.basename(d), r["us"], r["baseline_us"], r["speedup"], r["config"]))
PY

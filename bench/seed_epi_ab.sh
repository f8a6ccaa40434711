#!/usr/bin/env bash
# [seed-epilogue] item 2: the epilogue levers against the product configs,
# in one device call (carry .bin/ with swigen built from this tree):
#   0. every kernel built at once (ptxas report in the logs);
#   1. verify (float64 reference, random inputs, the built-in ragged shapes
#      plus the seed) of every new config;
#   2. the trace probe at the seed: per-tile epilogue and de-wait means of
#      the product kernels and of each new one that builds with it;
#   3. bench of each product config and its variants at the seed and three
#      suite shapes, bwd and StoreOut, ROUNDS rounds with the order
#      reversed every other round (bench interleaves each kernel with its
#      own same-process baseline; the speedup column is against that).
# Logs and records go to $OUT/seed-epi-ab.tgz; the table and a PASS/FAIL
# list (targets: bwd <= 212 us and StoreOut <= 245 us at the seed; no
# variant slower than its product config by more than 1% anywhere) print
# last. docs/PERFORMANCE.md#seed-epilogue-levers holds the predictions.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
SW=${SW:-./.bin/swigen}
REPS=${REPS:-40}
ROUNDS=${ROUNDS:-2}
SEED=16384,768,4608
LOG=$(mktemp -d)
mkdir -p "$OUT"
trap 'tar -czf "$OUT/seed-epi-ab.tgz" -C "$LOG" .' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
$SW version 2>/dev/null | head -1

# shape|product config|variants (space-separated); the product configs are
# the heuristic's at each shape (swigen emit --shape S [--store-out]).
P=bwd_dswiglu_sm90a_bf16
pairs=(
	"$SEED|${P}_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k|${P}_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k ${P}_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_pipe_l2k"
	"$SEED|${P}_m128n128k64_s4_c1x1_pingpong_rn_g2_out_l2k|${P}_m128n128k64_s4_c1x1_pingpong_rn_g2_e64x32s4_out_l2k ${P}_m128n128k64_s5_c1x1_pingpong_rn_g2_e64x32s2_out_l2k"
	"8192,4096,14336|${P}_m128n192k64_s4_c1x1_pingpong|${P}_m128n192k64_s4_c1x1_pingpong_e64x32s4 ${P}_m128n192k64_s4_c1x1_pingpong_e64x32s4_pipe"
	"8192,4096,14336|${P}_m128n128k64_s4_c1x1_pingpong_out|${P}_m128n128k64_s4_c1x1_pingpong_e64x32s4_out"
	"4096,7168,2048|${P}_m128n128k64_s4_c1x1_pingpong|${P}_m128n128k64_s4_c1x1_pingpong_e64x32s4 ${P}_m128n128k64_s4_c1x1_pingpong_e64x32s4_pipe"
	"4096,7168,2048|${P}_m128n128k64_s4_c1x1_pingpong_out|${P}_m128n128k64_s4_c1x1_pingpong_e64x32s4_out"
	"2048,4096,3584|${P}_m128n256k64_s3_c1x1_cooperative|${P}_m128n256k64_s3_c1x1_cooperative_e64x32s4 ${P}_m128n256k64_s3_c1x1_cooperative_e64x32s4_pipe"
	"2048,4096,3584|${P}_m128n128k64_s4_c1x1_pingpong_out|${P}_m128n128k64_s4_c1x1_pingpong_e64x32s4_out"
)
if [ -n "${PAIRS:-}" ]; then IFS=';' read -r -a pairs <<<"$PAIRS"; fi
pairs_trace=("${pairs[@]}")

# 0. build every kernel, 8 at a time (the machine has 16 cores; verify and
# bench then hit the shared build cache instead of compiling one by one).
declare -A seen=()
names=()
all=()
for p in "${pairs[@]}"; do
	IFS='|' read -r _ base vs <<<"$p"
	for v in $base $vs; do
		[ -n "${seen[$v]:-}" ] && continue
		seen[$v]=1
		all+=("$v")
		[ "$v" = "$base" ] || names+=(--name "$v")
	done
done
export SW LOG
printf '%s\n' "${all[@]}" | xargs -P 8 -I{} sh -c '$SW emit --name {} -o "$LOG/build/{}" >"$LOG/build-{}.log" 2>&1'
for n in "${all[@]}"; do
	[ -f "$LOG/build/$n/$n.report.json" ] || echo "FAIL build $n: $(tail -2 "$LOG/build-$n.log")"
done

# 1. verify every variant once (the built-in ragged list, then the seed);
# VERIFY=0 skips it (a timing-only call after a verified one).
verify_ok=PASS
if [ "${VERIFY:-1}" = 1 ]; then
	$SW verify "${names[@]}" --path fused --seed 11 >"$LOG/verify-ragged.log" 2>&1 || verify_ok=FAIL
	$SW verify "${names[@]}" --path fused --seed 12 --shape "$SEED" >"$LOG/verify-seed.log" 2>&1 || verify_ok=FAIL
else
	verify_ok=SKIPPED
	: >"$LOG/verify-ragged.log"
	: >"$LOG/verify-seed.log"
fi

# 2. trace at the seed: the product kernel and each variant (TRACE=0 skips).
[ "${TRACE:-1}" = 1 ] || pairs_trace=()
for p in "${pairs_trace[@]}"; do
	IFS='|' read -r shape base vs <<<"$p"
	[ "$shape" = "$SEED" ] || continue
	for n in $base $vs; do
		# The trace probe of the 128x192 64x32 kernels spills (its counters
		# take the registers), so the build check refuses it: expected.
		$SW bench bwd --name "$n" --shape "$SEED" --reps 20 --probe trace >"$LOG/trace-$n.log" 2>&1 ||
			echo "no trace for $n: $(grep -m1 -oE 'spill[^(]*' "$LOG/trace-$n.log" || tail -1 "$LOG/trace-$n.log")"
	done
done

# 3. A/B rounds.
for ((r = 0; r < ROUNDS; r++)); do
	for i in "${!pairs[@]}"; do
		IFS='|' read -r shape base vs <<<"${pairs[$i]}"
		order="$base $vs"
		((r % 2)) && order="$(echo "$vs" | tr ' ' '\n' | tac | tr '\n' ' ')$base"
		for n in $order; do
			dir="$LOG/ab/$i/$n/r$r"
			mkdir -p "$dir"
			$SW bench bwd --name "$n" --shape "$shape" --reps "$REPS" --json "$dir" >"$dir/log" 2>&1 ||
				echo "FAIL bench $n $shape round $r: $(tail -2 "$dir/log")"
		done
	done
done

echo
echo "== verify: $verify_ok"
grep -hiE "fail|error|pass|ok " "$LOG/verify-ragged.log" "$LOG/verify-seed.log" | tail -6
echo
echo "== trace at the seed (per tile and consumer, us)"
for f in "$LOG"/trace-*.log; do
	echo "-- $(basename "$f" .log | sed 's/^trace-//')"
	grep -E '^consumer|^[01] ' "$f"
done
python3 - "$LOG/ab" "$verify_ok" "${pairs[@]}" <<'PY'
import json, os, statistics, sys
root, verify_ok, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
print("\n== A/B (median over rounds of each round's median; speedup against the same-process baseline)")
print(f"{'shape':<16} {'config':<78} {'fused_us':>8} {'base_us':>8} {'speedup':>7} {'vs prod':>7}  rounds")
checks = [("verify of every variant", verify_ok == "PASS")]
for i, p in enumerate(pairs):
    shape, base, vs = p.split("|")
    res = {}
    for n in [base] + vs.split():
        recs = []
        d = os.path.join(root, str(i), n)
        for rd in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            for f in os.listdir(os.path.join(d, rd)):
                if f.endswith(".json"):
                    recs.append(json.load(open(os.path.join(d, rd, f))))
        if not recs:
            print(f"{shape:<16} {n:<78} no records")
            checks.append((f"{n} at {shape} ran", False))
            continue
        us = statistics.median(r["us"] for r in recs)
        bl = statistics.median(r["baseline_us"] for r in recs)
        sp = statistics.median(r["speedup"] for r in recs)
        res[n] = us
        rel = us / res[base] if base in res else float("nan")
        each = " ".join("%.1f" % r["us"] for r in recs)
        print(f"{shape:<16} {n:<78} {us:8.1f} {bl:8.1f} {sp:7.3f} {rel:7.3f}  {each}")
    if base not in res:
        continue
    for n in vs.split():
        if n in res:
            checks.append((f"{n} at {shape} not slower than {base} by > 1%", res[n] <= 1.01 * res[base]))
    if shape == "16384,768,4608":
        target = 245.0 if "_out" in base else 212.0
        best = min(res.values())
        checks.append((f"seed {'StoreOut' if '_out' in base else 'bwd'} best {best:.1f} us <= {target:.0f}", best <= target))
print("\n== checks")
for what, ok in checks:
    print(("PASS " if ok else "FAIL ") + what)
PY

#!/usr/bin/env bash
# [seed-epilogue] round 2 (docs/PERFORMANCE.md#seed-epilogue-round-2 holds
# the predictions), in one device call (carry .bin/ with swigen built from
# this tree by bench/build.sh):
#   0. every kernel built at once (ptxas lines in $LOG/build-*.log);
#   1. verify (float64 reference, the built-in ragged shapes) of every new
#      config, and of the epitrace probe on the product and the 3-slot ring;
#   2. the epitrace probe (epilogue and de-wait per tile, on the product's
#      ldmatrix path, 0 spill at 128x192) at the seed: bwd with and without
#      the product's options (rn_g4_l2k), each with 2 and 3 de slots; the
#      trace probe on the fused forward's training kernel and its variant;
#   3. A/B: each product config beside its variant, each in its own bench
#      process (bench times its own same-process baseline), ROUNDS rounds
#      with the order reversed every other round, REPS reps, at the seed
#      and at 4096,7168,2048 and 8192,4096,14336.
# Logs go to $OUT/seed-epi-ab2.tgz; a short table and PASS/FAIL lines last
# (targets: bwd <= 212 us, fwd training <= 340 us at the seed; no variant
# slower than its product config by more than 1% at the seed).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
SW=${SW:-./.bin/swigen}
REPS=${REPS:-40}
ROUNDS=${ROUNDS:-2}
SEED=16384,768,4608
LOG=$(mktemp -d)
mkdir -p "$OUT"
trap 'tar -czf "$OUT/seed-epi-ab2.tgz" -C "$LOG" .' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
$SW version 2>/dev/null | head -1

B=bwd_dswiglu_sm90a_bf16
F=fwd_gateup_sm90a_bf16
# bench subcommand|shape|product config (the heuristic's: swigen emit
# --shape S [--kernel fwd_gateup --store-out])|variants (space-separated)
pairs=(
	"bwd|$SEED|${B}_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k|${B}_m128n192k64_s3_c1x1_pingpong_rn_g4_e64x64s3_l2k"
	"gateup|$SEED|${F}_m128n128k64_s4_c1x1_pingpong_out|${F}_m128n128k64_s5_c1x1_pingpong_e64x64s1_out"
	"bwd|4096,7168,2048|${B}_m128n128k64_s4_c1x1_pingpong|${B}_m128n128k64_s4_c1x1_pingpong_e64x64s3"
	"bwd|8192,4096,14336|${B}_m128n192k64_s4_c1x1_pingpong|${B}_m128n192k64_s3_c1x1_pingpong_e64x64s3"
	"gateup|4096,7168,2048|${F}_m128n128k64_s4_c1x1_pingpong_out|${F}_m128n128k64_s5_c1x1_pingpong_e64x64s1_out"
	"gateup|8192,4096,14336|${F}_m128n128k64_s4_c1x1_pingpong_out|${F}_m128n128k64_s5_c1x1_pingpong_e64x64s1_out"
)
if [ -n "${PAIRS:-}" ]; then IFS=';' read -r -a pairs <<<"$PAIRS"; fi
# probe|bench subcommand|config: the traces at the seed.
traces=(
	"epitrace|bwd|${B}_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k"
	"epitrace|bwd|${B}_m128n192k64_s4_c1x1_pingpong"
	"epitrace|bwd|${B}_m128n192k64_s3_c1x1_pingpong_rn_g4_e64x64s3_l2k"
	"epitrace|bwd|${B}_m128n192k64_s3_c1x1_pingpong_e64x64s3"
	"trace|gateup|${F}_m128n128k64_s4_c1x1_pingpong_out"
	"trace|gateup|${F}_m128n128k64_s5_c1x1_pingpong_e64x64s1_out"
)
[ "${TRACE:-1}" = 1 ] || traces=()

# 0. build every kernel, 8 at a time (verify and bench then hit the cache).
declare -A seen=() named=()
names=()
all=()
for p in "${pairs[@]}" "${traces[@]}"; do
	IFS='|' read -r a b c d <<<"$p"
	case $a in bwd | gateup) list="$c $d" ;; *) list="$c" ;; esac
	for v in $list; do
		[ -n "${seen[$v]:-}" ] && continue
		seen[$v]=1
		all+=("$v")
	done
	case $a in bwd | gateup) for v in $d; do
		[ -n "${named[$v]:-}" ] && continue
		named[$v]=1
		names+=(--name "$v")
	done ;;
	esac
done
export SW LOG
printf '%s\n' "${all[@]}" | xargs -P 8 -I{} sh -c '$SW emit --name {} -o "$LOG/build/{}" >"$LOG/build-{}.log" 2>&1'
for n in "${all[@]}"; do
	[ -f "$LOG/build/$n/$n.report.json" ] || echo "FAIL build $n: $(tail -2 "$LOG/build-$n.log")"
done

# 1. verify (VERIFY=0 skips it: a timing-only call after a verified one).
verify_ok=PASS
if [ "${VERIFY:-1}" = 1 ]; then
	$SW verify "${names[@]}" --path fused --seed 21 >"$LOG/verify-ragged.log" 2>&1 || verify_ok=FAIL
	$SW verify --probe epitrace --name "${B}_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k" \
		--name "${B}_m128n192k64_s3_c1x1_pingpong_rn_g4_e64x64s3_l2k" --path fused --seed 22 >"$LOG/verify-epitrace.log" 2>&1 || verify_ok=FAIL
else
	verify_ok=SKIPPED
	: >"$LOG/verify-ragged.log"
	: >"$LOG/verify-epitrace.log"
fi

# 2. traces at the seed.
for t in "${traces[@]}"; do
	IFS='|' read -r probe sub n <<<"$t"
	$SW bench "$sub" --name "$n" --shape "$SEED" --reps 20 --probe "$probe" >"$LOG/trace-$probe-$n.log" 2>&1 ||
		echo "FAIL $probe $n: $(grep -m1 -oE 'spill[^(]*' "$LOG/trace-$probe-$n.log" || tail -1 "$LOG/trace-$probe-$n.log")"
done

# 3. A/B rounds.
for ((r = 0; r < ROUNDS; r++)); do
	for i in "${!pairs[@]}"; do
		IFS='|' read -r sub shape base vs <<<"${pairs[$i]}"
		order="$base $vs"
		((r % 2)) && order="$(echo "$vs" | tr ' ' '\n' | tac | tr '\n' ' ')$base"
		for n in $order; do
			dir="$LOG/ab/$i/$n/r$r"
			mkdir -p "$dir"
			$SW bench "$sub" --name "$n" --shape "$shape" --reps "$REPS" --json "$dir" >"$dir/log" 2>&1 ||
				echo "FAIL bench $n $shape round $r: $(tail -2 "$dir/log")"
		done
	done
done

echo
echo "== verify: $verify_ok"
grep -hiE "fail|error|pass|ok " "$LOG/verify-ragged.log" "$LOG/verify-epitrace.log" | tail -6
echo
echo "== traces at the seed (per tile and consumer, us; epitrace: period drained-to-drained, only epilogue and de-wait)"
for t in "${traces[@]}"; do
	IFS='|' read -r probe sub n <<<"$t"
	echo "-- $probe $n"
	grep -E '^consumer|^[01] ' "$LOG/trace-$probe-$n.log"
done
python3 - "$LOG/ab" "$verify_ok" "${pairs[@]}" <<'PY'
import json, os, statistics, sys
root, verify_ok, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
print("\n== A/B (median over rounds of each round's median; speedup against the same-process baseline)")
print(f"{'shape':<16} {'config':<74} {'fused_us':>8} {'base_us':>8} {'speedup':>7} {'vs prod':>7}  rounds")
checks = [("verify of every variant and of epitrace", verify_ok == "PASS")]
for i, p in enumerate(pairs):
    sub, shape, base, vs = p.split("|")
    res = {}
    for n in [base] + vs.split():
        recs = []
        d = os.path.join(root, str(i), n)
        for rd in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            for f in os.listdir(os.path.join(d, rd)):
                if f.endswith(".json"):
                    recs.append(json.load(open(os.path.join(d, rd, f))))
        if not recs:
            print(f"{shape:<16} {n:<74} no records")
            checks.append((f"{n} at {shape} ran", False))
            continue
        us = statistics.median(r["us"] for r in recs)
        bl = statistics.median(r["baseline_us"] for r in recs)
        sp = statistics.median(r["speedup"] for r in recs)
        res[n] = us
        rel = us / res[base] if base in res else float("nan")
        each = " ".join("%.1f" % r["us"] for r in recs)
        print(f"{shape:<16} {n:<74} {us:8.1f} {bl:8.1f} {sp:7.3f} {rel:7.3f}  {each}")
    if base not in res:
        continue
    if shape == "16384,768,4608":
        for n in vs.split():
            if n in res:
                checks.append((f"{n} at the seed not slower than {base} by > 1% ({res[n]:.1f} vs {res[base]:.1f})", res[n] <= 1.01 * res[base]))
        target = 212.0 if sub == "bwd" else 340.0
        best = min(res.values())
        checks.append((f"seed {sub} best {best:.1f} us <= {target:.0f}", best <= target))
print("\n== checks")
for what, ok in checks:
    print(("PASS " if ok else "FAIL ") + what)
PY

#!/usr/bin/env bash
# A/B of swigen binaries in one device call: each bench spec runs with every
# binary, binaries alternating, ROUNDS times; a table of the fused kernel's
# time, its same-process baseline and speedup per variant comes last.
#
#   VARIANTS="base=.bin/swigen-base new=.bin/swigen" \
#   SPECS="bwd --shape 16384,768,4608|bwd --store-out --shape 16384,768,4608" \
#   ROUNDS=2 bash bench/ab.sh
#
# Records go to $OUT/ab/<variant>/<spec index>/r<round>/ (bench --json).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
ROUNDS=${ROUNDS:-2}
REPS=${REPS:-30}
IFS='|' read -r -a specs <<<"${SPECS:?SPECS: bench specs separated by |}"
read -r -a variants <<<"${VARIANTS:?VARIANTS: label=binary ...}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for ((r = 0; r < ROUNDS; r++)); do
  for i in "${!specs[@]}"; do
    for v in "${variants[@]}"; do
      label=${v%%=*} bin=${v#*=}
      dir="$OUT/ab/$label/$i/r$r"
      mkdir -p "$dir"
      # shellcheck disable=SC2086 # a spec is words
      if ! "$bin" bench ${specs[$i]} --reps "$REPS" --json "$dir" >"$dir/log" 2>&1; then
        echo "FAIL $label spec $i round $r: $(tail -3 "$dir/log")"
      fi
    done
  done
done
python3 - "$OUT/ab" "${specs[@]}" <<'PY'
import json, os, statistics, sys
root, specs = sys.argv[1], sys.argv[2:]
rows = {}
for label in sorted(os.listdir(root)):
    for i in os.listdir(os.path.join(root, label)):
        for rd in os.listdir(os.path.join(root, label, i)):
            d = os.path.join(root, label, i, rd)
            for f in os.listdir(d):
                if not f.endswith(".json"):
                    continue
                rec = json.load(open(os.path.join(d, f)))
                key = (int(i), "x".join(map(str, rec["shape"].values())) if isinstance(rec["shape"], dict) else str(rec["shape"]))
                rows.setdefault(key, {}).setdefault(label, []).append(rec)
print("\nspec  shape                 variant  fused_us  base_us  speedup  rel_err   config")
for (i, shape), by in sorted(rows.items()):
    for label, recs in by.items():
        us = statistics.median(r["us"] for r in recs)
        bl = statistics.median(r["baseline_us"] for r in recs)
        sp = statistics.median(r["speedup"] for r in recs)
        err = max(r["rel_err"] for r in recs)
        each = " ".join("%.1f" % r["us"] for r in recs)
        print(f"{i:<5} {shape:<21} {label:<8} {us:8.1f} {bl:8.1f} {sp:8.3f}  {err:.2e}  {recs[0]['config']}  (n={len(recs)}: {each})")
PY

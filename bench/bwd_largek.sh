#!/usr/bin/env bash
# What binds the fused backward at large K ([hopper-epilogue] item 4), in
# one device call (carry .bin/ with swigen): at each SHAPES shape, the
# fused kernel of each NAMES config against its same-run baselines (bench
# bwd records carry cuBLAS's GEMM alone and swigen's own unfused gemm
# too), the same configs with the noepi probe (the mainloop with the
# epilogue's de loads), and the trace probe of TRACE's config:shape pairs,
# whose tail line says how long consumers idle while the last wave ends.
# Records and logs go to $OUT/bwd-largek.tgz; a table comes last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
SW=${SW:-./.bin/swigen}
REPS=${REPS:-30}
SHAPES=${SHAPES:-8192,8192,3584 4096,7168,2048}
NAMES=${NAMES:-bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong}
TRACE=${TRACE:-bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k:8192,8192,3584 bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong:4096,7168,2048 bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k:16384,768,4608}
LOG=$(mktemp -d)
mkdir -p "$OUT"
trap 'tar -czf "$OUT/bwd-largek.tgz" -C "$LOG" .' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
names=() shapes=()
for n in $NAMES; do names+=(--name "$n"); done
for s in $SHAPES; do shapes+=(--shape "$s"); done
$SW bench bwd "${names[@]}" "${shapes[@]}" --reps "$REPS" --json "$LOG/full" >"$LOG/full.log" 2>&1 || echo "FAIL full: $(tail -3 "$LOG/full.log")"
$SW bench bwd "${names[@]}" "${shapes[@]}" --reps "$REPS" --probe noepi --json "$LOG/noepi" >"$LOG/noepi.log" 2>&1 || echo "FAIL noepi: $(tail -3 "$LOG/noepi.log")"
for t in $TRACE; do
	n=${t%%:*} s=${t#*:}
	echo "== trace $n at $s" >>"$LOG/trace.log"
	$SW bench bwd --name "$n" --shape "$s" --reps 20 --probe trace >>"$LOG/trace.log" 2>&1 || echo "FAIL trace $t"
done
grep -E '^== trace|^consumer|^[01] |^tail:|^trace:' "$LOG/trace.log"
python3 - "$LOG" <<'PY'
import json, os, sys
root = sys.argv[1]
rows = {}
for kind in ("full", "noepi"):
    d = os.path.join(root, kind)
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        r = json.load(open(os.path.join(d, f)))
        shape = ",".join(str(v) for v in r["shape"].values()) if isinstance(r["shape"], dict) else str(r["shape"])
        rows.setdefault((shape, r["config"]), {})[kind] = r
print("\n%-16s %-40s %9s %9s %9s %9s %9s %8s" % ("shape", "config", "fused", "noepi", "baseline", "cuBLAS", "sw gemm", "speedup"))
for (shape, cfg), by in sorted(rows.items()):
    f, n = by.get("full", {}), by.get("noepi", {})
    g = lambda r, k: "%9.1f" % r[k] if k in r else "%9s" % "-"
    print("%-16s %-40s %s %s %s %s %s %8s" % (shape, cfg.replace("bwd_dswiglu_sm90a_bf16_", ""), g(f, "us"), g(n, "us"), g(f, "baseline_us"),
          g(f, "baseline_gemm_us"), g(f, "unfused_gemm_us"), "%.3fx" % f["speedup"] if "speedup" in f else "-"))
PY

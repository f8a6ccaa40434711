#!/usr/bin/env bash
# What binds the seed shape's epilogues ([seed-epilogue] item 1), measured
# without changing the product: in one device call (carry .bin/ with
# swigen), at SHAPE (default the seed 16384,768,4608),
#   1. the trace probe of the heuristic's bwd_dswiglu, its StoreOut variant
#      and fwd_gateup training: per-tile epilogue, de-wait and mainloop means;
#   2. ncu at free clocks (--clock-control none) on one launch of each
#      product kernel (no probe): shared-memory (L1 data-bank) read/write
#      utilization, DRAM throughput, tensor-pipe activity, warp stall
#      reasons, and the sampled stalls per SASS instruction (top rows and
#      per-opcode sums), which say where the epilogue waits.
# The rule the issue set: bank utilization >= 90%: shared-memory bound;
# <= 75% with de waits >= 1 us a tile: ring bound; <= 75% with scoreboard
# stalls: latency bound. Logs and reports go to $OUT/seed-epi.tgz; the
# summary prints last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
SW=${SW:-./.bin/swigen}
SHAPE=${SHAPE:-16384,768,4608}
LOG=$(mktemp -d)
mkdir -p "$OUT"
trap 'tar -czf "$OUT/seed-epi.tgz" -C "$LOG" .' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
$SW version 2>/dev/null | head -1

# variant: label, bench subcommand and flags, kernel-name regex for ncu
variants=(
	"bwd|bwd|bwd_dswiglu"
	"bwd-out|bwd --store-out|bwd_dswiglu"
	"fwd-out|gateup --store-out|fwd_gateup"
)
for v in "${variants[@]}"; do
	IFS='|' read -r label cmd re <<<"$v"
	# shellcheck disable=SC2086
	$SW bench $cmd --shape "$SHAPE" --reps 30 --probe trace >"$LOG/trace-$label.log" 2>&1 || echo "FAIL trace $label: $(tail -2 "$LOG/trace-$label.log")"
	# shellcheck disable=SC2086
	$SW bench $cmd --shape "$SHAPE" --reps 30 >"$LOG/bench-$label.log" 2>&1 || echo "FAIL bench $label"
	# One product launch, after the warm-up ones, every section, sampled.
	# shellcheck disable=SC2086
	timeout 240 ncu --clock-control none --set full --import-source no -k "regex:^$re" --launch-skip 3 --launch-count 1 \
		-o "$LOG/ncu-$label" -f $SW bench $cmd --shape "$SHAPE" --reps 20 --warmup 0s >"$LOG/ncu-$label.log" 2>&1 ||
		echo "FAIL ncu $label: $(tail -3 "$LOG/ncu-$label.log")"
	if [ -f "$LOG/ncu-$label.ncu-rep" ]; then
		ncu -i "$LOG/ncu-$label.ncu-rep" --page raw --csv >"$LOG/raw-$label.csv" 2>/dev/null
		ncu -i "$LOG/ncu-$label.ncu-rep" --page source --csv --print-source sass >"$LOG/sass-$label.csv" 2>"$LOG/sass-$label.err"
		ncu -i "$LOG/ncu-$label.ncu-rep" --page details --section WarpStateStats --section MemoryWorkloadAnalysis_Tables >"$LOG/details-$label.txt" 2>&1
	fi
done

echo
echo "== trace means (per tile and consumer)"
for v in "${variants[@]}"; do
	label=${v%%|*}
	echo "-- $label"
	grep -E '^consumer|^[01] |^tail:|^trace:' "$LOG/trace-$label.log"
	grep -E 'speedup|roofline|fused ' "$LOG/bench-$label.log" | head -4
done
python3 - "$LOG" <<'PY'
import csv, os, re, sys
root = sys.argv[1]
want = [
    ("l1 bank reads %", r"^l1tex__data_bank_reads\.avg\.pct_of_peak_sustained_elapsed$"),
    ("l1 bank writes %", r"^l1tex__data_bank_writes\.avg\.pct_of_peak_sustained_elapsed$"),
    ("l1 lsu shared wavefronts %", r"^l1tex__data_pipe_lsu_wavefronts_mem_shared\.avg\.pct_of_peak_sustained_elapsed$"),
    ("dram %", r"^dram__throughput\.avg\.pct_of_peak_sustained_elapsed$"),
    ("dram read MB", r"^dram__bytes_read\.sum$"),
    ("dram write MB", r"^dram__bytes_write\.sum$"),
    ("tensor (gmma) %", r"^sm__pipe_tensor_op_gmma_cycles_active\.avg\.pct_of_peak_sustained_(active|elapsed)$"),
    ("tensor (any) %", r"^sm__inst_executed_pipe_tensor_op_gmma\.avg\.pct_of_peak_sustained_(active|elapsed)$"),
    ("l2 busy %", r"^lts__t_sectors\.avg\.pct_of_peak_sustained_elapsed$"),
    ("duration us", r"^gpu__time_duration\.sum$"),
    ("sm GHz", r"^sm__cycles_elapsed\.avg\.per_second$"),
]
for label in ("bwd", "bwd-out", "fwd-out"):
    p = os.path.join(root, "raw-%s.csv" % label)
    if not os.path.exists(p):
        print("no ncu report for", label)
        continue
    rows = list(csv.reader(open(p)))
    if len(rows) < 3:
        print("empty ncu raw page for", label)
        continue
    head, units, vals = rows[0], rows[1], rows[2]
    print("\n== ncu %s: %s" % (label, vals[head.index("Kernel Name")] if "Kernel Name" in head else "?"))
    for name, pat in want:
        hits = [(h, u, v) for h, u, v in zip(head, units, vals) if re.match(pat, h)]
        for h, u, v in hits[:1]:
            print("  %-28s %14s %s   (%s)" % (name, v, u, h))
        if not hits:
            print("  %-28s %14s" % (name, "n/a"))
    stall = [(h, v) for h, v in zip(head, vals) if h.startswith("smsp__average_warp_latency_issue_stalled_") or h.startswith("smsp__pcsamp_warps_issue_stalled_")]
    def num(x):
        try:
            return float(x.replace(",", ""))
        except ValueError:
            return 0.0
    stall.sort(key=lambda hv: -num(hv[1]))
    print("  top stall counters:")
    for h, v in stall[:10]:
        print("    %-70s %s" % (h, v))
    sp = os.path.join(root, "sass-%s.csv" % label)
    if os.path.exists(sp):
        srows = list(csv.reader(open(sp)))
        hi = next((i for i, r in enumerate(srows) if "Source" in r), None)
        if hi is None:
            print("  (no SASS source page)")
            continue
        h = srows[hi]
        src = h.index("Source")
        samp = next((i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")), None)
        if samp is None:
            print("  (no sampling column:", h[:8], ")")
            continue
        reasons = [i for i, c in enumerate(h) if c.startswith("stall_") or c.endswith("(All Samples)") and i != samp]
        by_op, total, top = {}, 0.0, []
        for r in srows[hi + 1:]:
            if len(r) <= samp:
                continue
            s = num(r[samp])
            total += s
            op = r[src].split()[0] if r[src].split() else "?"
            if op.startswith("@"):
                op = r[src].split()[1] if len(r[src].split()) > 1 else op
            op = op.split(".")[0]
            by_op[op] = by_op.get(op, 0.0) + s
            top.append((s, r[src][:70], [(h[i], r[i]) for i in reasons if i < len(r) and num(r[i]) > 0.2 * s]))
        print("  sampled stalls by opcode (%% of %d samples):" % total)
        for op, s in sorted(by_op.items(), key=lambda kv: -kv[1])[:12]:
            print("    %-12s %5.1f%%" % (op, 100 * s / max(total, 1)))
        print("  top instructions:")
        for s, text, rs in sorted(top, key=lambda t: -t[0])[:12]:
            print("    %5.1f%%  %-70s %s" % (100 * s / max(total, 1), text, ", ".join("%s=%s" % kv for kv in rs)[:120]))
PY

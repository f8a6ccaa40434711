#!/usr/bin/env bash
# One device call (< 9 minutes; carry .bin/, built by bench/build.sh): the
# decode-sized GEMMs of docs/PERFORMANCE.md#decode ([gemm-engine] #39,
# "decode >= 75% of the weight floor"), new binary only unless OLD names an
# old binary directory.
#   1. verify (float64 reference; the GPU one at large shapes) of the 64-row
#      stream-K tiles (gemm ping-pong 64x128 s8, 64x256 s4, 64x128 TileK 128
#      s4; fwd_gateup 64x128 s8, 64x256 s4, 64x128 k128; fwd_down 64x128 s8)
#      and of the 128-row stream-K tile whose fixup changed too (its flag
#      looks), at decode, ragged-M and many-part shapes, each shape launched
#      three times and compared bit for bit (--repeat: the fixup's sum order
#      is fixed, the pair adds included); the built-in ragged list for gemm
#      64x128 s8; compute-sanitizer memcheck on a shape where every tile is
#      split into ~8 parts (odd and even pair steps);
#   2. the K sweep (fwd_gateup M = 64, I = 2048, K = 2048..14336; 128x128
#      and 64x128 _sk): intercept = the fixed + fixup part, slope = the
#      stream's cost per k-block (reading A vs B of PERFORMANCE#decode);
#   3. the trace probe at 64,7168,2048 on both _sk tiles: its "first
#      tiles" line (one item a consumer; a partial records nothing, an
#      owner's epilogue holds its fixup), in kcycles (no clock estimate
#      from one tile: nvidia-smi's clocks.sm above converts);
#   4. bench gemm at M = 16, 64, 128, 256 on the weights of Llama-3-8B
#      (gate-up 28672x4096, down 4096x14336), Llama-3-70B (57344x8192,
#      8192x28672) and a DeepSeek-V3 expert (4096x7168, 7168x2048): the
#      heuristic's config, ping-pong 128x128 _sk (the old best), the three
#      new tiles, and cuBLAS in the same process (% of the floor at the copy
#      bandwidth bench measures first);
#   5. bench gateup (fused forward, inference) at M = 16, 64, 128, 256 on
#      the same three MLPs (M,K,I): the heuristic, 128x128 _sk, 64x128 s8
#      _sk, 64x256 _sk, 64x128 k128 _sk; cuBLAS + elementwise as the base;
#   6. with OLD=<dir> (its swigen built from the commit before this branch,
#      e.g. 47a04da): the same two _sk tiles on the old binary at
#      64,7168,2048 (gateup) and 64,4096,14336 (gemm): the fixup change
#      alone.
#
#   bash bench/build.sh && OUT=/tmp/out bash bench/decode_check.sh
#
# With the A/B (.bin/ and an old binary together pass the 64 MiB carry
# limit: build only the swigen binaries, 14 MB each):
#   CGO_ENABLED=0 go build -ldflags "-s -w" -o .bin-ab/new/swigen ./cmd/swigen
#   git worktree add /tmp/decode-old 47a04da && (cd /tmp/decode-old &&
#     CGO_ENABLED=0 go build -ldflags "-s -w" -o /tmp/decode-old-bin/swigen ./cmd/swigen)
#   mkdir -p .bin-ab/old && cp /tmp/decode-old-bin/swigen .bin-ab/old/
#   SW=.bin-ab/new/swigen OLD=.bin-ab/old bash bench/decode_check.sh   (carry .bin-ab)
#
# Logs under $OUT; a PASS/FAIL table of the verifies, then the tables of
# us and % of the floor (gemm, gateup, the K sweep), last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
REPS=${REPS:-30}
WARM=${WARM:-100ms}
W=${WORK:-/tmp/swigen-decode}
mkdir -p "$W" "$OUT"
export SWIGEN_CACHE_DIR=$W/cache
SW=${SW:-./.bin/swigen}
[[ -x $SW ]] || { echo "FAIL: $SW missing (bench/build.sh; carry .bin)"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.total --format=csv,noheader
T0=$SECONDS
declare -a rows
record() { # what, exit code, log
  if [ "$2" = 0 ]; then rows+=("PASS  $1"); else rows+=("FAIL  $1 (exit $2, $3)"); fi
}
# Seconds a step may take: at most $1, and never past the 9-minute budget
# (less 20 s for the tables); a step with under 10 s left is skipped.
cap() {
  local left=$((520 - (SECONDS - T0)))
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}
run() { # what, seconds at most, log, command...
  local what=$1 secs log=$3
  secs=$(cap "$2")
  shift 3
  if [ "$secs" -lt 10 ]; then rows+=("SKIP  $what (out of time)"); return; fi
  timeout "$secs" "$@" >>"$log" 2>&1
  record "$what" $? "$log"
}

G=gemm_sm90a_bf16
F=fwd_gateup_sm90a_bf16
G_OLD=${G}_m128n128k64_s6_c1x1_pingpong_sk
G_NEW=${G}_m64n128k64_s8_c1x1_pingpong_sk
G_W=${G}_m64n256k64_s4_c1x1_pingpong_sk
G_K=${G}_m64n128k128_s4_c1x1_pingpong_sk
F_OLD=${F}_m128n128k64_s6_c1x1_pingpong_sk
F_NEW=${F}_m64n128k64_s8_c1x1_pingpong_sk
F_W=${F}_m64n256k64_s4_c1x1_pingpong_sk
F_K=${F}_m64n128k128_s4_c1x1_pingpong_sk
D_NEW=fwd_down_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk

# 1. verify. gemm shapes are M,N,K; the fused kinds' M,K,I. Decode shapes,
# ragged M (1, 33, 100, 129), a shape whose 9 tiles split ~8 ways
# (1,1032,4104 on 64x128: 585 k-blocks over 73 CTAs) and full waves plus a
# split remainder (16,28672,4096: 224 tiles).
if [ "${VERIFY:-1}" = 1 ]; then
GS="64,4096,7168;16,28672,4096;128,7168,2048;256,4096,14336;1,1032,4104;33,264,1000;100,4104,1032;129,1000,264"
for n in $G_NEW $G_W $G_K $G_OLD; do
  run "verify --repeat 3 $n (8 shapes)" 75 "$OUT/verify-$n.log" $SW verify --name $n --shape "$GS" --repeat 3 --seed 7 --timeout 60s
done
run "verify --repeat 2 $G_NEW (built-in ragged list)" 75 "$OUT/verify-ragged-$G_NEW.log" \
  $SW verify --name $G_NEW --repeat 2 --seed 11 --timeout 60s
FS="64,7168,2048;16,4096,14336;128,7168,2048;1,1032,264;33,264,1000;100,1000,4104;256,2048,1024"
for n in $F_NEW $F_W $F_K $F_OLD; do
  run "verify --repeat 3 $n (7 shapes)" 75 "$OUT/verify-$n.log" $SW verify --name $n --path fused --shape "$FS" --repeat 3 --seed 5 --timeout 60s
done
run "verify --repeat 2 $D_NEW (3 shapes)" 60 "$OUT/verify-$D_NEW.log" \
  $SW verify --name $D_NEW --path fused --shape "64,7168,2048;16,4096,14336;33,264,1032" --repeat 2 --seed 5 --timeout 60s
if [ "${SANITIZE:-1}" = 1 ]; then
  run "compute-sanitizer memcheck $G_NEW 1,1032,4104" 90 "$OUT/sanitize-memcheck.log" \
    compute-sanitizer --tool memcheck --error-exitcode 9 $SW verify --name $G_NEW --shape 1,1032,4104 --timeout 80s
fi
echo "verify done at $((SECONDS - T0)) s"
fi

if [ "${BENCH:-1}" = 1 ]; then
# 2. the K sweep (first: the run's key numbers, 64,7168,2048 on both tiles).
run "bench gateup K sweep" 40 "$OUT/bench-gateup-ksweep.log" \
  $SW bench gateup --shape 64,2048,2048 --shape 64,4096,2048 --shape 64,7168,2048 --shape 64,14336,2048 \
  --name $F_OLD --name $F_NEW --reps "$REPS" --warmup "$WARM"

# 3. the trace probe (owners' records; a partial item records nothing).
run "bench gateup --probe trace 64,7168,2048" 30 "$OUT/bench-gateup-trace.log" \
  $SW bench gateup --probe trace --shape 64,7168,2048 --name $F_OLD --name $F_NEW --reps 20 --warmup "$WARM"

fi

# 4. bench gemm: every shape in one process per config list (the ceilings
# are measured once a process). The heuristic's config runs without --name.
GSH=()
for m in 16 64 128 256; do
  for nk in 28672,4096 4096,14336 57344,8192 8192,28672 4096,7168 7168,2048; do GSH+=(--shape "$m,$nk"); done
done
if [ "${BENCH:-1}" = 1 ]; then
run "bench gemm heuristic (24 shapes)" 60 "$OUT/bench-gemm-heuristic.log" \
  $SW bench gemm "${GSH[@]}" --reps "$REPS" --warmup "$WARM"
run "bench gemm _sk tiles (24 shapes)" 150 "$OUT/bench-gemm-sk.log" \
  $SW bench gemm "${GSH[@]}" --name $G_OLD --name $G_NEW --name $G_W --name $G_K --reps "$REPS" --warmup "$WARM"
echo "bench gemm done at $((SECONDS - T0)) s"

# 5. bench gateup (M,K,I): the heuristic, then the stream-K tiles.
FSH=()
for m in 16 64 128 256; do
  for ki in 4096,14336 8192,28672 7168,2048; do FSH+=(--shape "$m,$ki"); done
done
run "bench gateup heuristic (12 shapes)" 50 "$OUT/bench-gateup-heuristic.log" \
  $SW bench gateup "${FSH[@]}" --reps "$REPS" --warmup "$WARM"
run "bench gateup _sk tiles (12 shapes)" 120 "$OUT/bench-gateup-sk.log" \
  $SW bench gateup "${FSH[@]}" --name $F_OLD --name $F_NEW --name $F_W --name $F_K --reps "$REPS" --warmup "$WARM"
echo "bench gateup done at $((SECONDS - T0)) s"

# 6. the old binary: the fixup change alone.
if [ -n "${OLD:-}" ] && [ -x "$OLD/swigen" ]; then
  for v in old new; do
    b=$SW; [ $v = old ] && b=$OLD/swigen
    run "bench gateup A/B $v binary" 20 "$OUT/bench-ab-$v.log" \
      $b bench gateup --shape 64,7168,2048 --name $F_OLD --name $F_NEW --reps "$REPS" --warmup "$WARM"
    run "bench gemm A/B $v binary" 20 "$OUT/bench-ab-$v.log" \
      $b bench gemm --shape 64,4096,14336 --name $G_OLD --name $G_NEW --reps "$REPS" --warmup "$WARM"
  done
fi
fi
echo "done at $((SECONDS - T0)) s"

# Tables: parsed from the logs (bench gemm's per-config blocks, bench
# gateup's closing summary lines).
python3 - "$OUT" <<'PY'
import os, re, sys
out = sys.argv[1]
def read(name):
    p = os.path.join(out, name)
    return open(p).read() if os.path.exists(p) else ""
def short(cfg):
    m = re.search(r"_m(\d+)n(\d+)k(\d+)_s(\d+)_c1x1_(\w+)", cfg)
    if not m:
        return cfg
    t = "%sx%s" % (m.group(1), m.group(2)) + ("k%s" % m.group(3) if m.group(3) != "64" else "") + "s" + m.group(4)
    rest = m.group(5)
    sched = "pp" if rest.startswith("pingpong") else "coop"
    return t + sched + ("_sk" if "_sk" in rest else "") + ("_rn" if "_rn" in rest else "")
ceil = re.search(r"device copy (\d+) GB/s", "".join(read(n) for n in ("bench-gateup-ksweep.log", "bench-gemm-sk.log", "bench-gateup-sk.log")))
print("\n== device copy bandwidth (the floors' bytes rate): %s GB/s" % (ceil.group(1) if ceil else "?"))

# gemm: shape -> {config: (us, pct)}, plus cuBLAS (median over its rows).
g, floors = {}, {}
for log in ("bench-gemm-heuristic.log", "bench-gemm-sk.log"):
    shape = cfg = None
    for line in read(log).splitlines():
        h = re.match(r"gemm M=(\d+) N=(\d+) K=(\d+)\s+config (\S+) .*floor ([\d.]+) us", line)
        if h:
            shape, cfg = (int(h.group(1)), int(h.group(2)), int(h.group(3))), h.group(4)
            floors[shape] = float(h.group(5))
            if log.endswith("heuristic.log"):
                cfg = "heur:" + cfg
            continue
        r = re.match(r"\s+(swigen \S+|cuBLAS)\s+([\d.]+) us .*?(\d+)% of floor", line)
        if r and shape:
            key = "cuBLAS" if r.group(1) == "cuBLAS" else cfg
            g.setdefault(shape, {}).setdefault(key, []).append((float(r.group(2)), int(r.group(3))))
cols = ["heur", "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk", "gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
        "gemm_sm90a_bf16_m64n256k64_s4_c1x1_pingpong_sk", "gemm_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk", "cuBLAS"]
def cell(v):
    if not v:
        return "%16s" % "-"
    us = sorted(x[0] for x in v)[len(v) // 2]
    pct = sorted(x[1] for x in v)[len(v) // 2]
    return "%9.1f (%3d%%)" % (us, pct)
print("\n== gemm M,N,K: us (% of floor); heuristic's config named after the table")
print("%-18s %8s  %-16s %-16s %-16s %-16s %-16s %-16s" % ("M,N,K", "floor", "heuristic", "128x128s6pp_sk", "64x128s8pp_sk", "64x256s4pp_sk", "64x128k128s4_sk", "cuBLAS"))
heur = {}
for shape in sorted(g, key=lambda s: (s[1], s[2], s[0])):
    d = g[shape]
    hk = [k for k in d if k.startswith("heur:")]
    if hk:
        heur[shape] = short(hk[0][5:])
    row = [cell(d.get(hk[0]) if hk else None)] + [cell(d.get(c)) for c in cols[1:]]
    print("%-18s %8.1f  %s" % ("%d,%d,%d" % shape, floors.get(shape, 0), " ".join(row)))
print("heuristic: " + ", ".join("%d,%d,%d %s" % (s + (c,)) for s, c in sorted(heur.items())))

# gateup summary lines: name M,K,I us base floor (pct).
pat = re.compile(r"^(fwd_gateup\S+)\s+(\d+),\s*(\d+),\s*(\d+)\s+([\d.]+) us\s+base\s+([\d.]+) us\s+[\d.]+x\s+floor\s+([\d.]+) us \(\s*(\d+)%\)")
def gateup(log, tag=""):
    res = {}
    for line in read(log).splitlines():
        m = pat.match(line)
        if m:
            shape = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
            res.setdefault(shape, {})[tag + m.group(1)] = (float(m.group(5)), int(m.group(8)), float(m.group(6)), float(m.group(7)))
    return res
gh, gs = gateup("bench-gateup-heuristic.log", "heur:"), gateup("bench-gateup-sk.log")
fcols = ["fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk", "fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
         "fwd_gateup_sm90a_bf16_m64n256k64_s4_c1x1_pingpong_sk", "fwd_gateup_sm90a_bf16_m64n128k128_s4_c1x1_pingpong_sk"]
def fcell(v):
    return "%9.1f (%3d%%)" % (v[0], v[1]) if v else "%16s" % "-"
print("\n== fwd_gateup (inference) M,K,I: us (% of floor); base = cuBLAS + elementwise")
print("%-18s %8s  %-16s %-16s %-16s %-16s %-16s %-16s" % ("M,K,I", "floor", "heuristic", "128x128s6pp_sk", "64x128s8pp_sk", "64x256s4pp_sk", "64x128k128s4_sk", "base"))
hnames = {}
for shape in sorted(set(gh) | set(gs), key=lambda s: (s[1], s[2], s[0])):
    d = dict(gh.get(shape, {}), **gs.get(shape, {}))
    hk = [k for k in d if k.startswith("heur:")]
    floor = next(iter(d.values()))[3]
    bases = [v[2] for v in d.values()]
    base = sorted(bases)[len(bases) // 2]
    if hk:
        hnames[shape] = short(hk[0][5:])
    print("%-18s %8.1f  %s %s %9.1f (%3d%%)" % ("%d,%d,%d" % shape, floor, fcell(d.get(hk[0]) if hk else None),
          " ".join(fcell(d.get(c)) for c in fcols), base, round(100 * floor / base)))
print("heuristic: " + ", ".join("%d,%d,%d %s" % (s + (c,)) for s, c in sorted(hnames.items())))

# K sweep: a least-squares line per config over K (us = a + b*K).
ks = gateup("bench-gateup-ksweep.log")
print("\n== K sweep, fwd_gateup M = 64, I = 2048: us at each K; fit us = a + b*K (b vs the floor's slope)")
for c in fcols[:2]:
    pts = sorted((s[1], d[c][0], d[c][3]) for s, d in ks.items() if c in d)
    if len(pts) < 2:
        continue
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
    a = my - b * mx
    fb = (pts[-1][2] - pts[0][2]) / (pts[-1][0] - pts[0][0])
    print("%-16s %s  a = %.1f us, b = %.2f us per 1000 K (floor's %.2f: %.2fx)" % (
        short(c), "  ".join("K=%d %.1f" % (p[0], p[1]) for p in pts), a, 1000 * b, 1000 * fb, b / fb if fb else 0))

tr = read("bench-gateup-trace.log")
if tr:
    print("\n== trace probe, 64,7168,2048 (see bench-gateup-trace.log for the per-tile summary)")
    for line in tr.splitlines():
        if re.search(r"mainloop|epilogue|tail|trace|order", line) and len(line) < 200:
            print("  " + line.strip())
for v in ("old", "new"):
    t = read("bench-ab-%s.log" % v)
    for line in t.splitlines():
        if pat.match(line) or re.match(r"\s+swigen \S+\s+[\d.]+ us", line):
            print("A/B %s binary: %s" % (v, re.sub(r"\s+", " ", line.strip())[:150]))
PY
echo
for r in "${rows[@]}"; do echo "$r"; done

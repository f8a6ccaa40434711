"""The table of bench/py_perf.py --compare's records (--summarize); stdlib only.

Per shape: swigen's training step and inference forward, the best correct
peer of each and the ratio, the peak memory of every variant, and the
issue's targets (step >= 1.00x the best peer, 1.10x at the seed shape;
inference >= 1.00x; memory <= the lowest peer's) as PASS/FAIL.
"""

from __future__ import annotations

import glob
import json
import os
import statistics
from typing import Any, Dict, List, Sequence, Tuple

# The timing the verdicts and the README use: back-to-back reps (a
# training loop's view, where a step's host time hides behind the GPU's);
# "alone" (each rep synchronized) is printed beside it.
QUOTED = "b2b_us"
MIN_REPS = 30


def quantiles(ts: Sequence[float]) -> Tuple[float, float, float]:
    """Median, p20 and p80 of ts (not empty)."""
    if not ts:
        raise ValueError("quantiles: no samples")
    s = sorted(ts)
    return statistics.median(s), s[len(s) // 5], s[(4 * len(s)) // 5]


def reps_for(est_ms: float, budget_ms: float, lo: int = MIN_REPS, hi: int = 100) -> int:
    """Reps of a call estimated at est_ms to fill budget_ms, within [lo, hi]."""
    return max(lo, min(hi, int(budget_ms / max(est_ms, 1e-3))))


def us(v: Dict[str, Any], key: str, timing: str = QUOTED) -> float:
    """v[key]'s median in the given timing; records without it (written
    before back-to-back timing) give their "alone" median."""
    t = v.get(key, {})
    return float(t.get(timing, t.get("us", float("nan"))))


def parse_shapes(s: str) -> List[Tuple[int, int, int]]:
    out = []
    for part in (p for p in s.split(";") if p.strip()):
        m, k, i = (int(v) for v in part.split(","))
        out.append((m, k, i))
    return out


# The time arithmetic of one shape in py_perf.py --compare (seconds; H200,
# measured 2026-12-04): the first calls (compile 6-9 s, max-autotune ~73 s,
# Liger's two MLPs 8-35 s together, QuACK untuned ~30 s of JIT, tuned ~105 s
# of autotuning), then per variant the step and the inference forward, each
# timed alone and back-to-back: 2 x max(budget, reps x GPU time) each, the
# forward a third of the step, plus ~1 s of checks and memory.
FIRST_S = {"swigen": 1.0, "eager": 1.0, "compile": 9.0, "liger": 30.0, "quack": 30.0}
TUNED_S = {"compile": 73.0, "quack": 105.0}
VARIANTS = {"swigen": 2, "eager": 1, "compile": 1, "liger": 2, "quack": 1}  # untuned variants per family
STEP_TFLOPS = 600.0  # what the fastest variants reach over a step at the suite's shapes


def step_ms(m: int, k: int, i: int) -> float:
    """GPU ms of one training step at STEP_TFLOPS: 3 forward GEMMs of
    2*M*K*I flops, twice that in the backward."""
    return 18.0 * m * k * i / (STEP_TFLOPS * 1e9)


def estimate_s(shape: Tuple[int, int, int], tuned: bool, families: Sequence[str], budget_ms: float = 300.0) -> float:
    """Seconds py_perf.py --compare spends at one shape with these families."""
    t = step_ms(*shape)
    timing = 2 * (max(budget_ms, MIN_REPS * t) + max(budget_ms, MIN_REPS * t / 3)) / 1e3
    total = 0.0
    for f in families:
        n = VARIANTS.get(f, 1) + (1 if tuned and f in TUNED_S else 0)
        total += FIRST_S.get(f, 10.0) + (TUNED_S.get(f, 0.0) if tuned else 0.0) + n * (timing + 1.0)
    return total


def plan(shapes: Sequence[Tuple[int, int, int]], tune: Sequence[Tuple[int, int, int]], families: Sequence[str],
         n: int) -> List[List[Tuple[int, int, int]]]:
    """shapes spread over n workers (or shards), longest first onto the
    least loaded (LPT: the longest worker is within 4/3 of the best
    split); each worker's shapes in the order given."""
    if n < 1:
        raise ValueError("plan: %d workers: at least 1" % n)
    cost = {s: estimate_s(s, s in tune, families) for s in shapes}
    load = [0.0] * n
    got: List[List[Tuple[int, int, int]]] = [[] for _ in range(n)]
    for s in sorted(shapes, key=lambda s: -cost[s]):
        w = min(range(n), key=lambda j: (load[j], j))
        load[w] += cost[s]
        got[w].append(s)
    order = {s: j for j, s in enumerate(shapes)}
    return [sorted(g, key=lambda s: order[s]) for g in got]


def best(peers: Dict[str, Any], key: str, timing: str = QUOTED) -> Tuple[str, float]:
    """The fastest correct peer (not swigen) at key ("step", "infer") in timing."""
    vals = [(n, us(v, key, timing)) for n, v in peers.items() if not n.startswith("swigen") and key in v and v.get("ok")]
    return min(vals, key=lambda r: r[1]) if vals else ("-", float("nan"))


def load_records(dirs: Sequence[str]) -> List[Dict[str, Any]]:
    """The records of dirs (directories of peers-*.json, or files that
    summarize wrote: one per shard or device call), sorted by shape; a shape
    recorded twice is an error (the shards overlap)."""
    recs: Dict[Tuple[int, int, int], Dict[str, Any]] = {}
    found: List[Tuple[str, Dict[str, Any]]] = []
    for d in dirs:
        if os.path.isfile(d):
            with open(d) as f:
                found += [(d, r) for r in json.load(f)["records"]]
            continue
        for p in sorted(glob.glob(os.path.join(d, "peers-*.json"))):
            with open(p) as f:
                found.append((p, json.load(f)))
    for p, r in found:
        s = (r["shape"]["M"], r["shape"]["K"], r["shape"]["I"])
        if s in recs:
            raise ValueError("load_records: shape %d,%d,%d recorded twice (%s): the shards overlap" % (s + (p,)))
        recs[s] = r
    return [recs[s] for s in sorted(recs)]


def verdicts(r: Dict[str, Any], seed: Tuple[int, int, int]) -> Dict[str, Any]:
    """swigen against the best peer at one record, in the quoted timing:
    ratios and the issue's targets."""
    s, ps = r["shape"], r["peers"]
    sw = ps["swigen"]
    bn, bu = best(ps, "step")
    ibn, ibu = best(ps, "infer")
    ratio = bu / us(sw, "step")
    iratio = ibu / us(sw, "infer") if "infer" in sw else float("nan")
    peer_mem = [v["step_mib"] for n, v in ps.items() if "step_mib" in v and not n.startswith("swigen")]
    target = 1.10 if (s["M"], s["K"], s["I"]) == seed else 1.00
    return {"best": bn, "best_us": bu, "ratio": ratio, "target": target, "ibest": ibn, "ibest_us": ibu,
            "iratio": iratio, "speed": ratio >= target, "infer": iratio >= 1.0,
            "mem": bool(peer_mem) and sw["step_mib"] <= min(peer_mem), "ok": bool(sw.get("ok"))}


def shape_lines(r: Dict[str, Any], seed: Tuple[int, int, int]) -> List[str]:
    """The table's lines for one record."""
    s, ps = r["shape"], r["peers"]
    shape = "%d,%d,%d" % (s["M"], s["K"], s["I"])
    sw = ps.get("swigen", {})
    if "step" not in sw:
        return ["%-18s swigen did not run: %s" % (shape, sw.get("error") or sw.get("skipped") or "missing")]
    v = verdicts(r, seed)
    verdict = ["ok" if v["ok"] else "WRONG",
               "speed %s" % ("PASS" if v["speed"] else "FAIL (want >= %.2fx)" % v["target"]),
               "infer %s" % ("PASS" if v["infer"] else "FAIL"), "mem %s" % ("PASS" if v["mem"] else "FAIL")]
    lines = ["%-18s step swigen %9.1f us | best peer %-40s %9.1f us | %.3fx || infer swigen %8.1f us | %-40s %8.1f us"
             " | %.3fx || %s" % (shape, us(sw, "step"), v["best"], v["best_us"], v["ratio"], us(sw, "infer"),
                                v["ibest"], v["ibest_us"], v["iratio"], ", ".join(verdict))]
    lines.append("%-18s   step us back-to-back / alone: %s" % ("", "; ".join(
        "%s %.1f / %.1f" % (n, us(p, "step"), us(p, "step", "us")) for n, p in ps.items() if "step" in p)))
    lines.append("%-18s   step MiB: %s" % ("", "; ".join("%s %.0f" % (n, p["step_mib"])
                                                        for n, p in ps.items() if "step_mib" in p)))
    ab = ["%s %.1f us (%.3fx of swigen's time)" % (n, us(p, "step"), us(p, "step") / us(sw, "step"))
          for n, p in ps.items() if n.startswith("swigen ") and "step" in p]
    if ab:
        lines.append("%-18s   A/B: %s" % ("", "; ".join(ab)))
    gone = ["%s (%s)" % (n, "error" if "error" in p else "skipped") for n, p in ps.items() if "step" not in p]
    if gone:
        lines.append("%-18s   not measured: %s" % ("", ", ".join(gone)))
    return lines


def summarize(dir_: str, out_json: str, seed: Tuple[int, int, int]) -> int:
    """Merges the records of dir_ (os.pathsep-separated directories: one
    per shard) into out_json and prints the table (back-to-back timing;
    "alone" beside it)."""
    recs = load_records([d for d in dir_.split(os.pathsep) if d])
    with open(out_json, "w") as f:
        json.dump({"timing_quoted": QUOTED, "records": recs}, f, indent=1)
    print("step and infer: median us of back-to-back reps (each after an L2 flush); \"alone\" = each rep synchronized")
    for r in recs:
        print("\n".join(shape_lines(r, seed)))
    return 0


def parse_shard(s: str) -> Tuple[int, int]:
    """"i/n" (1 <= i <= n) -> (i, n)."""
    try:
        i, n = (int(v) for v in s.split("/"))
    except ValueError:
        raise ValueError("shard %r: want i/n, e.g. 2/4" % s) from None
    if not 1 <= i <= n:
        raise ValueError("shard %r: want 1 <= i <= n" % s)
    return i, n


def worker_lines(shapes: str, tune: str, families: str, workers: int, shard: str = "") -> List[str]:
    """py_perf.sh's plan: the shapes of this call (shard i of n, or all),
    one ';'-joined line per worker (GPU), empty lines for idle ones, then a
    comment line with the estimate of the longest worker."""
    all_ = parse_shapes(shapes)
    tuned = parse_shapes(tune)
    fams = [f for f in families.split(",") if f]
    if shard:
        i, n = parse_shard(shard)
        all_ = plan(all_, tuned, fams, n)[i - 1]
    got = plan(all_, tuned, fams, workers)
    longest = max(sum(estimate_s(s, s in tuned, fams) for s in g) for g in got)
    return [";".join("%d,%d,%d" % s for s in g) for g in got] + ["# longest worker ~%.0f s" % longest]


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="?", help="directories of py_perf.py --compare's peers-*.json (or files "
                    "this wrote), %s-separated" % os.pathsep)
    ap.add_argument("--json", help="all records in one file")
    ap.add_argument("--seed-shape", default="16384,768,4608", help="the shape whose speed target is 1.10x")
    ap.add_argument("--plan", help="';'-separated M,K,I: print each worker's shapes instead")
    ap.add_argument("--tune", default="", help="--plan: the shapes that also run the tuned peers")
    ap.add_argument("--families", default="swigen,eager,compile,liger,quack", help="--plan: the peer families")
    ap.add_argument("--workers", type=int, default=1, help="--plan: worker processes (GPUs)")
    ap.add_argument("--shard", default="", help="--plan: i/n: only this call's part of the shapes")
    a = ap.parse_args()
    if a.plan:
        try:
            print("\n".join(worker_lines(a.plan, a.tune, a.families, a.workers, a.shard)))
        except ValueError as e:
            ap.exit(2, "py_table.py --plan: %s\n" % e)
        raise SystemExit(0)
    if not (a.records and a.json):
        ap.error("records and --json are needed (or --plan)")
    raise SystemExit(summarize(a.records, a.json, parse_shapes(a.seed_shape)[0]))

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


def best(peers: Dict[str, Any], key: str, timing: str = QUOTED) -> Tuple[str, float]:
    """The fastest correct peer (not swigen) at key ("step", "infer") in timing."""
    vals = [(n, us(v, key, timing)) for n, v in peers.items() if not n.startswith("swigen") and key in v and v.get("ok")]
    return min(vals, key=lambda r: r[1]) if vals else ("-", float("nan"))


def load_records(dirs: Sequence[str]) -> List[Dict[str, Any]]:
    """The peers-*.json records of dirs (one per shard), sorted by shape;
    a shape recorded by two shards is an error (the shards overlap)."""
    recs: Dict[Tuple[int, int, int], Dict[str, Any]] = {}
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "peers-*.json"))):
            with open(p) as f:
                r = json.load(f)
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


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", help="the directory of py_perf.py --compare's peers-*.json")
    ap.add_argument("--json", required=True, help="all records in one file")
    ap.add_argument("--seed-shape", default="16384,768,4608", help="the shape whose speed target is 1.10x")
    a = ap.parse_args()
    raise SystemExit(summarize(a.records, a.json, parse_shapes(a.seed_shape)[0]))

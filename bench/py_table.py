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
from typing import Any, Dict, List, Tuple


def parse_shapes(s: str) -> List[Tuple[int, int, int]]:
    out = []
    for part in (p for p in s.split(";") if p.strip()):
        m, k, i = (int(v) for v in part.split(","))
        out.append((m, k, i))
    return out


def _best(peers: Dict[str, Any], key: str) -> Tuple[str, float]:
    vals = [(n, v[key]["us"]) for n, v in peers.items() if not n.startswith("swigen") and key in v and v.get("ok")]
    return min(vals, key=lambda r: r[1]) if vals else ("-", float("nan"))


def summarize(dir_: str, out_json: str, seed: Tuple[int, int, int]) -> int:
    recs = []
    for p in sorted(glob.glob(os.path.join(dir_, "peers-*.json"))):
        with open(p) as f:
            recs.append(json.load(f))
    recs.sort(key=lambda r: (r["shape"]["M"], r["shape"]["K"], r["shape"]["I"]))
    with open(out_json, "w") as f:
        json.dump({"records": recs}, f, indent=1)
    lines = []
    for r in recs:
        s, ps = r["shape"], r["peers"]
        shape = "%d,%d,%d" % (s["M"], s["K"], s["I"])
        sw = ps.get("swigen", {})
        if "step" not in sw:
            lines.append("%-18s swigen did not run: %s" % (shape, sw.get("error") or sw.get("skipped") or "missing"))
            continue
        bn, bu = _best(ps, "step")
        ibn, ibu = _best(ps, "infer")
        ratio = bu / sw["step"]["us"]
        iratio = ibu / sw["infer"]["us"] if "infer" in sw else float("nan")
        mem = {n: v["step_mib"] for n, v in ps.items() if "step_mib" in v}
        peer_mem = [v for n, v in mem.items() if not n.startswith("swigen")]
        target = 1.10 if (s["M"], s["K"], s["I"]) == seed else 1.00
        verdict = ["ok" if sw.get("ok") else "WRONG",
                   "speed %s" % ("PASS" if ratio >= target else "FAIL (want >= %.2fx)" % target),
                   "infer %s" % ("PASS" if iratio >= 1.0 else "FAIL"),
                   "mem %s" % ("PASS" if peer_mem and sw["step_mib"] <= min(peer_mem) else "FAIL")]
        lines.append("%-18s step swigen %9.1f us | best peer %-40s %9.1f us | %.3fx || infer swigen %8.1f us | %-40s %8.1f us"
                     " | %.3fx || %s" % (shape, sw["step"]["us"], bn, bu, ratio, sw.get("infer", {}).get("us", float("nan")),
                                        ibn, ibu, iratio,
                                        ", ".join(verdict)))
        lines.append("%-18s   step MiB: %s" % ("", "; ".join("%s %.0f" % (n, v) for n, v in mem.items())))
        ab = ["%s %.1f us (%.3fx of swigen's time)" % (n, v["step"]["us"], v["step"]["us"] / sw["step"]["us"])
              for n, v in ps.items() if n.startswith("swigen ") and "step" in v]
        if ab:
            lines.append("%-18s   A/B: %s" % ("", "; ".join(ab)))
        gone = ["%s (%s)" % (n, "error" if "error" in v else "skipped") for n, v in ps.items() if "step" not in v]
        if gone:
            lines.append("%-18s   not measured: %s" % ("", ", ".join(gone)))
    print("\n".join(lines))
    return 0



if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", help="the directory of py_perf.py --compare's peers-*.json")
    ap.add_argument("--json", required=True, help="all records in one file")
    ap.add_argument("--seed-shape", default="16384,768,4608", help="the shape whose speed target is 1.10x")
    a = ap.parse_args()
    raise SystemExit(summarize(a.records, a.json, parse_shapes(a.seed_shape)[0]))

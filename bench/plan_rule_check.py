#!/usr/bin/env python3
"""The dispatch rule's constants and its check from the committed records (no GPU).

Prints (1) PlanNoise: the same-shape run-to-run spread of mu = ln(fused_us /
unfused_us) between the plan table's run (tiling/measured.json, from
bench/results/plan/) and the independent check run
(bench/results/suite-dispatch.json); (2) PlanDrift: the rms change of mu per
log unit between measured shapes of one kernel pair, net of the noise; (3) the
rules decided from the table's points and timed with the check run's times:
at the measured shapes, and with each shape's own point left out.
docs/DESIGN.md#dispatch-plan cites its output. Run from the repository root:
    python3 bench/plan_rule_check.py
"""

from __future__ import annotations

import json
import math
import statistics
from typing import Callable, Dict, List, Tuple

Shape = Tuple[int, int, int]
Rule = Callable[[float, float], bool]  # (mu of the nearest point, distance) -> unfused


def log_distance(a: Shape, b: Shape) -> float:
    return math.sqrt(sum(math.log(x / y) ** 2 for x, y in zip(a, b)))


def main() -> None:
    table = json.load(open("tiling/measured.json"))
    check = json.load(open("bench/results/suite-dispatch.json"))
    groups: Dict[Tuple[str, str], List[Tuple[Shape, float]]] = {}
    for r in table["rows"]:
        p = r.get("plan")
        if p:
            s = r["shape"]
            groups.setdefault((p["fused"], p["gemm"]), []).append(
                ((s["M"], s["K"], s["I"]), math.log(p["fused_us"] / p["unfused_us"])))
    times: Dict[Tuple[str, str, Shape], Tuple[float, float, float]] = {}
    for r in check["records"]:
        s = r["shape"]
        times[(r["config"], r["unfused_gemm"], (s["M"], s["K"], s["I"]))] = (r["us"], r["unfused_us"], r["baseline_us"])

    diffs = []
    for (f, g), pts in groups.items():
        for shape, mu in pts:
            t = times.get((f, g, shape))
            if t:
                diffs.append(math.log(t[0] / t[1]) - mu)
    noise = statistics.pstdev(diffs)
    print("PlanNoise: %d shapes, sd of the run-to-run change of mu %.3f, p90 |change| %.3f" % (
        len(diffs), noise, sorted(map(abs, diffs))[int(0.9 * len(diffs))]))

    xs, ys = [], []
    for pts in groups.values():
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                d = log_distance(pts[i][0], pts[j][0])
                if d <= 1.5:
                    xs.append(d * d)
                    ys.append((pts[i][1] - pts[j][1]) ** 2 - 2 * noise * noise)
    drift = math.sqrt(max(0.0, sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)))
    print("PlanDrift: %d pairs within 1.5, rms change of mu per log unit net of the noise %.3f" % (len(xs), drift))

    def required(z: float) -> Rule:
        return lambda mu, d: d <= math.log(2) and mu >= z * math.sqrt(0.03 ** 2 + (0.05 * d) ** 2)

    rules: Dict[str, Rule] = {
        "old (unfused unless fused won by 2%)": lambda mu, d: d <= math.log(2) and mu > -math.log(1.02),
        "fused always": lambda mu, d: False,
        "sign of the nearest margin (z=0)": required(0),
        "new (z=1, tiling.RequiredMargin)": required(1),
        "z=2": required(2),
    }
    for name, rule in rules.items():
        for leave_out in (False, True):
            loss, unfused = [], 0
            for (f, g), pts in groups.items():
                for q, (shape, _) in enumerate(pts):
                    t = times.get((f, g, shape))
                    if not t:
                        continue
                    cand = [(log_distance(shape, s2), m2) for j, (s2, m2) in enumerate(pts) if not (leave_out and j == q)]
                    take = bool(cand) and rule(min(cand)[1], min(cand)[0])
                    unfused += take
                    loss.append((t[1] if take else t[0]) / min(t[0], t[1]))
            print("%-38s %-16s unfused %2d  loss vs the faster path: mean %.2f%%  worst %.1f%%" % (
                name, "own point out" if leave_out else "at the points", unfused,
                (sum(loss) / len(loss) - 1) * 100, (max(loss) - 1) * 100))


if __name__ == "__main__":
    main()

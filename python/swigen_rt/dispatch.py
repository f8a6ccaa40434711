"""The dispatch plan of a fused kernel (manifest.Dispatch), and its rule.

choose_path is Go's tiling.ChoosePath, exactly: the measured point nearest
to the call's M, K, I in log space decides, if within ln 2, and takes the
unfused path only where its measured unfused speedup clears the margin
required at that distance (required_margin); else the fused kernel; a plan's
force overrides both. Pure Python: the shared cases
(tests/testdata/choose_path.json, written by Go) check it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["FUSED", "UNFUSED", "MAX_MEASURED_DISTANCE", "PLAN_NOISE", "PLAN_DRIFT", "PLAN_Z", "PlanPoint", "DispatchPlan",
           "choose_path", "log_distance", "required_margin"]

FUSED = "fused"
UNFUSED = "unfused"

MAX_MEASURED_DISTANCE = math.log(2)
"""tiling.MaxMeasuredDistance: ln 2, within a factor of two in one size."""

PLAN_NOISE = 0.03
"""tiling.PlanNoise: run-to-run standard deviation of ln(fused_us / unfused_us) at one shape."""
PLAN_DRIFT = 0.05
"""tiling.PlanDrift: its rms change per log unit of shape distance."""
PLAN_Z = 1.0
"""tiling.PlanZ: the standard deviations the unfused path's margin must clear."""


def required_margin(d: float) -> float:
    """tiling.RequiredMargin: the ln(fused_us / unfused_us) the nearest point
    must show for the unfused path at log distance d."""
    return PLAN_Z * math.sqrt(PLAN_NOISE * PLAN_NOISE + (PLAN_DRIFT * d) * (PLAN_DRIFT * d))


def _unfused_wins(speedup: float, d: float) -> bool:
    return speedup > 0 and math.log(speedup) >= required_margin(d)


@dataclass(frozen=True)
class PlanPoint:
    """A measured shape (M, K, I), the path the plan takes there and the
    unfused path's measured speedup (fused_us / unfused_us)."""

    m: int
    k: int
    i: int
    path: str
    unfused_speedup: float = 0.0


def log_distance(a: Tuple[int, int, int], b: Tuple[int, int, int]) -> float:
    """sqrt of the summed squared natural logs of the size ratios."""
    dm, dk, di = (math.log(x / y) for x, y in zip(a, b))
    return math.sqrt(dm * dm + dk * dk + di * di)


def choose_path(points: Sequence[PlanPoint], m: int, k: int, i: int) -> Tuple[str, str]:
    """The path a call at M=m, K=k, I=i takes, and why (tiling.ChoosePath)."""
    if m < 1 or k < 1 or i < 1:
        return FUSED, "fused: shape M=%d,K=%d,I=%d: sizes must be positive" % (m, k, i)
    best, dist = -1, 0.0
    for j, p in enumerate(points):
        d = log_distance((m, k, i), (p.m, p.k, p.i))
        if best < 0 or d < dist:
            best, dist = j, d
    if best < 0:
        return FUSED, "fused: no measured plan for this kind (the model: fusion saves the intermediate's HBM round trip)"
    p = points[best]
    if dist > MAX_MEASURED_DISTANCE:
        return FUSED, ("fused: the nearest measured shape, %d,%d,%d, is %.2f away in log space (beyond %.2f; the model: "
                       "fusion saves the intermediate's HBM round trip)" % (p.m, p.k, p.i, dist, MAX_MEASURED_DISTANCE))
    where = "at this shape"
    if dist > 0:
        where = "at the nearest shape, %d,%d,%d (log distance %.2f)" % (p.m, p.k, p.i, dist)
    got, need = (p.unfused_speedup - 1) * 100, (math.exp(required_margin(dist)) - 1) * 100
    if p.path == UNFUSED and _unfused_wins(p.unfused_speedup, dist):
        return UNFUSED, "unfused: measured %.1f%% faster than fused %s, over the %.1f%% required there" % (got, where, need)
    return FUSED, "fused: the unfused path's measured advantage %s, %+.1f%%, is under the %.1f%% required there" % (
        where, got, need)


def _shape_ok(s: Mapping[str, Any]) -> bool:
    return all(isinstance(s.get(n), int) and not isinstance(s.get(n), bool) and s[n] >= 1 for n in ("M", "K", "I"))


@dataclass(frozen=True)
class DispatchPlan:
    """One fused kernel's dispatch plan: the index's "dispatch" entry."""

    fused: str
    gemm: str
    elementwise: str
    points: Tuple[PlanPoint, ...]
    force: str = ""
    rule: str = ""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "DispatchPlan":
        """Parses and checks a plan as Go's manifest.Dispatch.Check: both
        kernels and the cubin named, a known force, valid points."""
        fused = str(d.get("fused") or "")
        if not fused or not d.get("gemm") or not d.get("elementwise"):
            raise ValueError("dispatch %r: fused, gemm and elementwise must all be named" % fused)
        force = str(d.get("force") or "")
        if force not in ("", FUSED, UNFUSED):
            raise ValueError("dispatch %s: force %r: want fused or unfused" % (fused, force))
        pts = []
        for j, p in enumerate(d.get("points") or []):
            s = p.get("shape") or {}
            if not _shape_ok(s):
                raise ValueError("dispatch %s: point %d: shape %r: want positive M, K, I" % (fused, j, s))
            if p.get("path") not in (FUSED, UNFUSED):
                raise ValueError("dispatch %s: point %d: path %r: want fused or unfused" % (fused, j, p.get("path")))
            sp = p.get("unfused_speedup", 0)
            if isinstance(sp, bool) or not isinstance(sp, (int, float)) or not 0 <= sp < math.inf:
                raise ValueError("dispatch %s: point %d: unfused_speedup %r: want a finite number >= 0" % (fused, j, sp))
            if p["path"] == UNFUSED and not sp > 1:
                raise ValueError("dispatch %s: point %d: path unfused with unfused_speedup %r: want over 1" % (fused, j, sp))
            pts.append(PlanPoint(m=s["M"], k=s["K"], i=s["I"], path=p["path"], unfused_speedup=float(sp)))
        return cls(fused=fused, gemm=str(d["gemm"]), elementwise=str(d["elementwise"]), points=tuple(pts),
                   force=force, rule=str(d.get("rule") or ""))

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "DispatchPlan":
        """A plan from its JSON text (as a generated package embeds it)."""
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError("dispatch: want a JSON object")
        return cls.from_dict(d)

    def choose(self, m: int, k: int, i: int) -> Tuple[str, str]:
        """The path a call at M, K, I takes, and why (manifest.Dispatch.Choose)."""
        if self.force:
            return self.force, "%s: forced when the package was emitted" % self.force
        return choose_path(self.points, m, k, i)


def plan_or_none(text: Optional[str]) -> Optional[DispatchPlan]:
    """DispatchPlan.from_json, or None for None."""
    return None if text is None else DispatchPlan.from_json(text)

"""The dispatch plan of a fused kernel (manifest.Dispatch), and its rule.

choose_path is Go's tiling.ChoosePath, exactly: the measured point nearest
to the call's M, K, I in log space decides, if within ln 2, and takes the
unfused path only where its measured unfused speedup clears the margin
required at that distance (required_margin); else the fused kernel; a plan's
force overrides both. Pure Python: the shared cases
(tests/testdata/choose_path.json, written by Go) check it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

from . import files, schema
from .expr import INT64_MAX

__all__ = ["FUSED", "UNFUSED", "MAX_MEASURED_DISTANCE", "MAX_POINTS", "PLAN_NOISE", "PLAN_DRIFT", "PLAN_Z", "PlanError",
           "PlanPoint", "DispatchPlan", "choose_path", "log_distance", "required_margin"]

FUSED = "fused"
UNFUSED = "unfused"

MAX_POINTS = 4096
"""The most measured points a plan holds (an emitted one has a few)."""

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


class PlanError(ValueError):
    """A dispatch plan that is malformed."""


_F = schema.Field
_NAME = schema.Str(what="a non-empty string", nonempty=True, max_len=255)
_SIZE = schema.Int(1, INT64_MAX)
_PATH = schema.Str(choices=(FUSED, UNFUSED))

_PLAN = schema.Obj(schema.fields(
    _F("fused", _NAME), _F("gemm", _NAME), _F("elementwise", _NAME),
    _F("force", schema.Str(choices=("", FUSED, UNFUSED)), ""), _F("rule", schema.Str(), ""),
    _F("points", schema.List(schema.Obj(schema.fields(
        _F("shape", schema.Obj(schema.fields(_F("M", _SIZE), _F("K", _SIZE), _F("I", _SIZE)))),
        _F("path", _PATH), _F("unfused_speedup", schema.Num(0, 1e9), 0.0))), 0, MAX_POINTS), [])))
"""A plan's fields (manifest.Dispatch): both kernels and the elementwise
cubin named, a known force, each point a positive shape, a path and the
unfused path's measured speedup there (over 1 where the path is unfused)."""


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
        kernels and the cubin named, a known force, valid points. Raises
        PlanError (a ValueError) naming the field."""
        if not isinstance(d, Mapping):
            raise PlanError("dispatch: %s: want a JSON object" % schema.show(d))
        d = dict(d)
        name = d.get("fused")
        what = "dispatch %s" % (name if isinstance(name, str) and len(name) <= 255 else schema.show(name))
        try:
            c = _PLAN.conv(d, "")
        except schema.SchemaError as e:
            raise PlanError("%s: %s" % (what, e)) from None
        for j, p in enumerate(c["points"]):
            if p["path"] == UNFUSED and not p["unfused_speedup"] > 1:
                raise PlanError("%s: points[%d].unfused_speedup = %s: a point whose path is unfused wants over 1"
                                % (what, j, schema.show(p["unfused_speedup"])))
        pts = tuple(PlanPoint(m=p["shape"]["M"], k=p["shape"]["K"], i=p["shape"]["I"], path=p["path"],
                              unfused_speedup=p["unfused_speedup"]) for p in c["points"])
        return cls(fused=c["fused"], gemm=c["gemm"], elementwise=c["elementwise"], points=pts, force=c["force"],
                   rule=c["rule"])

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "DispatchPlan":
        """A plan from its JSON text (as a generated package embeds it)."""
        d = files.load_json(text, "dispatch", PlanError)
        if not isinstance(d, dict):
            raise PlanError("dispatch: %s: want a JSON object" % schema.show(d))
        return cls.from_dict(d)

    def choose(self, m: int, k: int, i: int) -> Tuple[str, str]:
        """The path a call at M, K, I takes, and why (manifest.Dispatch.Choose)."""
        if self.force:
            return self.force, "%s: forced when the package was emitted" % self.force
        return choose_path(self.points, m, k, i)


def plan_or_none(text: Optional[str]) -> Optional[DispatchPlan]:
    """DispatchPlan.from_json, or None for None."""
    return None if text is None else DispatchPlan.from_json(text)

"""The manifest (version 2): a swigen kernel's launch contract, parsed.

Mirrors Go's manifest package: parsing and validation, the shape rules, the
grid rule and Resolve, which evaluates every parameter of one launch. All of
it is pure Python; nothing here touches a GPU.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import expr

__all__ = [
    "VERSION", "MAX_GRID_X", "KIND_TENSORMAP", "KIND_I32", "ManifestError", "ShapeError",
    "Buffer", "TensorMap", "Param", "Rule", "Grid", "Manifest", "Device", "Encode", "Arg", "Launch",
]

VERSION = 2
"""The manifest format this runtime reads."""

MAX_GRID_X = (1 << 31) - 1
"""The largest gridDim.x a launch may have."""

KIND_TENSORMAP = "tensormap"
KIND_I32 = "i32"
KIND_I64 = "i64"
KIND_PTR = "ptr"
KIND_WORKSPACE = "workspace"
KINDS = "tensormap, i32, i64, ptr or workspace"
"""The parameter kinds as messages list them (manifest.kindList)."""

GRID_SYMBOL = "grid"
"""The name under which a workspace's expressions see the launch's grid."""

SCHEDULER_STATIC = "static"
SCHEDULER_CLC = "clc"
SCHEDULER_STREAMK = "streamk"
STREAMK_MAX_CTAS = 256
"""The largest stream-K grid (tiling.StreamKMaxCTAs)."""


class ManifestError(ValueError):
    """A manifest that is malformed or that this runtime cannot launch."""


class ShapeError(ValueError):
    """Sizes or tensors that break the kernel's shape rules."""


@dataclass(frozen=True)
class Buffer:
    """A device buffer a launch reads or writes: row-major, shape outermost first."""

    name: str
    shape: Tuple[str, ...]
    doc: str = ""


@dataclass(frozen=True)
class TensorMap:
    """How to encode one tensor map (cuTensorMapEncodeTiled), sizes as expressions.

    Arrays are innermost dimension first; strides are the byte strides of
    dimensions 1..rank-1.
    """

    buffer: str
    dtype: str
    elem_bytes: int
    dims: Tuple[str, ...]
    strides: Tuple[str, ...]
    box: Tuple[int, ...]
    elem_strides: Tuple[int, ...]
    interleave: str
    swizzle: str
    l2_promotion: str
    oob_fill: str

    @property
    def rank(self) -> int:
        return len(self.dims)


@dataclass(frozen=True)
class Workspace:
    """Scratch memory the loader owns (manifest.Workspace): at least bytes,
    aligned to align, its first zero_bytes zero when a launch starts (the
    kernel leaves them zero); expressions of the sizes and GRID_SYMBOL."""

    bytes: str
    align: int
    zero_bytes: str


@dataclass(frozen=True)
class WorkspaceSize:
    """A workspace evaluated for one launch."""

    bytes: int
    zero_bytes: int
    align: int


@dataclass(frozen=True)
class Param:
    """One kernel parameter: a tensor map (map), an integer (value), a
    pointer to a caller's buffer (buffer) or the loader's workspace."""

    name: str
    kind: str
    size: int
    align: int
    doc: str = ""
    map: Optional[TensorMap] = None
    value: Optional[str] = None
    buffer: Optional[str] = None
    workspace: Optional[Workspace] = None


@dataclass(frozen=True)
class Rule:
    """A shape rule: size >= min and, where multiple is set, a multiple of it."""

    size: str
    min: int
    multiple: int
    message: str

    def violated(self, v: int) -> bool:
        return v < self.min or (self.multiple > 0 and v % self.multiple != 0)


@dataclass(frozen=True)
class Grid:
    """The rule that sizes the 1-D grid (see Manifest.grid_ctas)."""

    tiles: str
    ctas_per_tile: int
    scheduler: str


@dataclass(frozen=True)
class Device:
    """What a grid depends on: the SM count and the co-resident clusters."""

    sms: int
    clusters: int = 0


@dataclass(frozen=True)
class Encode:
    """One tensor map of a launch, its sizes evaluated (manifest.Encode)."""

    buffer: str
    dtype: str
    dims: Tuple[int, ...]
    strides: Tuple[int, ...]
    box: Tuple[int, ...]
    elem_strides: Tuple[int, ...]
    interleave: str
    swizzle: str
    l2_promotion: str
    oob_fill: str


@dataclass(frozen=True)
class Arg:
    """One resolved parameter: a tensor map to encode, an integer value, or
    a pointer (a caller's buffer, or a workspace of the size given) whose
    address the loader packs."""

    param: str
    kind: str
    map: Optional[Encode] = None
    value: int = 0
    buffer: str = ""
    workspace: Optional[WorkspaceSize] = None


@dataclass(frozen=True)
class Launch:
    """A manifest resolved for one problem (manifest.Launch).

    cluster is (0, 0, 0) where the kernel launches without the cluster
    attribute (a cluster of one CTA).
    """

    args: Tuple[Arg, ...]
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    cluster: Tuple[int, int, int]
    smem_bytes: int


def _get(d: Mapping[str, Any], key: str, what: str, default: Any = ...) -> Any:
    if key in d and d[key] is not None:
        return d[key]
    if default is ...:
        raise ManifestError("%s: missing %r" % (what, key))
    return default


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ManifestError("%s = %r: want an integer" % (what, v))
    return v


def _ints(vs: Any, what: str) -> Tuple[int, ...]:
    return tuple(_int(v, "%s[%d]" % (what, i)) for i, v in enumerate(vs))


def _strs(vs: Any, what: str) -> Tuple[str, ...]:
    for i, v in enumerate(vs):
        if not isinstance(v, str):
            raise ManifestError("%s[%d] = %r: want an expression string" % (what, i, v))
    return tuple(vs)


@dataclass(frozen=True)
class Manifest:
    """How to launch one swigen kernel; see docs/DESIGN.md#launch-contract."""

    version: int
    name: str
    entry: str
    kernel: str
    arch: str
    config_hash: str
    block_threads: int
    cluster_dims: Tuple[int, int, int]
    dynamic_smem_bytes: int
    max_ctas_per_sm: int
    sizes: Tuple[str, ...]
    buffers: Tuple[Buffer, ...]
    params: Tuple[Param, ...]
    shape_rules: Tuple[Rule, ...]
    grid: Grid
    probe: str = ""
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # ---- parsing ---------------------------------------------------------

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Manifest":
        """Parses a manifest's JSON object and validates it."""
        name = str(_get(d, "name", "manifest"))
        what = "manifest %s" % name
        version = _get(d, "version", what, 0)
        if version != VERSION:
            raise ManifestError("%s: version %r: this runtime reads version %d (re-emit the kernel with this swigen)"
                                % (what, version, VERSION))
        buffers = tuple(Buffer(name=str(_get(b, "name", what + " buffer")),
                               shape=_strs(_get(b, "shape", what + " buffer"), what + " buffer shape"),
                               doc=str(b.get("doc", "")))
                        for b in _get(d, "buffers", what))
        params = []
        for i, p in enumerate(_get(d, "params", what)):
            pw = "%s: parameter %d" % (what, i)
            tm = None
            if p.get("map") is not None:
                m = p["map"]
                tm = TensorMap(
                    buffer=str(_get(m, "buffer", pw)), dtype=str(_get(m, "dtype", pw)),
                    elem_bytes=_int(_get(m, "elem_bytes", pw), pw + " elem_bytes"),
                    dims=_strs(_get(m, "dims", pw), pw + " dims"),
                    strides=_strs(_get(m, "strides", pw, []), pw + " strides"),
                    box=_ints(_get(m, "box", pw), pw + " box"),
                    elem_strides=_ints(_get(m, "elem_strides", pw), pw + " elem_strides"),
                    interleave=str(_get(m, "interleave", pw)), swizzle=str(_get(m, "swizzle", pw)),
                    l2_promotion=str(_get(m, "l2_promotion", pw)), oob_fill=str(_get(m, "oob_fill", pw)))
            params.append(Param(name=str(_get(p, "name", pw)), kind=str(_get(p, "kind", pw)),
                                size=_int(_get(p, "size", pw), pw + " size"),
                                align=_int(_get(p, "align", pw), pw + " align"),
                                doc=str(p.get("doc", "")), map=tm,
                                value=str(p["value"]) if p.get("value") else None,
                                buffer=str(p["buffer"]) if p.get("buffer") else None,
                                workspace=_parse_workspace(p.get("workspace"), pw)))
        rules = tuple(Rule(size=str(_get(r, "size", what + " shape rule")),
                           min=_int(_get(r, "min", what + " shape rule", 0), what + " shape rule min"),
                           multiple=_int(_get(r, "multiple", what + " shape rule", 0), what + " shape rule multiple"),
                           message=str(r.get("message", "")))
                      for r in _get(d, "shape_rules", what, []))
        g = _get(d, "grid", what)
        grid = Grid(tiles=str(_get(g, "tiles", what + " grid")),
                    ctas_per_tile=_int(_get(g, "ctas_per_tile", what + " grid", 0), what + " grid ctas_per_tile"),
                    scheduler=str(_get(g, "scheduler", what + " grid", SCHEDULER_STATIC)))
        cd = _ints(_get(d, "cluster_dims", what), what + " cluster_dims")
        if len(cd) != 3:
            raise ManifestError("%s: cluster_dims %r: want 3 entries" % (what, cd))
        m = cls(version=version, name=name, entry=str(_get(d, "entry", what)), kernel=str(_get(d, "kernel", what)),
                arch=str(_get(d, "arch", what)), config_hash=str(d.get("config_hash", "")),
                block_threads=_int(_get(d, "block_threads", what), what + " block_threads"),
                cluster_dims=(cd[0], cd[1], cd[2]),
                dynamic_smem_bytes=_int(_get(d, "dynamic_smem_bytes", what), what + " dynamic_smem_bytes"),
                max_ctas_per_sm=_int(_get(d, "max_ctas_per_sm", what, 0), what + " max_ctas_per_sm"),
                sizes=_strs(_get(d, "sizes", what), what + " sizes"), buffers=buffers, params=tuple(params),
                shape_rules=rules, grid=grid, probe=str(d.get("probe", "")), raw=dict(d))
        m.validate()
        return m

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Manifest":
        """Parses a manifest from its JSON text."""
        try:
            d = json.loads(text)
        except ValueError as e:
            raise ManifestError("manifest: not JSON: %s" % e) from None
        if not isinstance(d, dict):
            raise ManifestError("manifest: want a JSON object")
        return cls.from_dict(d)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Manifest":
        """Reads and parses the manifest file at path (<name>.json of an emit)."""
        with open(path, "rb") as f:
            data = f.read()
        try:
            return cls.from_json(data)
        except ManifestError as e:
            raise ManifestError("%s: %s" % (os.fspath(path), e)) from None

    # ---- validation (manifest.Validate) -----------------------------------

    def validate(self) -> None:
        """Checks that the manifest is self-consistent, as Go's Validate.

        Every expression must parse and use only the sizes the manifest
        names, every parameter's kind must have its payload, and every map's
        buffer must be listed. Raises ManifestError listing every problem.
        """
        ones = {s: 1 for s in self.sizes}
        errs: List[str] = []

        def ev(e: str, what: str) -> None:
            try:
                expr.evaluate(e, ones)
            except expr.ExprError as x:
                errs.append("%s: %s" % (what, x))

        names = set()
        for b in self.buffers:
            names.add(b.name)
            for e in b.shape:
                ev(e, "buffer %s" % b.name)
        for i, p in enumerate(self.params):
            what = "parameter %d (%s)" % (i, p.name)
            if p.kind == KIND_TENSORMAP:
                if p.map is None:
                    errs.append("%s: a tensormap without a map" % what)
                    continue
                if p.map.buffer not in names:
                    errs.append("%s: map of buffer %s, which is not listed" % (what, expr.go_quote(p.map.buffer)))
                r = p.map.rank
                if r < 1 or r > 5:
                    errs.append("%s: rank %d: want 1 to 5" % (what, r))
                for e in p.map.dims + p.map.strides:
                    ev(e, what)
                t = p.map
                if len(t.strides) != r - 1 or len(t.box) != r or len(t.elem_strides) != r:
                    errs.append("%s: map of %s: rank %d with %d strides, %d box and %d element-stride entries"
                                % (what, t.buffer, r, len(t.strides), len(t.box), len(t.elem_strides)))
            elif p.kind == KIND_I32:
                if p.value is None:
                    errs.append("%s: an i32 without a value" % what)
                else:
                    ev(p.value, what)
            elif p.kind in (KIND_I64, KIND_PTR, KIND_WORKSPACE):
                errs.extend(_wide_param_errors(p, what, ones, names))
            else:
                errs.append("%s: kind %s: want %s" % (what, expr.go_quote(p.kind), KINDS))
        for rule in self.shape_rules:
            ev(rule.size, "shape rule")
        ev(self.grid.tiles, "grid")
        if self.block_threads < 1 or self.cluster_dims[0] < 1 or self.cluster_dims[1] < 1 or self.dynamic_smem_bytes < 0:
            errs.append("block %d threads, cluster %s, %d bytes of shared memory: want positive dims"
                        % (self.block_threads, list(self.cluster_dims), self.dynamic_smem_bytes))
        if self.grid.scheduler not in (SCHEDULER_STATIC, SCHEDULER_CLC, SCHEDULER_STREAMK):
            errs.append("grid: scheduler %s: want %s, %s or %s" % (expr.go_quote(self.grid.scheduler), SCHEDULER_STATIC, SCHEDULER_CLC, SCHEDULER_STREAMK))
        if errs:
            raise ManifestError("manifest: %s: %s" % (self.name, "\n".join(errs)))

    # ---- shape rules, grid, resolve ---------------------------------------

    def check_sizes(self, sizes: Mapping[str, int]) -> None:
        """Checks sizes against every shape rule (manifest.CheckSizes).

        Raises ShapeError "<name>: bad shape: M=0: must be >= 1; K=12: ..."
        listing every violation, or ExprError naming a size the rules need
        and sizes lacks.
        """
        bad = []
        for r in self.shape_rules:
            v = expr.evaluate(r.size, sizes)
            if r.violated(v):
                bad.append("%s=%d: %s" % (r.size, v, r.message))
        if bad:
            raise ShapeError("%s: bad shape: %s" % (self.name, "; ".join(bad)))

    @property
    def cluster_size(self) -> int:
        return max(1, self.cluster_dims[0] * self.cluster_dims[1])

    @property
    def caps_by_clusters(self) -> bool:
        """Whether the grid depends on the co-resident cluster count."""
        return self.grid.scheduler == SCHEDULER_STATIC and self.cluster_size > 1

    def grid_ctas(self, sizes: Mapping[str, int], sms: int, clusters: int = 0) -> int:
        """The grid's CTA count for sizes (manifest.GridCTAs).

        clc: tiles*cpt rounded up to whole clusters; static: at most one work
        unit per SM, rounded down to whole clusters (at least one), capped by
        clusters*cluster_size where caps_by_clusters.
        """
        t = expr.evaluate(self.grid.tiles, sizes)
        cpt, c = max(1, self.grid.ctas_per_tile), self.cluster_size
        if t < 0 or t > MAX_GRID_X // cpt:
            raise ShapeError("%s: %d tiles of %d CTAs: the grid must hold 0 to %d CTAs (gridDim.x)"
                             % (self.name, t, cpt, MAX_GRID_X))
        if self.grid.scheduler == SCHEDULER_CLC:
            return (t * cpt + c - 1) // c * c
        if self.grid.scheduler == SCHEDULER_STREAMK:
            if cpt != 1 or c != 1:
                raise ManifestError("manifest: %s: a streamk grid of %d CTAs per tile in clusters of %d: want 1 and 1" % (self.name, cpt, c))
            return min(max(1, sms), STREAMK_MAX_CTAS)
        g = min(t, max(1, sms // cpt)) * cpt
        if g < c:
            g = c
        else:
            g -= g % c
        if self.caps_by_clusters:
            g = min(g, clusters * c)
        return g

    def resolve(self, sizes: Mapping[str, int], device: Device) -> Launch:
        """Checks sizes and evaluates every parameter and the launch dims."""
        self.check_sizes(sizes)
        g = self.grid_ctas(sizes, device.sms, device.clusters)
        args = tuple(_resolve_param(self.name, p, sizes, g) for p in self.params)
        cluster = (self.cluster_dims[0], self.cluster_dims[1], 1) if self.cluster_size > 1 else (0, 0, 0)
        return Launch(args=args, grid=(g, 1, 1), block=(self.block_threads, 1, 1), cluster=cluster,
                      smem_bytes=self.dynamic_smem_bytes)

    def buffer(self, name: str) -> Buffer:
        """The buffer called name."""
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)


def _resolve_param(kernel: str, p: Param, sizes: Mapping[str, int], grid: int) -> Arg:
    if p.kind == KIND_TENSORMAP:
        assert p.map is not None  # validate()
        return Arg(param=p.name, kind=p.kind, map=_resolve_map(kernel, p, p.map, sizes))
    if p.kind == KIND_I32:
        assert p.value is not None
        v = expr.evaluate(p.value, sizes)
        if v < -(1 << 31) or v > (1 << 31) - 1:
            raise ShapeError("%s: parameter %s = %s = %d: out of the i32 range" % (kernel, p.name, p.value, v))
        return Arg(param=p.name, kind=p.kind, value=v)
    if p.kind in (KIND_I64, KIND_PTR, KIND_WORKSPACE):
        return _resolve_wide_param(kernel, p, sizes, grid)
    raise ManifestError("%s: parameter %s: kind %s: want %s" % (kernel, p.name, expr.go_quote(p.kind), KINDS))


def _eval_sizes(kernel: str, param: str, es: Sequence[str], sizes: Mapping[str, int]) -> Tuple[int, ...]:
    out = []
    for e in es:
        v = expr.evaluate(e, sizes)
        if v < 0:
            raise ShapeError("%s: parameter %s: %s = %d: negative" % (kernel, param, e, v))
        out.append(v)
    return tuple(out)


def _resolve_map(kernel: str, p: Param, t: TensorMap, sizes: Mapping[str, int]) -> Encode:
    if any(b < 0 for b in t.box) or any(e < 0 for e in t.elem_strides):
        raise ManifestError("%s: parameter %s: map of %s: box %s, element strides %s: negative"
                            % (kernel, p.name, t.buffer, list(t.box), list(t.elem_strides)))
    return Encode(buffer=t.buffer, dtype=t.dtype, dims=_eval_sizes(kernel, p.name, t.dims, sizes),
                  strides=_eval_sizes(kernel, p.name, t.strides, sizes), box=t.box, elem_strides=t.elem_strides,
                  interleave=t.interleave, swizzle=t.swizzle, l2_promotion=t.l2_promotion, oob_fill=t.oob_fill)


# ---- the 64-bit kinds: i64, ptr, workspace (manifest.KindI64, KindPtr,
# KindWorkspace)


def _parse_workspace(w: Any, what: str) -> Optional[Workspace]:
    if w is None:
        return None
    return Workspace(bytes=str(_get(w, "bytes", what + " workspace")),
                     align=_int(_get(w, "align", what + " workspace"), what + " workspace align"),
                     zero_bytes=str(_get(w, "zero_bytes", what + " workspace")))


def _wide_param_errors(p: Param, what: str, ones: Mapping[str, int], buffers: Any) -> List[str]:
    """What Validate says of an i64, ptr or workspace parameter."""
    if p.size != 8:
        return ["%s: size %d: a %s is 8 bytes" % (what, p.size, p.kind)]
    try:
        if p.kind == KIND_I64:
            if p.value is None:
                return ["%s: an i64 without a value" % what]
            expr.evaluate(p.value, ones)
        elif p.kind == KIND_PTR:
            if p.buffer not in buffers:
                return ["%s: pointer to buffer %s, which is not listed" % (what, expr.go_quote(p.buffer or ""))]
        else:
            if p.workspace is None:
                return ["%s: a workspace without its size" % what]
            _workspace_size(p.workspace, dict(ones), 1)
    except (expr.ExprError, ManifestError) as e:
        return ["%s: %s" % (what, e)]
    return []


def _workspace_size(w: Workspace, sizes: Mapping[str, int], grid: int) -> WorkspaceSize:
    if w.align < 1 or w.align & (w.align - 1):
        raise ManifestError("workspace alignment %d: want a power of two" % w.align)
    sg = dict(sizes)
    sg[GRID_SYMBOL] = grid
    b, z = expr.evaluate(w.bytes, sg), expr.evaluate(w.zero_bytes, sg)
    if b < 1 or z < 0 or z > b:
        raise ManifestError("workspace of %s = %d bytes, %s = %d of them zeroed: want 1 or more bytes, 0 to all of them zeroed"
                            % (w.bytes, b, w.zero_bytes, z))
    return WorkspaceSize(bytes=b, zero_bytes=z, align=w.align)


def _resolve_wide_param(kernel: str, p: Param, sizes: Mapping[str, int], grid: int) -> Arg:
    if p.kind == KIND_I64:
        assert p.value is not None
        v = expr.evaluate(p.value, sizes)
        if v < -(1 << 63) or v > (1 << 63) - 1:
            raise ShapeError("%s: parameter %s = %s = %d: out of the i64 range" % (kernel, p.name, p.value, v))
        return Arg(param=p.name, kind=p.kind, value=v)
    if p.kind == KIND_PTR:
        return Arg(param=p.name, kind=p.kind, buffer=p.buffer or "")
    assert p.workspace is not None
    try:
        w = _workspace_size(p.workspace, sizes, grid)
    except ManifestError as e:
        raise ManifestError("%s: parameter %s: %s" % (kernel, p.name, e)) from None
    return Arg(param=p.name, kind=p.kind, workspace=w)

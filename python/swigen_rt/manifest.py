"""The manifest (version 2): a swigen kernel's launch contract, parsed.

Mirrors Go's manifest package: parsing and validation, the shape rules, the
grid rule and Resolve, which evaluates every parameter of one launch. All of
it is pure Python; nothing here touches a GPU.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import expr, files, schema

__all__ = [
    "VERSION", "MAX_GRID_X", "KIND_TENSORMAP", "KIND_I32", "KIND_I64", "KIND_PTR", "KIND_WORKSPACE", "PAYLOAD_MAP",
    "PAYLOAD_VALUE", "PAYLOAD_BUFFER", "PAYLOAD_WORKSPACE", "ParamKind", "PARAM_KINDS",
    "MAX_BLOCK_THREADS", "MAX_CLUSTER_CTAS", "MAX_PARAM_ALIGN", "MAX_EXPR_LEN", "ManifestError", "ShapeError",
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

GRID_SYMBOL = "grid"
"""The name under which a workspace's expressions see the launch's grid."""

PAYLOAD_MAP = "map"
PAYLOAD_VALUE = "value"
PAYLOAD_BUFFER = "buffer"
PAYLOAD_WORKSPACE = "workspace"


@dataclass(frozen=True)
class ParamKind:
    """What a parameter kind is: its bytes in the parameter buffer, its
    payload (a tensor map to encode, or a value expression) and, for a
    value, its range and its struct format (little-endian, as the GPU
    reads it)."""

    size: int
    payload: str
    lo: int = 0
    hi: int = 0
    fmt: str = ""


PARAM_KINDS: Dict[str, ParamKind] = {
    KIND_TENSORMAP: ParamKind(size=128, payload=PAYLOAD_MAP),
    KIND_I32: ParamKind(size=4, payload=PAYLOAD_VALUE, lo=-(1 << 31), hi=(1 << 31) - 1, fmt="<i"),
    KIND_I64: ParamKind(size=8, payload=PAYLOAD_VALUE, lo=expr.INT64_MIN, hi=expr.INT64_MAX, fmt="<q"),
    # An address the loader packs per launch: a caller's buffer, or the
    # loader's own workspace (sized per launch, see Workspace).
    KIND_PTR: ParamKind(size=8, payload=PAYLOAD_BUFFER),
    KIND_WORKSPACE: ParamKind(size=8, payload=PAYLOAD_WORKSPACE),
}
"""Every parameter kind this runtime launches: a new kind is one entry
(its payload one of the four above)."""


def kinds_doc() -> str:
    """The known kinds for a message: "tensormap or i32"."""
    ks = list(PARAM_KINDS)
    return ks[0] if len(ks) == 1 else "%s or %s" % (", ".join(ks[:-1]), ks[-1])

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
    aligned to align, its first zero_bytes zeroed once, at allocation (the
    kernel keeps its state there from then on: stream-K's flags and epoch
    header); expressions of the sizes and GRID_SYMBOL."""

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


# ---- the manifest's fields, one table (schema.conv checks a parsed JSON
# object against it: a wrong type or a value out of range is a ManifestError
# naming the field by its path) ---------------------------------------------

INT32_MAX = (1 << 31) - 1
MAX_BLOCK_THREADS = 1024
"""The most threads a CUDA block has on every architecture."""
MAX_CLUSTER_CTAS = 16
"""The most CTAs a cluster has (16 with the non-portable size; 8 portable)."""
MAX_PARAM_ALIGN = 4096
"""The largest parameter alignment (a tensor map needs 64)."""
MAX_EXPR_LEN = 4096
"""The longest expression read (an emitted one is under 40 characters)."""

_IDENT = schema.Str(what="an identifier ([A-Za-z_][A-Za-z0-9_]*)", max_len=255, pattern=r"[A-Za-z_][A-Za-z0-9_]*")
_SIZE_NAME = schema.Str(what="a size name ([A-Za-z][A-Za-z0-9_]*)", max_len=64, pattern=r"[A-Za-z][A-Za-z0-9_]*")
_NAME = schema.Str(what="a non-empty string", nonempty=True, max_len=255)
_TEXT = schema.Str()
_EXPR = schema.Str(what="an expression string", max_len=MAX_EXPR_LEN)
_INT64 = schema.Int(expr.INT64_MIN, expr.INT64_MAX)
_F = schema.Field

_MAP = schema.Obj(schema.fields(
    _F("buffer", _NAME), _F("dtype", _NAME), _F("elem_bytes", schema.Int(1, 16)),
    _F("dims", schema.List(_EXPR, 0, 5)), _F("strides", schema.List(_EXPR, 0, 4), []),
    # TMA's ranges (cuTensorMapEncodeTiled): a box of 1 to 256 elements a
    # dimension, an element stride of 1 to 8.
    _F("box", schema.List(schema.Int(1, 256), 0, 5)), _F("elem_strides", schema.List(schema.Int(1, 8), 0, 5)),
    _F("interleave", _NAME), _F("swizzle", _NAME), _F("l2_promotion", _NAME), _F("oob_fill", _NAME)))

_WORKSPACE = schema.Obj(schema.fields(
    _F("bytes", _EXPR), _F("align", schema.Int(1, MAX_PARAM_ALIGN, pow2=True)), _F("zero_bytes", _EXPR)))

_PARAM = schema.Obj(schema.fields(
    _F("name", _IDENT), _F("kind", _NAME), _F("size", schema.Int(1, 4096)),
    _F("align", schema.Int(1, MAX_PARAM_ALIGN, pow2=True)), _F("doc", _TEXT, ""), _F("map", _MAP, None), _F("value", _EXPR, ""),
    _F("buffer", _IDENT, None), _F("workspace", _WORKSPACE, None)))

_BUFFER = schema.Obj(schema.fields(_F("name", _IDENT), _F("shape", schema.List(_EXPR, 0, 8)), _F("doc", _TEXT, "")))

_RULE = schema.Obj(schema.fields(
    _F("size", _EXPR), _F("min", _INT64, 0), _F("multiple", schema.Int(0, expr.INT64_MAX), 0), _F("message", _TEXT, "")))

_GRID = schema.Obj(schema.fields(
    _F("tiles", _EXPR), _F("ctas_per_tile", schema.Int(0, MAX_GRID_X), 0),
    _F("scheduler", schema.Str(choices=(SCHEDULER_STATIC, SCHEDULER_CLC, SCHEDULER_STREAMK)), SCHEDULER_STATIC)))

_MANIFEST = schema.Obj(schema.fields(
    _F("version", schema.Int(0, INT32_MAX)), _F("name", _IDENT), _F("entry", _IDENT), _F("kernel", _IDENT), _F("arch", _IDENT),
    _F("config_hash", _TEXT, ""),
    # The launch's 32-bit fields, in the ranges the driver takes them
    # (cuLaunchKernelEx's unsigned dims, cuFuncSetAttribute's int).
    _F("block_threads", schema.Int(1, MAX_BLOCK_THREADS)),
    _F("cluster_dims", schema.List(schema.Int(1, MAX_CLUSTER_CTAS), 3, 3)),
    _F("dynamic_smem_bytes", schema.Int(0, INT32_MAX)), _F("max_ctas_per_sm", schema.Int(0, INT32_MAX), 0),
    _F("sizes", schema.List(_SIZE_NAME, 0, 32)), _F("buffers", schema.List(_BUFFER, 0, 64)),
    _F("params", schema.List(_PARAM, 0, 1024)), _F("shape_rules", schema.List(_RULE, 0, 256), []),
    _F("grid", _GRID), _F("probe", _TEXT, "")))


def _map_of(m: Dict[str, Any]) -> TensorMap:
    return TensorMap(buffer=m["buffer"], dtype=m["dtype"], elem_bytes=m["elem_bytes"], dims=tuple(m["dims"]),
                     strides=tuple(m["strides"]), box=tuple(m["box"]), elem_strides=tuple(m["elem_strides"]),
                     interleave=m["interleave"], swizzle=m["swizzle"], l2_promotion=m["l2_promotion"],
                     oob_fill=m["oob_fill"])


def _param_of(p: Dict[str, Any]) -> Param:
    return Param(name=p["name"], kind=p["kind"], size=p["size"], align=p["align"], doc=p["doc"],
                 map=None if p["map"] is None else _map_of(p["map"]), value=p["value"] or None, buffer=p["buffer"],
                 workspace=None if p["workspace"] is None else
                 Workspace(bytes=p["workspace"]["bytes"], align=p["workspace"]["align"], zero_bytes=p["workspace"]["zero_bytes"]))


_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,255}")


def _quote_name(d: Mapping[str, Any]) -> str:
    """The manifest's name for a message, whatever the name field holds."""
    n = d.get("name")
    return n if isinstance(n, str) and _NAME_RE.fullmatch(n) else schema.show(n)


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
        """Parses a manifest's JSON object and validates it.

        Raises ManifestError naming the field on a missing field, a value of
        the wrong type or out of range, or a manifest that fails validate.
        """
        if not isinstance(d, Mapping):
            raise ManifestError("manifest: %s: want a JSON object" % schema.show(d))
        d = dict(d)
        what = "manifest %s" % _quote_name(d)
        version = d.get("version", 0)
        if version != VERSION or isinstance(version, bool) or not isinstance(version, int):
            raise ManifestError("%s: version %s: this runtime reads version %d (re-emit the kernel with this swigen)"
                                % (what, schema.show(version), VERSION))
        try:
            c = _MANIFEST.conv(d, "")
        except schema.SchemaError as e:
            raise ManifestError("%s: %s" % (what, e)) from None
        g, cd = c["grid"], c["cluster_dims"]
        m = cls(version=version, name=c["name"], entry=c["entry"], kernel=c["kernel"], arch=c["arch"],
                config_hash=c["config_hash"], block_threads=c["block_threads"], cluster_dims=(cd[0], cd[1], cd[2]),
                dynamic_smem_bytes=c["dynamic_smem_bytes"], max_ctas_per_sm=c["max_ctas_per_sm"],
                sizes=tuple(c["sizes"]),
                buffers=tuple(Buffer(name=b["name"], shape=tuple(b["shape"]), doc=b["doc"]) for b in c["buffers"]),
                params=tuple(_param_of(p) for p in c["params"]),
                shape_rules=tuple(Rule(size=r["size"], min=r["min"], multiple=r["multiple"], message=r["message"])
                                  for r in c["shape_rules"]),
                grid=Grid(tiles=g["tiles"], ctas_per_tile=g["ctas_per_tile"], scheduler=g["scheduler"]),
                probe=c["probe"], raw=dict(d))
        m.validate()
        return m

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Manifest":
        """Parses a manifest from its JSON text."""
        d = files.load_json(text, "manifest", ManifestError)
        if not isinstance(d, dict):
            raise ManifestError("manifest: %s: want a JSON object" % schema.show(d))
        return cls.from_dict(d)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Manifest":
        """Reads and parses the manifest file at path (<name>.json of an emit).

        The file must be a regular file of at most files.MAX_JSON_BYTES
        (ManifestError otherwise); open's OSError passes through.
        """
        data = files.read_regular(path, files.MAX_JSON_BYTES, "manifest", ManifestError)
        try:
            return cls.from_json(data)
        except ManifestError as e:
            raise ManifestError("%s: %s" % (os.fspath(path), e)) from None

    # ---- validation (manifest.Validate) -----------------------------------

    def validate(self) -> None:
        """Checks that the manifest is self-consistent, as Go's Validate.

        Every expression must parse and use only the sizes the manifest
        names, every parameter's kind must be known and have its payload
        and size, every map's buffer must be listed, and names are unique.
        Raises ManifestError listing every problem.
        """
        ones = {s: 1 for s in self.sizes}
        errs: List[str] = []

        def check(e: str) -> Optional[str]:
            try:
                expr.evaluate(e, ones)
            except expr.ExprError as x:
                return str(x)
            return None

        def ev(e: str, what: str) -> None:
            x = check(e)
            if x is not None:
                errs.append("%s: %s" % (what, x))

        for what, listed in (("size", self.sizes), ("buffer", [b.name for b in self.buffers]),
                             ("parameter", [p.name for p in self.params])):
            dup = sorted({n for n in listed if listed.count(n) > 1})
            if dup:
                errs.append("%s names %s: each must be unique" % (what, ", ".join(dup)))
        names = {b.name for b in self.buffers}
        for b in self.buffers:
            for e in b.shape:
                ev(e, "buffer %s" % b.name)
        for i, p in enumerate(self.params):
            errs.extend("parameter %d (%s): %s" % (i, p.name, x) for x in _param_problems(p, names, check, ones))
        for rule in self.shape_rules:
            ev(rule.size, "shape rule")
        ev(self.grid.tiles, "grid")
        cd = self.cluster_dims
        if self.block_threads < 1 or cd[0] < 1 or cd[1] < 1 or self.dynamic_smem_bytes < 0:
            errs.append("block %d threads, cluster %s, %d bytes of shared memory: want positive dims"
                        % (self.block_threads, list(cd), self.dynamic_smem_bytes))
        elif cd[0] * cd[1] * max(cd[2], 1) > MAX_CLUSTER_CTAS:
            errs.append("cluster %s: %d CTAs: want at most %d" % (list(cd), cd[0] * cd[1] * max(cd[2], 1), MAX_CLUSTER_CTAS))
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
            g = (t * cpt + c - 1) // c * c
            if g > MAX_GRID_X:
                raise ShapeError("%s: %d tiles of %d CTAs in clusters of %d: %d CTAs: the grid must hold 0 to %d CTAs "
                                 "(gridDim.x)" % (self.name, t, cpt, c, g, MAX_GRID_X))
            return g
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


def _param_problems(p: Param, buffers: AbstractSet[str], check: Callable[[str], Optional[str]],
                    ones: Mapping[str, int]) -> List[str]:
    """What is wrong with p alone (its kind's payload and size, its map's
    rank and expressions); check says what is wrong with an expression,
    ones are the sizes Validate evaluates a workspace's size at."""
    k = PARAM_KINDS.get(p.kind)
    if k is None:
        return ["kind %s: want %s" % (expr.go_quote(p.kind), kinds_doc())]
    errs = []
    if p.size != k.size:
        errs.append("size %d: a %s is %d bytes" % (p.size, p.kind, k.size))
    es: Tuple[str, ...] = ()
    if k.payload == PAYLOAD_VALUE:
        if p.value is None:
            errs.append("a%s %s without a value" % ("n" if p.kind[:1] in "aeiou" else "", p.kind))
        else:
            es = (p.value,)
    elif k.payload == PAYLOAD_BUFFER:
        if p.buffer not in buffers:
            errs.append("pointer to buffer %s, which is not listed" % expr.go_quote(p.buffer or ""))
    elif k.payload == PAYLOAD_WORKSPACE:
        if p.workspace is None:
            errs.append("a workspace without its size")
        else:
            try:
                _workspace_size(p.workspace, ones, 1)
            except (expr.ExprError, ManifestError) as e:
                errs.append(str(e))
    elif p.map is None:
        errs.append("a %s without a map" % p.kind)
    else:
        t = p.map
        if t.buffer not in buffers:
            errs.append("map of buffer %s, which is not listed" % expr.go_quote(t.buffer))
        r = t.rank
        if r < 1 or r > 5:
            errs.append("rank %d: want 1 to 5" % r)
        if len(t.strides) != r - 1 or len(t.box) != r or len(t.elem_strides) != r:
            errs.append("map of %s: rank %d with %d strides, %d box and %d element-stride entries"
                        % (t.buffer, r, len(t.strides), len(t.box), len(t.elem_strides)))
        es = t.dims + t.strides
    return errs + [x for x in map(check, es) if x is not None]


def _resolve_param(kernel: str, p: Param, sizes: Mapping[str, int], grid: int) -> Arg:
    k = PARAM_KINDS.get(p.kind)
    if k is None:
        raise ManifestError("%s: parameter %s: kind %s: want %s" % (kernel, p.name, expr.go_quote(p.kind), kinds_doc()))
    if k.payload == PAYLOAD_MAP:
        assert p.map is not None  # validate()
        return Arg(param=p.name, kind=p.kind, map=_resolve_map(kernel, p, p.map, sizes))
    if k.payload == PAYLOAD_BUFFER:
        return Arg(param=p.name, kind=p.kind, buffer=p.buffer or "")
    if k.payload == PAYLOAD_WORKSPACE:
        assert p.workspace is not None  # validate()
        try:
            w = _workspace_size(p.workspace, sizes, grid)
        except ManifestError as e:
            raise ManifestError("%s: parameter %s: %s" % (kernel, p.name, e)) from None
        return Arg(param=p.name, kind=p.kind, workspace=w)
    assert p.value is not None  # validate()
    v = expr.evaluate(p.value, sizes)
    if v < k.lo or v > k.hi:
        raise ShapeError("%s: parameter %s = %s = %d: out of the %s range" % (kernel, p.name, p.value, v, p.kind))
    return Arg(param=p.name, kind=p.kind, value=v)


def _eval_sizes(kernel: str, param: str, es: Sequence[str], sizes: Mapping[str, int]) -> Tuple[int, ...]:
    out = []
    for e in es:
        v = expr.evaluate(e, sizes)
        if v < 0:
            raise ShapeError("%s: parameter %s: %s = %d: negative" % (kernel, param, e, v))
        out.append(v)
    return tuple(out)


def _resolve_map(kernel: str, p: Param, t: TensorMap, sizes: Mapping[str, int]) -> Encode:
    if any(b < 1 for b in t.box) or any(e < 1 for e in t.elem_strides):
        raise ManifestError("%s: parameter %s: map of %s: box %s, element strides %s: want positive entries"
                            % (kernel, p.name, t.buffer, list(t.box), list(t.elem_strides)))
    return Encode(buffer=t.buffer, dtype=t.dtype, dims=_eval_sizes(kernel, p.name, t.dims, sizes),
                  strides=_eval_sizes(kernel, p.name, t.strides, sizes), box=t.box, elem_strides=t.elem_strides,
                  interleave=t.interleave, swizzle=t.swizzle, l2_promotion=t.l2_promotion, oob_fill=t.oob_fill)


# ---- a workspace's size at one launch (manifest.Workspace)


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

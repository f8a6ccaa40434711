"""Field-by-field checks of parsed JSON against a table of its fields.

A manifest or dispatch plan is described once, as nested Obj/List/Int/Str
specs (manifest._MANIFEST, dispatch._PLAN); conv walks a parsed JSON value
against it and returns the fields converted (unknown keys dropped), or
raises SchemaError naming the field by its path in the document
("params[2].map.box[0] = 0: want an integer in [1, 256]"). Nothing here
recurses deeper than the spec does, so a value nested deeper than its
field allows is a type error, never a RecursionError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List as _List, Optional, Sequence, Tuple

__all__ = ["SchemaError", "Spec", "Int", "Str", "List", "Obj", "Field", "MISSING", "fields", "show"]


class SchemaError(ValueError):
    """A JSON value that breaks its field's spec; field is its path."""

    def __init__(self, field: str, msg: str) -> None:
        super().__init__(msg)
        self.field = field


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A Field's default meaning "required"."""

_SHOW = 60


def show(v: Any) -> str:
    """v for a message: short, and never the whole of a large value."""
    if isinstance(v, dict):
        return "an object of %d keys" % len(v)
    if isinstance(v, list):
        return "a list of %d entries" % len(v)
    if isinstance(v, int) and v.bit_length() > 128:
        return "an integer of %d bits" % v.bit_length()  # (repr of a huge int is slow, or refused)
    r = repr(v)
    return r if len(r) <= _SHOW else r[:_SHOW] + "..."


def _join(where: str, key: str) -> str:
    return key if not where else "%s.%s" % (where, key)


class Spec:
    """One field's type and range."""

    def desc(self) -> str:
        raise NotImplementedError

    def conv(self, v: Any, where: str) -> Any:
        raise NotImplementedError

    def bad(self, v: Any, where: str) -> SchemaError:
        return SchemaError(where, "%s = %s: want %s" % (where or "value", show(v), self.desc()))


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True)
class Int(Spec):
    """An integer (not a bool) in [lo, hi]; a power of two where pow2."""

    lo: int
    hi: int
    pow2: bool = False

    def desc(self) -> str:
        return "%s in [%d, %d]" % ("a power of two" if self.pow2 else "an integer", self.lo, self.hi)

    def conv(self, v: Any, where: str) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not self.lo <= v <= self.hi or (self.pow2 and not _pow2(v)):
            raise self.bad(v, where)
        return v


@dataclass(frozen=True)
class Num(Spec):
    """A finite JSON number (an integer or a float, not a bool) in [lo, hi]."""

    lo: float
    hi: float

    def desc(self) -> str:
        return "a finite number in [%g, %g]" % (self.lo, self.hi)

    def conv(self, v: Any, where: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not self.lo <= v <= self.hi:
            raise self.bad(v, where)
        return float(v)


@dataclass(frozen=True)
class Str(Spec):
    """A string of at most max_len characters, non-empty where nonempty,
    matching pattern or one of choices where given; what describes it."""

    what: str = "a string"
    nonempty: bool = False
    max_len: int = 1 << 20
    pattern: Optional[str] = None
    choices: Tuple[str, ...] = ()

    def desc(self) -> str:
        if self.choices:
            return "one of %s" % ", ".join(repr(c) for c in self.choices)
        return "%s of at most %d characters" % (self.what, self.max_len)

    def conv(self, v: Any, where: str) -> str:
        if not isinstance(v, str) or len(v) > self.max_len or (self.nonempty and not v):
            raise self.bad(v, where)
        if self.choices and v not in self.choices:
            raise self.bad(v, where)
        if self.pattern is not None and not re.fullmatch(self.pattern, v):
            raise self.bad(v, where)
        return v


@dataclass(frozen=True)
class List(Spec):
    """A JSON array of min_len to max_len entries, each elem."""

    elem: Spec
    min_len: int = 0
    max_len: int = 1024

    def desc(self) -> str:
        n = ("%d" % self.min_len if self.min_len == self.max_len else "%d to %d" % (self.min_len, self.max_len))
        return "a list of %s entries, each %s" % (n, self.elem.desc())

    def conv(self, v: Any, where: str) -> _List[Any]:
        if not isinstance(v, list) or not self.min_len <= len(v) <= self.max_len:
            raise self.bad(v, where)
        return [self.elem.conv(e, "%s[%d]" % (where, i)) for i, e in enumerate(v)]


@dataclass(frozen=True)
class Field:
    """One key of an Obj: its spec and, unless required, its default (a
    JSON null reads as absent, as Go's decoder leaves a zero value)."""

    key: str
    spec: Spec
    default: Any = MISSING


@dataclass(frozen=True)
class Obj(Spec):
    """A JSON object with the fields listed; other keys are ignored."""

    fields: Tuple[Field, ...]

    def desc(self) -> str:
        return "an object with %s" % ", ".join(f.key for f in self.fields if f.default is MISSING)

    def conv(self, v: Any, where: str) -> Dict[str, Any]:
        if not isinstance(v, dict):
            raise self.bad(v, where)
        out: Dict[str, Any] = {}
        for f in self.fields:
            x = v.get(f.key)
            if x is None:
                if f.default is MISSING:
                    raise SchemaError(_join(where, f.key), "%s: missing %r" % (where, f.key) if where else "missing %r" % f.key)
                out[f.key] = list(f.default) if isinstance(f.default, list) else f.default
            else:
                out[f.key] = f.spec.conv(x, _join(where, f.key))
        return out


def fields(*fs: Field) -> Tuple[Field, ...]:
    """The fields of an Obj, checked to be unique (a table's typo fails at import)."""
    keys: Sequence[str] = [f.key for f in fs]
    if len(set(keys)) != len(keys):
        raise ValueError("schema: duplicate keys in %s" % list(keys))
    return tuple(fs)

"""The manifest's size expressions: a parser and checked int64 evaluator.

The grammar (the same as manifest.Expr in Go; docs in python/README.md)::

    expr   = term { ("+" | "-") term }
    term   = factor { "*" factor }
    factor = integer | size | "(" expr ")" | "cdiv(" expr "," expr ")"
    size   = letter { letter | digit | "_" }

Spaces (only ' ') are ignored. ``cdiv(a, b)`` is the ceiling of a/b and needs
b > 0. Every intermediate value must fit in a signed 64-bit integer.
Parentheses and cdiv calls nest at most MAX_DEPTH deep. Errors
carry the same messages as Go's, so that both are tested by one table
(manifest/testdata/expr_cases.json).
"""

from __future__ import annotations

from typing import Mapping, Optional

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

MAX_DEPTH = 64
"""The deepest nesting of parentheses and cdiv calls parsed: the parser
recurses once per level, and an emitted expression nests 2 deep. Go's
manifest.MaxExprDepth, the same rule (expr_cases.json holds both sides to it)."""

__all__ = ["ExprError", "evaluate", "check", "go_quote", "INT64_MIN", "INT64_MAX", "MAX_DEPTH"]


class ExprError(ValueError):
    """An expression that does not parse or cannot be evaluated."""


class _Fail(Exception):
    """Internal: the reason, before the expression is named."""


_OVERFLOW = "integer overflow (beyond int64)"

_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
            "\\": "\\\\", '"': '\\"'}


def go_quote(s: str) -> str:
    """Quotes s as Go's %q does (strconv.Quote), for messages equal to Go's."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif ch.isprintable():
            out.append(ch)
        elif o < 0x10000:
            out.append("\\u%04x" % o)
        else:
            out.append("\\U%08x" % o)
    out.append('"')
    return "".join(out)


def _is_letter(c: str) -> bool:
    return "a" <= c <= "z" or "A" <= c <= "Z"


def _is_word(c: str) -> bool:
    return _is_letter(c) or "0" <= c <= "9" or c == "_"


def _checked(v: int) -> int:
    if v < INT64_MIN or v > INT64_MAX:
        raise _Fail(_OVERFLOW)
    return v


class _Parser:
    """Recursive descent over src; with parse_only every size and cdiv is 1."""

    def __init__(self, src: str, sizes: Mapping[str, int], parse_only: bool) -> None:
        self.src = src
        self.pos = 0
        self.sizes = sizes
        self.parse_only = parse_only
        self.depth = 0

    def enter(self) -> None:
        """One level deeper: a "(" or "cdiv(" just read."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail("nested deeper than %d at offset %d" % (MAX_DEPTH, self.pos))

    def skip(self) -> int:
        while self.pos < len(self.src) and self.src[self.pos] == " ":
            self.pos += 1
        return self.pos

    def eat(self, c: str) -> bool:
        if self.skip() < len(self.src) and self.src[self.pos] == c:
            self.pos += 1
            return True
        return False

    def whole(self) -> int:
        v = self.expr()
        if self.skip() < len(self.src):
            raise _Fail("unexpected %s at offset %d" % (go_quote(self.src[self.pos:]), self.pos))
        return v

    def expr(self) -> int:
        v = self.term()
        while True:
            if self.eat("+"):
                v = _checked(v + self.term())
            elif self.eat("-"):
                w = self.term()
                if w == INT64_MIN:
                    raise _Fail(_OVERFLOW)
                v = _checked(v - w)
            else:
                return v

    def term(self) -> int:
        v = self.factor()
        while self.eat("*"):
            v = _checked(v * self.factor())
        return v

    def factor(self) -> int:
        start = self.skip()
        if self.eat("("):
            self.enter()
            v = self.expr()
            if not self.eat(")"):
                raise _Fail("missing ) at offset %d" % self.pos)
            self.depth -= 1
            return v
        while self.pos < len(self.src) and _is_word(self.src[self.pos]):
            self.pos += 1
        word = self.src[start:self.pos]
        if word == "":
            if self.pos == len(self.src):
                raise _Fail("unexpected end")
            raise _Fail("unexpected %s at offset %d" % (go_quote(self.src[self.pos:]), self.pos))
        if "0" <= word[0] <= "9":
            if not all("0" <= c <= "9" for c in word) or int(word) > INT64_MAX:
                raise _Fail("bad integer %s" % go_quote(word))
            return int(word)
        if word == "cdiv" and self.eat("("):
            return self.cdiv()
        return self.size(word)

    def cdiv(self) -> int:
        self.enter()
        a = self.expr()
        if not self.eat(","):
            raise _Fail("cdiv: missing , at offset %d" % self.pos)
        b = self.expr()
        if not self.eat(")"):
            raise _Fail("cdiv: missing ) at offset %d" % self.pos)
        self.depth -= 1
        if self.parse_only:
            return 1
        if b <= 0:
            raise _Fail("cdiv(%d, %d): divisor must be positive" % (a, b))
        return -(-a // b)

    def size(self, name: str) -> int:
        if not _is_letter(name[0]):
            raise _Fail("bad size name %s" % go_quote(name))
        if self.parse_only:
            return 1
        if name not in self.sizes:
            have = ", ".join(sorted(self.sizes)) or "none"
            raise _Fail("size %s not given (have %s)" % (name, have))
        v = self.sizes[name]
        if isinstance(v, bool) or not isinstance(v, int):
            raise _Fail("size %s = %r: want an integer" % (name, v))
        return _checked(v)


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:60] + "..."


def evaluate(expr: str, sizes: Optional[Mapping[str, int]]) -> int:
    """Evaluates expr with the given sizes (None: no sizes).

    Raises ExprError naming the expression on a syntax error, nesting
    deeper than MAX_DEPTH, a size missing from sizes, a cdiv by a
    non-positive divisor or a value beyond int64.
    """
    if not isinstance(expr, str):
        raise ExprError("expression %s: want a string" % _short(expr))
    try:
        return _Parser(expr, sizes or {}, parse_only=False).whole()
    except _Fail as e:
        raise ExprError("expression %s: %s" % (go_quote(expr), e)) from None


def check(expr: str) -> None:
    """Parses expr without sizes (each size and cdiv reads as 1).

    Raises ExprError on a syntax error, or on an overflow of constants.
    """
    if not isinstance(expr, str):
        raise ExprError("expression %s: want a string" % _short(expr))
    try:
        _Parser(expr, {}, parse_only=True).whole()
    except _Fail as e:
        raise ExprError("expression %s: %s" % (go_quote(expr), e)) from None

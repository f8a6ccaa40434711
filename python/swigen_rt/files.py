"""Reading the files a package ships, as untrusted data.

Every file swigen_rt reads goes through read_regular: a regular file only
(a FIFO would block a read forever, a device such as /dev/zero never ends),
read through a size cap. JSON goes through load_json, which bounds the
nesting depth before json's recursive parser sees the text. confine keeps a
file name a manifest or package gives inside the package's directory.
Every refusal is a ValueError (the class the caller passes) naming the file
and the rule; the OSErrors of open and stat (a missing file, no
permission) pass through unchanged.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any, List, Optional, Type, Union

__all__ = ["FileError", "MAX_JSON_BYTES", "MAX_CUBIN_BYTES", "MAX_SOURCE_BYTES", "MAX_JSON_DEPTH",
           "read_regular", "load_json", "confine"]

PathLike = Union[str, "os.PathLike[str]"]

MAX_JSON_BYTES = 16 << 20
"""The largest manifest or dispatch plan read (an emitted manifest is ~5 KB)."""

MAX_CUBIN_BYTES = 256 << 20
"""The largest cubin read (an emitted cubin is ~300 KB)."""

MAX_SOURCE_BYTES = 16 << 20
"""The largest generated __init__.py read."""

MAX_JSON_DEPTH = 64
"""The deepest nesting of JSON arrays and objects read (a manifest nests 4 deep)."""

_MAX_INT_DIGITS = 32
"""The most digits a JSON integer may have (int64 needs 19): a longer one
costs quadratic time to convert and fits no field."""


class FileError(ValueError):
    """A file that is not a regular file, is too large, or lies outside its package."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _check(st: os.stat_result, path: str, limit: int, what: str, err: Type[ValueError]) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise err("%s %s: %s: want a regular file" % (what, path, _kind(st.st_mode)))
    if st.st_size > limit:
        raise err("%s %s: %d bytes: want at most %d" % (what, path, st.st_size, limit))


def read_regular(path: PathLike, limit: int, what: str = "file", err: Type[ValueError] = FileError) -> bytes:
    """The bytes of the regular file at path, at most limit of them.

    The file is checked before it is opened (stat: a FIFO is never opened,
    so never waited on) and again through the open descriptor (fstat:
    opened non-blocking, so a FIFO swapped in between fails instead of
    hanging); a file that grows past limit while it is read is refused too.
    Raises err (a ValueError) naming what, the path and the rule.
    """
    p = os.fspath(path)
    _check(os.stat(p), p, limit, what, err)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        _check(os.fstat(fd), p, limit, what, err)
        chunks: List[bytes] = []
        n = 0
        while n <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - n))
            if not b:
                break
            chunks.append(b)
            n += len(b)
    finally:
        os.close(fd)
    if n > limit:
        raise err("%s %s: more than %d bytes: want at most %d" % (what, p, limit, limit))
    return b"".join(chunks)


# A JSON string (escapes included) or one bracket; what lies between is
# skipped, so brackets inside strings are never counted.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def _too_deep(text: str, max_depth: int) -> Optional[int]:
    """The offset where text nests deeper than max_depth, or None."""
    depth = 0
    for t in _TOKENS.finditer(text):
        c = t.group()
        if c in "[{":
            depth += 1
            if depth > max_depth:
                return t.start()
        elif c in "]}":
            depth -= 1
    return None


class _Refused(Exception):
    """Internal: a JSON value load_json refuses, raised from json's hooks."""


def _no_constant(s: str) -> Any:
    raise _Refused("%s is not JSON" % s)


def _bounded_int(s: str) -> int:
    digits = len(s.lstrip("-"))
    if digits > _MAX_INT_DIGITS:
        raise _Refused("an integer of %d digits: want at most %d" % (digits, _MAX_INT_DIGITS))
    return int(s)


def load_json(data: Union[str, bytes], what: str, err: Type[ValueError], max_depth: int = MAX_JSON_DEPTH) -> Any:
    """data parsed as JSON, nested at most max_depth deep.

    NaN and Infinity (not JSON) and integers of more than 32 digits are
    refused; so is text that is not JSON. Raises err naming what.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode(json.detect_encoding(data), "surrogatepass")
        except (UnicodeDecodeError, LookupError) as e:
            raise err("%s: not JSON text: %s" % (what, e)) from None
    elif isinstance(data, str):
        text = data
    else:
        raise err("%s: JSON text is a %s: want str or bytes" % (what, type(data).__name__))
    at = _too_deep(text, max_depth)
    if at is not None:
        raise err("%s: JSON nested deeper than %d at offset %d" % (what, max_depth, at))
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int)
    except _Refused as e:
        raise err("%s: not JSON: %s" % (what, e)) from None
    except RecursionError:  # not reached: the depth is bounded above
        raise err("%s: JSON nested too deep" % what) from None
    except ValueError as e:
        raise err("%s: not JSON: %s" % (what, e)) from None


def confine(directory: PathLike, name: str, what: str, err: Type[ValueError] = FileError) -> str:
    """The path of name inside directory, refused unless it stays there.

    name must be a relative path without "..", absolute parts or NUL; the
    path it names, symlinks resolved, must lie inside directory (its
    symlinks resolved too). Raises err naming what and name.
    """
    if not isinstance(name, str) or not name:
        raise err("%s %r: want a file name in the package directory" % (what, name))
    parts = re.split(r"[/\\]", name)
    if "\x00" in name or os.path.isabs(name) or name.startswith(("/", "\\")) or ".." in parts or os.path.splitdrive(name)[0]:
        raise err("%s %r: want a file name in the package directory (no absolute path, no ..)" % (what, name))
    d = os.fspath(directory)
    path = os.path.join(d, name)
    root = os.path.realpath(d)
    real = os.path.realpath(path)
    if os.path.commonpath([root, real]) != root or real == root:
        raise err("%s %r: resolves to %s, outside the package directory %s" % (what, name, real, root))
    return path

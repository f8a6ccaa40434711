"""Kernel parameters packed into one buffer, as Go's manifest.Pack lays them out.

Each parameter sits at the next multiple of its manifest alignment; the
buffer is padded to the largest alignment. i32s are little-endian (as the
GPU reads them); a tensor map's slot holds its 128-byte descriptor. A launch
passes the driver a pointer to each slot (kernelParams), so the driver takes
sizes and offsets from the cubin and the buffer only has to hold each value
intact; keeping the manifest's layout makes it comparable with Go's byte for
byte.
"""

from __future__ import annotations

import struct
from typing import Mapping, Optional, Sequence, Tuple

from .manifest import MAX_PARAM_ALIGN, PARAM_KINDS, PAYLOAD_BUFFER, PAYLOAD_MAP, PAYLOAD_VALUE, PAYLOAD_WORKSPACE, Arg, ManifestError, Param, kinds_doc

__all__ = ["param_offsets", "pack", "POINTER_KINDS"]

POINTER_KINDS = tuple(k for k, v in PARAM_KINDS.items() if v.payload in (PAYLOAD_BUFFER, PAYLOAD_WORKSPACE))
"""The kinds whose 8-byte slot holds an address the loader packs per launch
(a caller's buffer, the loader's workspace): zero as pack leaves it."""


def _round_up(n: int, align: int) -> int:
    return (n + align - 1) // align * align


def param_offsets(params: Sequence[Param]) -> Tuple[Tuple[int, ...], int]:
    """Each parameter's offset and the buffer's size (manifest.ParamOffsets)."""
    offsets = []
    size, max_align = 0, 1
    for p in params:
        k = PARAM_KINDS.get(p.kind)
        if k is None:
            raise ManifestError('manifest: parameter %s: kind "%s": want %s' % (p.name, p.kind, kinds_doc()))
        if p.size != k.size:
            raise ManifestError("manifest: parameter %s: size %d: a %s is %d bytes" % (p.name, p.size, p.kind, k.size))
        if p.align < 1 or p.align > MAX_PARAM_ALIGN or p.align & (p.align - 1):
            raise ManifestError("manifest: parameter %s: alignment %d: want a power of two up to %d" % (p.name, p.align, MAX_PARAM_ALIGN))
        size = _round_up(size, p.align)
        offsets.append(size)
        size += p.size
        max_align = max(max_align, p.align)
    return tuple(offsets), _round_up(size, max_align)


def pack(params: Sequence[Param], args: Sequence[Arg],
         descriptors: Optional[Mapping[int, bytes]] = None) -> Tuple[bytearray, Tuple[int, ...]]:
    """Packs resolved args (in the order of params) into one buffer.

    descriptors maps a tensor-map argument's index to its 128 descriptor
    bytes; a slot without one stays zero, as does a pointer's (POINTER_KINDS:
    the loader writes the address). Returns the buffer and each parameter's
    offset.
    """
    if len(args) != len(params):
        raise ManifestError("manifest: pack: %d arguments for %d parameters" % (len(args), len(params)))
    offsets, size = param_offsets(params)
    buf = bytearray(size)
    descriptors = descriptors or {}
    for i, (p, a) in enumerate(zip(params, args)):
        if a.param != p.name or a.kind != p.kind:
            raise ManifestError("manifest: pack: argument %d is %s (%s), parameter %d is %s (%s)"
                                % (i, a.param, a.kind, i, p.name, p.kind))
        off = offsets[i]
        k = PARAM_KINDS[p.kind]
        if k.payload == PAYLOAD_VALUE:
            if not k.lo <= a.value <= k.hi:
                raise ManifestError("manifest: pack: parameter %s = %d: out of the %s range" % (p.name, a.value, p.kind))
            struct.pack_into(k.fmt, buf, off, a.value)
        elif k.payload == PAYLOAD_MAP and i in descriptors:
            d = descriptors[i]
            if len(d) != p.size:
                raise ManifestError("manifest: pack: parameter %s: a descriptor of %d bytes: want %d" % (p.name, len(d), p.size))
            buf[off:off + p.size] = d
    return buf, offsets

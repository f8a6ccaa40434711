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

from .manifest import KIND_I32, KIND_I64, KIND_PTR, KIND_TENSORMAP, KIND_WORKSPACE, KINDS, Arg, ManifestError, Param

__all__ = ["param_offsets", "pack", "POINTER_KINDS"]

_KIND_SIZES = {KIND_TENSORMAP: 128, KIND_I32: 4, KIND_I64: 8, KIND_PTR: 8, KIND_WORKSPACE: 8}

POINTER_KINDS = (KIND_PTR, KIND_WORKSPACE)
"""The kinds whose 8-byte slot holds an address the loader packs per launch
(a caller's buffer, the loader's workspace): zero as pack leaves it."""


def _round_up(n: int, align: int) -> int:
    return (n + align - 1) // align * align


def param_offsets(params: Sequence[Param]) -> Tuple[Tuple[int, ...], int]:
    """Each parameter's offset and the buffer's size (manifest.ParamOffsets)."""
    offsets = []
    size, max_align = 0, 1
    for p in params:
        want = _KIND_SIZES.get(p.kind)
        if want is None:
            raise ManifestError('manifest: parameter %s: kind "%s": want %s' % (p.name, p.kind, KINDS))
        if p.size != want:
            raise ManifestError("manifest: parameter %s: size %d: a %s is %d bytes" % (p.name, p.size, p.kind, want))
        if p.align < 1 or p.align & (p.align - 1):
            raise ManifestError("manifest: parameter %s: alignment %d: want a power of two" % (p.name, p.align))
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
        if p.kind == KIND_I32:
            struct.pack_into("<i", buf, off, a.value)
        elif p.kind == KIND_I64:
            struct.pack_into("<q", buf, off, a.value)
        elif i in descriptors:
            d = descriptors[i]
            if len(d) != p.size:
                raise ManifestError("manifest: pack: parameter %s: a descriptor of %d bytes: want %d" % (p.name, len(d), p.size))
            buf[off:off + p.size] = d
    return buf, offsets

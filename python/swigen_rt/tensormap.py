"""cuTensorMapEncodeTiled's arguments, computed and checked without a GPU.

encode_args turns a resolved map (manifest.Encode) and a global address into
the exact integers Go's runtime/launch passes the driver; validate checks
them against the driver's documented rules, with Go's messages
(runtime/cu TensorMapParams.Validate), so a bad tensor fails on the host with
a message naming it instead of CUDA_ERROR_INVALID_VALUE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

from . import kinds_gen
from .manifest import Encode, ManifestError

__all__ = ["TENSOR_MAP_SIZE", "TENSOR_MAP_ALIGN", "EncodeArgs", "TensorMapError", "encode_args", "validate",
           "DTYPES", "SWIZZLES", "INTERLEAVES", "L2_PROMOTIONS", "OOB_FILLS"]

TENSOR_MAP_SIZE = 128
"""Bytes of a CUtensorMap."""

TENSOR_MAP_ALIGN = 128
"""The alignment the runtime encodes descriptors at (the driver needs 64; CUDA 13 declares 128)."""

# The manifest's enumerators as the driver's values (cuda.h), the ones
# swigen kernels use; the same tables as runtime/launch/tmap.go. DTYPES
# (below _DTYPE_INFO) holds the operand types' (tiling.DTypeSpec.TMA).
SWIZZLES: Dict[str, int] = {"none": 0, "64B": 2, "128B": 3}
INTERLEAVES: Dict[str, int] = {"none": 0}
L2_PROMOTIONS: Dict[str, int] = {"none": 0, "L2_256B": 3}
OOB_FILLS: Dict[str, int] = {"none": 0}

# CUtensorMapDataType: (name, bits, is_float) by value, as runtime/cu.
_DTYPE_INFO = [
    ("uint8", 8, False), ("uint16", 16, False), ("uint32", 32, False), ("int32", 32, False),
    ("uint64", 64, False), ("int64", 64, False), ("float16", 16, True), ("float32", 32, True),
    ("float64", 64, True), ("bfloat16", 16, True), ("float32_ftz", 32, True), ("tfloat32", 32, True),
    ("tfloat32_ftz", 32, True), ("16u4_align8b", 4, False), ("16u4_align16b", 4, False), ("16u6_align16b", 6, False),
]
DTYPES: Dict[str, int] = {info[0]: v for v, info in enumerate(_DTYPE_INFO) if info[0] in {d[3] for d in kinds_gen.DTYPES}}
_SWIZZLE_NAMES = ["SwizzleNone", "Swizzle32B", "Swizzle64B", "Swizzle128B",
                  "Swizzle128BAtom32B", "Swizzle128BAtom32BFlip8B", "Swizzle128BAtom64B"]
_PACKED = (13, 14, 15)


class TensorMapError(ValueError):
    """Encode arguments that break cuTensorMapEncodeTiled's rules."""


@dataclass(frozen=True)
class EncodeArgs:
    """One cuTensorMapEncodeTiled call: enumerators as integers, arrays
    innermost first, strides in bytes (rank-1 of them). Hashable: it keys
    the descriptor cache, since the descriptor depends on nothing else."""

    dtype: int
    rank: int
    global_address: int
    dims: Tuple[int, ...]
    strides: Tuple[int, ...]
    box: Tuple[int, ...]
    elem_strides: Tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int


def _lookup(table: Dict[str, int], what: str, key: str) -> int:
    if key not in table:
        raise ManifestError('%s "%s" is not supported' % (what, key))
    return table[key]


def encode_args(e: Encode, global_address: int) -> EncodeArgs:
    """The cuTensorMapEncodeTiled call of e on the buffer at global_address."""
    rank = len(e.dims)
    if rank < 1 or rank > 5 or len(e.strides) != rank - 1 or len(e.box) != rank or len(e.elem_strides) != rank:
        raise ManifestError("map of %s: rank %d with %d strides, %d box and %d element-stride entries"
                            % (e.buffer, rank, len(e.strides), len(e.box), len(e.elem_strides)))
    return EncodeArgs(
        dtype=_lookup(DTYPES, "dtype", e.dtype), rank=rank, global_address=global_address,
        dims=tuple(e.dims), strides=tuple(e.strides), box=tuple(e.box), elem_strides=tuple(e.elem_strides),
        interleave=_lookup(INTERLEAVES, "interleave", e.interleave),
        swizzle=_lookup(SWIZZLES, "swizzle", e.swizzle),
        l2_promotion=_lookup(L2_PROMOTIONS, "L2 promotion", e.l2_promotion),
        oob_fill=_lookup(OOB_FILLS, "OOB fill", e.oob_fill))


def _dtype_size(d: int) -> int:
    bits = _DTYPE_INFO[d][1]
    return 0 if bits < 8 else bits // 8


def _swizzle_span(s: int) -> int:
    return {1: 32, 2: 64, 3: 128, 4: 128, 5: 128, 6: 128}.get(s, 0)


def address_alignment(a: EncodeArgs) -> int:
    """The alignment in bytes a's global address and strides need: 32 for
    32-byte interleave and the 16U4/16U6 types, else 16."""
    return 32 if a.interleave == 2 or a.dtype in (14, 15) else 16


def validate(a: EncodeArgs, name: str) -> None:
    """Checks a against cuTensorMapEncodeTiled's documented rules.

    Raises TensorMapError 'cu: invalid tensor map "<name>": <rule>', the
    message runtime/cu gives.
    """
    def bad(msg: str) -> TensorMapError:
        return TensorMapError('cu: invalid tensor map "%s": %s' % (name, msg))

    if not 0 <= a.dtype < len(_DTYPE_INFO):
        raise bad("data type %d is not a CUtensorMapDataType (0..%d)" % (a.dtype, len(_DTYPE_INFO) - 1))
    if a.rank < 1 or a.rank > 5:
        raise bad("rank %d out of range [1, 5]" % a.rank)
    if not 0 <= a.interleave <= 2:
        raise bad("interleave %d is not a CUtensorMapInterleave (0..2)" % a.interleave)
    if not 0 <= a.swizzle < len(_SWIZZLE_NAMES):
        raise bad("swizzle %d is not a CUtensorMapSwizzle (0..%d)" % (a.swizzle, len(_SWIZZLE_NAMES) - 1))
    if not 0 <= a.l2_promotion <= 3:
        raise bad("L2 promotion %d is not a CUtensorMapL2promotion (0..3)" % a.l2_promotion)
    if not 0 <= a.oob_fill <= 1:
        raise bad("OOB fill %d is not a CUtensorMapFloatOOBfill (0..1)" % a.oob_fill)
    if a.interleave != 0 and a.rank < 3:
        raise bad("rank %d with interleave %d: interleaved layouts need rank >= 3" % (a.rank, a.interleave))
    if len(a.dims) != a.rank or len(a.strides) != a.rank - 1 or len(a.box) != a.rank or len(a.elem_strides) != a.rank:
        raise bad("rank %d with %d dims, %d strides, %d box and %d element-stride entries"
                  % (a.rank, len(a.dims), len(a.strides), len(a.box), len(a.elem_strides)))
    addr_align = address_alignment(a)
    if a.global_address == 0:
        raise bad("global address is 0")
    if a.global_address % addr_align != 0:
        raise bad("global address %#x is not %d-byte aligned" % (a.global_address, addr_align))
    for i, d in enumerate(a.dims):
        if d < 1 or d > 1 << 32:
            raise bad("dims[%d] = %d out of range [1, 2^32]" % (i, d))
    for i, s in enumerate(a.strides):
        if s % addr_align != 0:
            raise bad("strides[%d] = %d bytes is not a multiple of %d" % (i, s, addr_align))
        if s >= 1 << 40:
            raise bad("strides[%d] = %d bytes is not < 2^40" % (i, s))
        if s == 0:
            raise bad("strides[%d] is 0" % i)
    esize = _dtype_size(a.dtype)
    if a.rank > 1 and esize > 0 and a.strides[0] < a.dims[0] * esize:
        raise bad("strides[0] = %d bytes is less than one row, dims[0] * %d B = %d bytes (strides are in bytes)"
                  % (a.strides[0], esize, a.dims[0] * esize))
    for i in range(a.rank):
        if a.box[i] < 1 or a.box[i] > 256:
            raise bad("box[%d] = %d out of range [1, 256]" % (i, a.box[i]))
        if a.elem_strides[i] > 8:
            raise bad("elemStrides[%d] = %d out of range [1, 8]" % (i, a.elem_strides[i]))
    dname = _DTYPE_INFO[a.dtype][0]
    if a.interleave == 2 and a.swizzle != 1:
        raise bad("interleave 32B requires Swizzle32B, got %s" % _SWIZZLE_NAMES[a.swizzle])
    if a.oob_fill == 1 and (not _DTYPE_INFO[a.dtype][2] or a.dtype in _PACKED):
        raise bad("NaN OOB fill needs a floating-point data type, got %s" % dname)
    if a.dtype in _PACKED:
        if a.dtype in (14, 15) and (a.dims[0] % 128 != 0 or a.box[0] != 128):
            raise bad("%s needs dims[0] a multiple of 128 and box[0] = 128, got %d and %d" % (dname, a.dims[0], a.box[0]))
        if a.dtype == 13 and a.dims[0] % 2 != 0:
            raise bad("%s needs dims[0] even, got %d" % (dname, a.dims[0]))
        return
    if a.interleave == 0:
        inner = a.box[0] * esize
        if inner % 16 != 0:
            raise bad("box inner dimension box[0] * %d B = %d bytes is not a multiple of 16" % (esize, inner))
        span = _swizzle_span(a.swizzle)
        if span > 0 and inner > span:
            raise bad("box inner dimension box[0] * %d B = %d bytes exceeds the %d-byte span of %s"
                      % (esize, inner, span, _SWIZZLE_NAMES[a.swizzle]))

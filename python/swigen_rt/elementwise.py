"""The elementwise module (runtime/elementwise): the unfused paths' second half.

plan() is Go's elementwise.Plan: block 256, grid min(cdiv(items, 256),
sms*64), the vec8 entry when I % 8 == 0 and every non-null pointer is
16-byte aligned (items are then 8-element groups). Module loads the cubin
once per device (the primary context, like Kernel) and launches
swigen_dswiglu_<dtype>_<vec8|scalar>(dout, de, grad_de, out, M, I) and
swigen_swiglu_<dtype>_<...>(de, out, M, I).
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass
from typing import Dict, Sequence, Tuple

from . import driver as _drv
from . import kinds_gen

__all__ = ["BLOCK", "BLOCKS_PER_SM", "DSWIGLU", "SWIGLU", "EwLaunch", "entry", "entries", "plan", "pack_params", "Module"]

BLOCK = 256
BLOCKS_PER_SM = 64
DSWIGLU = "dswiglu"
SWIGLU = "swiglu"
DTYPES = tuple(d[0] for d in kinds_gen.DTYPES if d[4])
"""The types the module has entry points for (tiling.HelperDTypes)."""
_MAX_INT32 = (1 << 31) - 1
_TORCH_DTYPE = {**{d[1]: d[0] for d in kinds_gen.DTYPES if d[4]}, **{d: d for d in DTYPES}}


@dataclass(frozen=True)
class EwLaunch:
    """One launch of an op: its entry point and grid (BLOCK threads a block)."""

    entry: str
    grid: int


def entry(op: str, dtype: str, vec: bool) -> str:
    """The entry point of op for dtype (one of DTYPES; torch's names too)."""
    return "swigen_%s_%s_%s" % (op, _TORCH_DTYPE.get(dtype, dtype), "vec8" if vec else "scalar")


def entries() -> Tuple[str, ...]:
    """Every entry point of the module (elementwise.Entries)."""
    return tuple(entry(op, dt, v) for op in (DSWIGLU, SWIGLU) for dt in DTYPES for v in (True, False))


def plan(op: str, dtype: str, m: int, i: int, ptrs: Sequence[int], sms: int) -> EwLaunch:
    """op's launch for dtype at M x I on ptrs (0: a null, ignored), Go's Plan."""
    if op not in (DSWIGLU, SWIGLU):
        raise ValueError("elementwise: op %r: want %s or %s" % (op, DSWIGLU, SWIGLU))
    dt = _TORCH_DTYPE.get(dtype)
    if dt is None:
        raise ValueError("elementwise: %s: dtype %r: want one of %s" % (op, dtype, ", ".join(DTYPES)))
    if m <= 0 or i <= 0 or m > _MAX_INT32 or i > _MAX_INT32:
        raise ValueError("elementwise: %s M=%d I=%d: sizes must be in [1, 2^31)" % (op, m, i))
    vec = i % 8 == 0 and all(p % 16 == 0 for p in ptrs)
    items = m * i // 8 if vec else m * i
    blocks = (items + BLOCK - 1) // BLOCK
    return EwLaunch(entry=entry(op, dt, vec), grid=min(blocks, max(sms, 1) * BLOCKS_PER_SM))


def pack_params(op: str, ptrs: Sequence[int], m: int, i: int) -> Tuple[bytes, Tuple[int, ...]]:
    """The kernel parameters, packed: pointers (8 bytes), then M and I (int32)."""
    want = 4 if op == DSWIGLU else 2
    if len(ptrs) != want:
        raise ValueError("elementwise: %s takes %d pointers, got %d" % (op, want, len(ptrs)))
    data = struct.pack("<%dQii" % want, *ptrs, m, i)
    offs = tuple(8 * j for j in range(want)) + (8 * want, 8 * want + 4)
    return data, offs


@dataclass
class _Loaded:
    dev: int
    ctx: int
    module: int
    fns: Dict[str, int]
    sms: int


class Module:
    """The elementwise module's cubin, loaded on first use per device."""

    def __init__(self, cubin: bytes, arch: str) -> None:
        if not cubin:
            raise ValueError("elementwise module for %s: empty cubin" % arch)
        self.arch = arch
        self._cubin = bytes(cubin)
        self._lock = threading.Lock()
        self._devices: Dict[int, _Loaded] = {}

    def _on(self, ordinal: int) -> _Loaded:
        with self._lock:
            st = self._devices.get(ordinal)
            if st is None:
                d = _drv.driver()
                dev = d.device(ordinal)
                ctx = d.primary_context_retain(dev)
                try:
                    with d.current(ctx):
                        mod = d.module_load(self._cubin)
                        fns = {e: d.module_function(mod, e) for e in entries()}
                except BaseException:
                    d.primary_context_release(dev)
                    raise
                st = _Loaded(dev=dev, ctx=ctx, module=mod, fns=fns, sms=d.device_attribute(_drv.ATTR_MULTIPROCESSOR_COUNT, dev))
                self._devices[ordinal] = st
            return st

    def launch_raw(self, op: str, dtype: str, m: int, i: int, ptrs: Sequence[int], device: int, stream: int) -> EwLaunch:
        """Launches op on raw pointers (dswiglu: dout, de, grad_de, out or 0;
        swiglu: de, out) on the stream handle; asynchronous."""
        need = ptrs[:3] if op == DSWIGLU else ptrs
        if any(p == 0 for p in need):
            raise ValueError("elementwise: %s: null pointer among %s" % (op, list(ptrs)))
        st = self._on(device)
        ln = plan(op, dtype, m, i, ptrs, st.sms)
        data, offs = pack_params(op, ptrs, m, i)
        d = _drv.driver()
        with d.current(st.ctx):
            d.launch(st.fns[ln.entry], (ln.grid, 1, 1), (BLOCK, 1, 1), (0, 0, 0), 0, stream, data, offs)
        return ln

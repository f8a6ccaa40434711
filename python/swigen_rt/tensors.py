"""Checks of a launch's tensors against the manifest, without importing torch.

Tensors are read through the attributes torch.Tensor has (shape, stride(),
dtype, device, data_ptr(), element_size()), so these checks run, and are
tested, on any object that has them.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from . import expr, kinds_gen
from .manifest import KIND_TENSORMAP, Manifest, ShapeError

__all__ = ["TMA_ALIGN", "buffer_dtypes", "infer_sizes", "check_tensors"]

TMA_ALIGN = 16
"""Bytes every buffer's address must be aligned to (TMA's global address rule)."""

# The torch name and element size of each operand type's tensor-map type
# (tiling.DTypeSpec: TMA, Torch, Bytes).
_TORCH_OF_TMA = {d[3]: d[1] for d in kinds_gen.DTYPES}
_ELEM_BYTES = {d[3]: d[2] for d in kinds_gen.DTYPES}


def buffer_dtypes(m: Manifest) -> Dict[str, str]:
    """Each buffer's element type, from the tensor maps over it."""
    out: Dict[str, str] = {}
    for p in m.params:
        if p.kind == KIND_TENSORMAP and p.map is not None:
            out.setdefault(p.map.buffer, p.map.dtype)
    return out


def _shape(t: Any) -> Tuple[int, ...]:
    return tuple(int(d) for d in t.shape)


def infer_sizes(m: Manifest, tensors: Mapping[str, Any]) -> Dict[str, int]:
    """The problem sizes read off the tensors' shapes.

    A size is read from every dimension whose expression is just its name
    (dy [M,K] gives M and K); the readings must agree. Raises ShapeError
    naming the tensors that disagree, or a size no tensor gives alone.
    """
    sizes: Dict[str, int] = {}
    seen: Dict[str, str] = {}
    for b in m.buffers:
        t = tensors.get(b.name)
        if t is None:
            continue
        shape = _shape(t)
        if len(shape) != len(b.shape):
            raise ShapeError("%s: tensor %s has %d dims %s, want %d: %s"
                             % (m.name, b.name, len(shape), list(shape), len(b.shape), _doc(b)))
        for e, d in zip(b.shape, shape):
            if e in m.sizes:
                if e in sizes and sizes[e] != d:
                    raise ShapeError("%s: size %s: tensor %s says %d, tensor %s says %d"
                                     % (m.name, e, seen[e], sizes[e], b.name, d))
                sizes.setdefault(e, d)
                seen.setdefault(e, b.name)
    missing = [s for s in m.sizes if s not in sizes]
    if missing:
        raise ShapeError("%s: sizes %s are no tensor's dimension: pass sizes" % (m.name, ", ".join(missing)))
    return sizes


def _doc(b: Any) -> str:
    return "%s [%s]" % (b.name, ", ".join(b.shape)) if not b.doc else b.doc


def check_tensors(m: Manifest, tensors: Mapping[str, Any], sizes: Mapping[str, int]) -> Tuple[Dict[str, int], Optional[int]]:
    """Checks tensors against m's buffers at sizes and returns their addresses.

    Every buffer the manifest lists must be given, and nothing else; each must
    be a CUDA tensor of the maps' dtype, of the buffer's shape at sizes,
    row-major contiguous (strides of dims of size 1 are free) and 16-byte
    aligned, all on one device. Returns the addresses by name and the
    device index. Raises ShapeError (a ValueError) naming the tensor and
    the rule.
    """
    names = {b.name for b in m.buffers}
    extra = sorted(set(tensors) - names)
    if extra:
        raise ShapeError("%s: tensors %s are not the kernel's: it takes %s"
                         % (m.name, ", ".join(extra), ", ".join(b.name for b in m.buffers)))
    dtypes = buffer_dtypes(m)
    ptrs: Dict[str, int] = {}
    device: Optional[int] = None
    first = ""
    for b in m.buffers:
        t = tensors.get(b.name)
        if t is None:
            raise ShapeError("%s: tensor %s not given (%s)" % (m.name, b.name, _doc(b)))
        dev = t.device
        if getattr(dev, "type", None) != "cuda":
            raise ShapeError("%s: tensor %s is on %s: want a CUDA tensor" % (m.name, b.name, dev))
        idx = dev.index if dev.index is not None else 0
        if device is None:
            device, first = idx, b.name
        elif idx != device:
            raise ShapeError("%s: tensor %s is on cuda:%d, tensor %s on cuda:%d: want one device"
                             % (m.name, b.name, idx, first, device))
        map_dt = dtypes.get(b.name)
        want_dt = _TORCH_OF_TMA.get(map_dt, map_dt) if map_dt is not None else None
        got_dt = str(t.dtype).replace("torch.", "")
        if want_dt is not None and got_dt != want_dt:
            raise ShapeError("%s: tensor %s is %s: the kernel reads %s" % (m.name, b.name, got_dt, want_dt))
        if map_dt in _ELEM_BYTES and t.element_size() != _ELEM_BYTES[map_dt]:
            raise ShapeError("%s: tensor %s has %d-byte elements: want %d" % (m.name, b.name, t.element_size(), _ELEM_BYTES[map_dt]))
        try:
            want = tuple(expr.evaluate(e, sizes) for e in b.shape)
        except expr.ExprError as e:
            raise ShapeError("%s: tensor %s: %s" % (m.name, b.name, e)) from None
        got = _shape(t)
        if got != want:
            sz = ", ".join("%s=%d" % (k, sizes[k]) for k in m.sizes if k in sizes)
            raise ShapeError("%s: tensor %s has shape %s, want [%s] = %s at %s"
                             % (m.name, b.name, list(got), ", ".join(b.shape), list(want), sz))
        stride = tuple(int(s) for s in t.stride())
        packed = 1
        for i in range(len(got) - 1, -1, -1):
            if got[i] != 1 and stride[i] != packed:
                raise ShapeError("%s: tensor %s has strides %s: want it row-major contiguous (.contiguous())"
                                 % (m.name, b.name, list(stride)))
            packed *= got[i]
        ptr = int(t.data_ptr())
        if ptr % TMA_ALIGN != 0:
            raise ShapeError("%s: tensor %s at %#x is not %d-byte aligned (TMA): a view at an odd offset? .clone() it"
                             % (m.name, b.name, ptr, TMA_ALIGN))
        ptrs[b.name] = ptr
    return ptrs, device

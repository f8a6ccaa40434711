"""One launch planned without a GPU: what the driver will be passed.

make_plan is Go's Kernel.Plan minus the driver: it checks the sizes, resolves
the manifest, computes and checks every cuTensorMapEncodeTiled call, packs
the parameters (descriptor slots zero until encoded) and sizes the grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Tuple

from . import expr, pack, tensormap
from .manifest import KIND_TENSORMAP, Device, Launch, Manifest, ShapeError

__all__ = ["MapCall", "Plan", "make_plan"]


@dataclass(frozen=True)
class MapCall:
    """The encode of one tensor-map parameter (index: its place in the params)."""

    index: int
    param: str
    buffer: str
    args: tensormap.EncodeArgs


@dataclass(frozen=True)
class Plan:
    """A launch ready for the driver but for its descriptors."""

    kernel: str
    launch: Launch
    maps: Tuple[MapCall, ...]
    params: bytes  # packed, each tensor-map slot zero
    offsets: Tuple[int, ...]

    @property
    def grid(self) -> Tuple[int, int, int]:
        return self.launch.grid

    @property
    def block(self) -> Tuple[int, int, int]:
        return self.launch.block

    @property
    def cluster(self) -> Tuple[int, int, int]:
        return self.launch.cluster

    @property
    def smem_bytes(self) -> int:
        return self.launch.smem_bytes

    def packed(self, descriptors: Sequence[bytes]) -> bytearray:
        """The parameters with descriptors[j] in the j-th map's slot."""
        if len(descriptors) != len(self.maps):
            raise ValueError("%s: %d descriptors for %d tensor maps" % (self.kernel, len(descriptors), len(self.maps)))
        buf = bytearray(self.params)
        for mc, d in zip(self.maps, descriptors):
            if len(d) != tensormap.TENSOR_MAP_SIZE:
                raise ValueError("%s: descriptor of %s: %d bytes, want %d" % (self.kernel, mc.param, len(d), tensormap.TENSOR_MAP_SIZE))
            off = self.offsets[mc.index]
            buf[off:off + len(d)] = d
        return buf


def make_plan(m: Manifest, sizes: Mapping[str, int], buffers: Mapping[str, int], device: Device) -> Plan:
    """Plans m's launch for sizes on buffers (device addresses by manifest name).

    Raises ShapeError for sizes that break a shape rule, TensorMapError for a
    buffer TMA cannot address, and ValueError naming the kernel otherwise.
    """
    try:
        launch = m.resolve(sizes, device)
    except expr.ExprError as e:
        raise ShapeError("%s: %s" % (m.name, e)) from None
    calls = []
    for i, a in enumerate(launch.args):
        if a.kind != KIND_TENSORMAP:
            continue
        assert a.map is not None
        ptr = buffers.get(a.map.buffer, 0)
        if not ptr:
            raise ValueError("%s: buffer %s is 0, but parameter %s maps it" % (m.name, a.map.buffer, a.param))
        try:
            ea = tensormap.encode_args(a.map, ptr)
        except ValueError as e:
            raise ValueError("%s: parameter %s: %s" % (m.name, a.param, e)) from None
        calls.append(MapCall(index=i, param=a.param, buffer=a.map.buffer, args=ea))
    for c in calls:
        try:
            tensormap.validate(c.args, c.buffer)
        except tensormap.TensorMapError as e:
            raise tensormap.TensorMapError("%s: %s" % (m.name, e)) from None
    params, offsets = pack.pack(m.params, launch.args)
    return Plan(kernel=m.name, launch=launch, maps=tuple(calls), params=bytes(params), offsets=offsets)

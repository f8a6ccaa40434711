"""One launch planned without a GPU: what the driver will be passed.

make_plan is Go's Kernel.Plan minus the driver: it checks the sizes, resolves
the manifest, computes and checks every cuTensorMapEncodeTiled call, packs
the parameters (descriptor slots zero until encoded) and sizes the grid.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple

from . import expr, pack, tensormap
from .manifest import KIND_TENSORMAP, KIND_WORKSPACE, Device, Launch, Manifest, ShapeError, WorkspaceSize

__all__ = ["MapCall", "Plan", "PointerSlot", "SizedPlan", "make_plan", "plan_sizes"]


@dataclass(frozen=True)
class PointerSlot:
    """A pointer parameter (index: its place in the params) whose address a
    launch packs: buffers[name], name being the buffer a ptr points to or
    the workspace parameter's own name (workspace: its size, which the
    launcher allocates; callers never pass one to Kernel.launch)."""

    index: int
    param: str
    name: str
    workspace: Optional[WorkspaceSize] = None


def pointer_slots(launch: Launch) -> Tuple[PointerSlot, ...]:
    """The pointer parameters of a resolved launch."""
    out = []
    for i, a in enumerate(launch.args):
        if a.kind == KIND_WORKSPACE:
            out.append(PointerSlot(index=i, param=a.param, name=a.param, workspace=a.workspace))
        elif a.kind in pack.POINTER_KINDS:
            out.append(PointerSlot(index=i, param=a.param, name=a.buffer))
    return tuple(out)


def pack_pointers(kernel: str, params: bytearray, offsets: Sequence[int], slots: Sequence[PointerSlot],
                  buffers: Mapping[str, int]) -> None:
    """Writes each pointer slot's address from buffers into params."""
    for pc in slots:
        ptr = buffers.get(pc.name, 0)
        if not ptr:
            raise ValueError("%s: %s is 0, but parameter %s points to it" % (kernel, pc.name, pc.param))
        if pc.workspace is not None and ptr % pc.workspace.align:
            raise ValueError("%s: workspace %s at %#x: not %d-byte aligned" % (kernel, pc.param, ptr, pc.workspace.align))
        struct.pack_into("<Q", params, offsets[pc.index], ptr)


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


@dataclass(frozen=True)
class SizedPlan:
    """A launch planned for its sizes, before any address is known: every
    rule but the addresses' is checked, the parameters are packed (each
    tensor-map slot zero) and each map's encode is ready but for its
    global address. at() completes it for one set of buffers; a kernel
    keeps one per (device, sizes), so a launch at sizes seen before
    evaluates no expression."""

    kernel: str
    launch: Launch
    maps: Tuple[MapCall, ...]  # global_address: the placeholder
    params: bytes
    offsets: Tuple[int, ...]
    pointers: Tuple[PointerSlot, ...] = ()

    def at(self, buffers: Mapping[str, int]) -> Plan:
        """The plan on buffers (device addresses by manifest name)."""
        calls = tuple(self.at_map(j, buffers.get(c.buffer, 0)) for j, c in enumerate(self.maps))
        return Plan(kernel=self.kernel, launch=self.launch, maps=calls, params=self.params, offsets=self.offsets)

    def at_map(self, j: int, ptr: int) -> MapCall:
        """Map j's encode on its buffer at address ptr."""
        c = self.maps[j]
        if not ptr:
            raise ValueError("%s: buffer %s is 0, but parameter %s maps it" % (self.kernel, c.buffer, c.param))
        a = c.args
        align = tensormap.address_alignment(a)
        if ptr % align != 0:
            raise tensormap.TensorMapError('%s: cu: invalid tensor map "%s": global address %#x is not %d-byte aligned'
                                           % (self.kernel, c.buffer, ptr, align))
        ea = tensormap.EncodeArgs(dtype=a.dtype, rank=a.rank, global_address=ptr, dims=a.dims, strides=a.strides,
                                  box=a.box, elem_strides=a.elem_strides, interleave=a.interleave,
                                  swizzle=a.swizzle, l2_promotion=a.l2_promotion, oob_fill=a.oob_fill)
        return MapCall(index=c.index, param=c.param, buffer=c.buffer, args=ea)


def plan_sizes(m: Manifest, sizes: Mapping[str, int], device: Device) -> SizedPlan:
    """Plans m's launch for sizes on device, addresses aside.

    Raises ShapeError for sizes that break a shape rule, TensorMapError for a
    map TMA cannot encode at any address, and ValueError naming the kernel
    otherwise.
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
        try:
            ea = tensormap.encode_args(a.map, _PLACEHOLDER)
        except ValueError as e:
            raise ValueError("%s: parameter %s: %s" % (m.name, a.param, e)) from None
        calls.append(MapCall(index=i, param=a.param, buffer=a.map.buffer, args=ea))
    for c in calls:
        try:
            tensormap.validate(c.args, c.buffer)
        except tensormap.TensorMapError as e:
            raise tensormap.TensorMapError("%s: %s" % (m.name, e)) from None
    params, offsets = pack.pack(m.params, launch.args)
    return SizedPlan(kernel=m.name, launch=launch, maps=tuple(calls), params=bytes(params), offsets=offsets,
                     pointers=pointer_slots(launch))


_PLACEHOLDER = 1 << 12
"""A global address every alignment rule accepts, for checking the rest of a
map before its buffer's address is known."""


def make_plan(m: Manifest, sizes: Mapping[str, int], buffers: Mapping[str, int], device: Device) -> Plan:
    """Plans m's launch for sizes on buffers (device addresses by manifest name).

    Raises ShapeError for sizes that break a shape rule, TensorMapError for a
    buffer TMA cannot address, and ValueError naming the kernel otherwise.
    """
    return plan_sizes(m, sizes, device).at(buffers)

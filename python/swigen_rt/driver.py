"""The CUDA driver API through ctypes on libcuda.so.1: the few calls a launch needs.

Importing this module loads nothing; driver() opens libcuda on first use.
Every call checks its CUresult and raises CudaError naming the function and
the driver's error name and string. Nothing here creates a context: kernels
run in each device's primary context, the one PyTorch's runtime uses
(retained with cuDevicePrimaryCtxRetain, made current around a call by
push/pop only where the calling thread has another one current).
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from typing import Iterator, Optional, Sequence, Tuple

from .tensormap import EncodeArgs

__all__ = ["Prepared", "LaunchShape", "CudaError", "DriverError", "Driver", "driver", "LaunchConfig", "LaunchAttribute",
           "ATTR_MULTIPROCESSOR_COUNT", "ATTR_CC_MAJOR", "ATTR_CC_MINOR", "FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES",
           "LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", "LIBRARY"]

LIBRARY = "libcuda.so.1"

# cuda.h enumerators.
ATTR_MULTIPROCESSOR_COUNT = 16  # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
ATTR_CC_MAJOR = 75  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
ATTR_CC_MINOR = 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION

_TENSOR_MAP_SIZE = 128
_TENSOR_MAP_ALIGN = 128


class DriverError(RuntimeError):
    """libcuda could not be loaded or lacks an entry point."""


class CudaError(RuntimeError):
    """A driver call that returned an error."""

    def __init__(self, func: str, code: int, name: str, text: str) -> None:
        super().__init__("%s: %s (%d): %s" % (func, name, code, text))
        self.func, self.code, self.name = func, code, name


class _ClusterDim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class _LaunchAttributeValue(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("clusterDim", _ClusterDim)]


class LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute: an id, 4 bytes of padding, a 64-byte value union (72 bytes)."""

    _fields_ = [("id", ctypes.c_uint), ("pad", ctypes.c_char * 4), ("value", _LaunchAttributeValue)]


class LaunchConfig(ctypes.Structure):
    """CUlaunchConfig on 64-bit targets: hStream at 32, attrs at 40, numAttrs at 48, 56 bytes."""

    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("numAttrs", ctypes.c_uint)]


def launch_config(grid: Sequence[int], block: Sequence[int], smem: int, stream: int,
                  cluster: Sequence[int]) -> Tuple[LaunchConfig, Optional[LaunchAttribute]]:
    """A CUlaunchConfig, with one cluster-dimension attribute where cluster is not all zero.

    Zero y and z dims mean 1. Keep the returned attribute alive as long as
    the config.
    """
    def dims(d: Sequence[int]) -> Tuple[int, int, int]:
        return (int(d[0]), int(d[1]) or 1, int(d[2]) or 1)

    g, b = dims(grid), dims(block)
    cfg = LaunchConfig(g[0], g[1], g[2], b[0], b[1], b[2], int(smem), ctypes.c_void_p(stream or None), None, 0)
    if not any(cluster):
        return cfg, None
    attr = LaunchAttribute()
    attr.id = LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    c = dims(cluster)
    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = c
    cfg.attrs = ctypes.pointer(attr)
    cfg.numAttrs = 1
    return cfg, attr


class LaunchShape:
    """A launch's CUlaunchConfig (with its cluster attribute): grid, block,
    cluster, shared memory and stream. Read-only once built; launches of
    one kernel at one size on one stream share it."""

    __slots__ = ("grid", "block", "cluster", "smem", "stream", "cfg", "attr", "ref")

    def __init__(self, grid: Sequence[int], block: Sequence[int], cluster: Sequence[int], smem: int, stream: int) -> None:
        self.grid, self.block, self.cluster = tuple(grid), tuple(block), tuple(cluster)
        self.smem, self.stream = smem, stream
        self.cfg, self.attr = launch_config(grid, block, smem, stream, cluster)
        self.ref = ctypes.byref(self.cfg)


class Prepared:
    """One launch's driver arguments, built once: its LaunchShape, the
    parameter buffer and kernelParams pointing into it. Read-only once
    built, so threads may launch it at once (the driver copies the values
    at each call); a kernel keeps them by (device, stream, sizes,
    addresses) so a repeated launch costs one cuLaunchKernelEx."""

    __slots__ = ("ctx", "fn", "shape", "cfg_ref", "words", "kp", "params", "offsets")

    def __init__(self, ctx: int, fn: int, shape: LaunchShape, params: bytes, offsets: Sequence[int]) -> None:
        self.ctx = ctx  # 0: launch in the thread's current context
        self.fn = ctypes.c_void_p(fn)
        self.shape, self.cfg_ref = shape, shape.ref
        self.params, self.offsets = bytes(params), tuple(offsets)
        self.words = (ctypes.c_uint64 * ((len(params) + 7) // 8 or 1))()
        ctypes.memmove(self.words, self.params, len(self.params))
        base = ctypes.addressof(self.words)
        self.kp = (ctypes.c_void_p * max(1, len(offsets)))(*[base + o for o in offsets])

    @property
    def grid(self) -> Tuple[int, ...]:
        return self.shape.grid

    @property
    def block(self) -> Tuple[int, ...]:
        return self.shape.block

    @property
    def cluster(self) -> Tuple[int, ...]:
        return self.shape.cluster

    @property
    def smem(self) -> int:
        return self.shape.smem

    @property
    def stream(self) -> int:
        return self.shape.stream


class Descriptor:
    """A 128-byte CUtensorMap in a 128-byte aligned buffer of its own."""

    __slots__ = ("_buf", "address")

    def __init__(self) -> None:
        self._buf = (ctypes.c_ubyte * (_TENSOR_MAP_SIZE + _TENSOR_MAP_ALIGN))()
        base = ctypes.addressof(self._buf)
        self.address = base + (-base) % _TENSOR_MAP_ALIGN

    def bytes(self) -> bytes:
        return ctypes.string_at(self.address, _TENSOR_MAP_SIZE)


_P = ctypes.c_void_p
_I = ctypes.c_int
_U = ctypes.c_uint
_PP = ctypes.POINTER(ctypes.c_void_p)
_PI = ctypes.POINTER(ctypes.c_int)
_SIZE = ctypes.c_size_t
_U64 = ctypes.c_uint64

# name: argtypes (restype is CUresult, an int, for all).
_PROTOS = {
    "cuInit": [_U],
    "cuGetErrorName": [_I, ctypes.POINTER(ctypes.c_char_p)],
    "cuGetErrorString": [_I, ctypes.POINTER(ctypes.c_char_p)],
    "cuDeviceGet": [_PI, _I],
    "cuDeviceGetAttribute": [_PI, _I, _I],
    "cuDevicePrimaryCtxRetain": [_PP, _I],
    "cuDevicePrimaryCtxRelease_v2": [_I],
    "cuCtxGetCurrent": [_PP],
    "cuCtxPushCurrent_v2": [_P],
    "cuCtxPopCurrent_v2": [_PP],
    "cuCtxSynchronize": [],
    "cuModuleLoadData": [_PP, _P],
    "cuModuleGetFunction": [_PP, _P, ctypes.c_char_p],
    "cuModuleUnload": [_P],
    "cuFuncSetAttribute": [_P, _I, _I],
    "cuOccupancyMaxActiveBlocksPerMultiprocessor": [_PI, _P, _I, _SIZE],
    "cuOccupancyMaxActiveClusters": [_PI, _P, ctypes.POINTER(LaunchConfig)],
    "cuTensorMapEncodeTiled": [_P, _I, _U, _P, ctypes.POINTER(_U64), ctypes.POINTER(_U64),
                               ctypes.POINTER(_U), ctypes.POINTER(_U), _I, _I, _I, _I],
    "cuLaunchKernelEx": [ctypes.POINTER(LaunchConfig), _P, _PP, _PP],
    # For tests that run without torch.
    "cuMemAlloc_v2": [ctypes.POINTER(_U64), _SIZE],
    "cuMemFree_v2": [_U64],
    "cuMemcpyHtoD_v2": [_U64, _P, _SIZE],
    "cuMemcpyDtoH_v2": [_P, _U64, _SIZE],
    "cuMemsetD8_v2": [_U64, ctypes.c_ubyte, _SIZE],
}


class Driver:
    """libcuda's entry points with their results checked."""

    def __init__(self, lib: Optional[ctypes.CDLL] = None) -> None:
        if lib is None:
            try:
                lib = ctypes.CDLL(LIBRARY)
            except OSError as e:
                raise DriverError("swigen_rt: cannot load %s (is the NVIDIA driver installed?): %s" % (LIBRARY, e)) from None
        self._fns = {}
        for name, argtypes in _PROTOS.items():
            try:
                f = getattr(lib, name)
            except AttributeError:
                raise DriverError("swigen_rt: %s has no %s (driver too old: CUDA 12.0+ needed)" % (LIBRARY, name)) from None
            f.argtypes = argtypes
            f.restype = ctypes.c_int
            self._fns[name] = f
        # Every op call's two entry points again, without argtypes: ctypes
        # then passes the byref, c_void_p and array objects launch_prepared
        # gives as they are instead of converting each (about half the
        # cost of a prototyped call). lib[name] is a new function object,
        # so the prototyped ones above keep their checks.
        self._launch_unchecked = lib["cuLaunchKernelEx"]
        self._ctx_get_unchecked = lib["cuCtxGetCurrent"]
        self._launch_unchecked.restype = self._ctx_get_unchecked.restype = ctypes.c_int
        self._tls = threading.local()
        self._call("cuInit", 0)

    def _error_text(self, code: int) -> Tuple[str, str]:
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        if self._fns["cuGetErrorName"](code, ctypes.byref(name)) != 0 or not name.value:
            return "CUDA_ERROR_UNKNOWN", "unrecognized error code"
        self._fns["cuGetErrorString"](code, ctypes.byref(text))
        return name.value.decode(), (text.value or b"").decode()

    def _call(self, name: str, *args: object) -> None:
        rc = self._fns[name](*args)
        if rc != 0:
            self._raise(name, rc)

    # ---- devices and contexts ---------------------------------------------

    def device(self, ordinal: int) -> int:
        d = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(d), ordinal)
        return d.value

    def device_attribute(self, attr: int, dev: int) -> int:
        v = ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(v), attr, dev)
        return v.value

    def primary_context_retain(self, dev: int) -> int:
        """The device's primary context (retained: release it once)."""
        c = ctypes.c_void_p()
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(c), dev)
        return c.value or 0

    def primary_context_release(self, dev: int) -> None:
        self._call("cuDevicePrimaryCtxRelease_v2", dev)

    def current_context(self) -> int:
        c = ctypes.c_void_p()
        self._call("cuCtxGetCurrent", ctypes.byref(c))
        return c.value or 0

    @contextlib.contextmanager
    def current(self, ctx: int) -> Iterator[None]:
        """Makes ctx current on this thread for the block, restoring the thread's own after.

        A thread that already has ctx current (torch's threads do, once they
        touched the device) pays one cuCtxGetCurrent.
        """
        if self.current_context() == ctx:
            yield
            return
        self._call("cuCtxPushCurrent_v2", ctypes.c_void_p(ctx))
        try:
            yield
        finally:
            popped = ctypes.c_void_p()
            self._call("cuCtxPopCurrent_v2", ctypes.byref(popped))

    def synchronize(self) -> None:
        self._call("cuCtxSynchronize")

    # ---- modules and functions --------------------------------------------

    def module_load(self, image: bytes) -> int:
        """Loads a cubin or fatbin (cuModuleLoadData) into the current context."""
        if not image:
            raise ValueError("swigen_rt: load module: empty image")
        buf = ctypes.create_string_buffer(bytes(image), len(image))
        m = ctypes.c_void_p()
        self._call("cuModuleLoadData", ctypes.byref(m), buf)
        return m.value or 0

    def module_function(self, module: int, name: str) -> int:
        f = ctypes.c_void_p()
        self._call("cuModuleGetFunction", ctypes.byref(f), ctypes.c_void_p(module), name.encode())
        return f.value or 0

    def module_unload(self, module: int) -> None:
        self._call("cuModuleUnload", ctypes.c_void_p(module))

    def set_function_attribute(self, fn: int, attr: int, value: int) -> None:
        self._call("cuFuncSetAttribute", ctypes.c_void_p(fn), attr, value)

    def max_active_blocks_per_sm(self, fn: int, threads: int, smem: int) -> int:
        n = ctypes.c_int()
        self._call("cuOccupancyMaxActiveBlocksPerMultiprocessor", ctypes.byref(n), ctypes.c_void_p(fn), threads, smem)
        return n.value

    def max_active_clusters(self, fn: int, block: Sequence[int], smem: int, cluster: Sequence[int]) -> int:
        cfg, attr = launch_config((cluster[0], 1, 1), block, smem, 0, cluster)
        n = ctypes.c_int()
        self._call("cuOccupancyMaxActiveClusters", ctypes.byref(n), ctypes.c_void_p(fn), ctypes.byref(cfg))
        del attr
        return n.value

    # ---- tensor maps and launches -----------------------------------------

    def encode_tiled(self, a: EncodeArgs) -> Descriptor:
        """cuTensorMapEncodeTiled of a into a new 128-byte aligned Descriptor."""
        dims = (_U64 * 5)(*a.dims)
        strides = (_U64 * 4)(*a.strides)
        box = (_U * 5)(*a.box)
        es = (_U * 5)(*[e or 1 for e in a.elem_strides])
        d = Descriptor()
        self._call("cuTensorMapEncodeTiled", ctypes.c_void_p(d.address), a.dtype, a.rank,
                   ctypes.c_void_p(a.global_address), dims, strides, box, es,
                   a.interleave, a.swizzle, a.l2_promotion, a.oob_fill)
        return d

    def launch(self, fn: int, grid: Sequence[int], block: Sequence[int], cluster: Sequence[int], smem: int,
               stream: int, params: bytes, offsets: Sequence[int]) -> None:
        """cuLaunchKernelEx of fn, kernelParams pointing into params at offsets.

        The driver copies the parameter values at the call, so params may be
        reused when it returns.
        """
        self.launch_prepared(Prepared(0, fn, LaunchShape(grid, block, cluster, smem, stream), params, offsets))

    def launch_prepared(self, p: "Prepared") -> None:
        """cuLaunchKernelEx of a prepared launch, with its context current
        (pushed for the call where this thread has another, or none).
        Inline rather than through current(): this is every op's path."""
        if p.ctx:
            tls = self._tls
            cur = getattr(tls, "cur", None)
            if cur is None:  # this thread's out-parameter, made once
                v = ctypes.c_void_p()
                cur = tls.cur = (v, ctypes.byref(v))
            rc = self._ctx_get_unchecked(cur[1])
            if rc != 0:
                self._raise("cuCtxGetCurrent", rc)
            if (cur[0].value or 0) != p.ctx:
                with self.current(p.ctx):
                    self._call("cuLaunchKernelEx", p.cfg_ref, p.fn, p.kp, None)
                return
        rc = self._launch_unchecked(p.cfg_ref, p.fn, p.kp, None)
        if rc != 0:
            self._raise("cuLaunchKernelEx", rc)

    def _raise(self, name: str, rc: int) -> None:
        ename, text = self._error_text(rc)
        raise CudaError(name, rc, ename, text)

    # ---- device memory, for tests without torch -----------------------------

    def mem_alloc(self, n: int) -> int:
        p = _U64()
        self._call("cuMemAlloc_v2", ctypes.byref(p), n)
        return p.value

    def mem_free(self, p: int) -> None:
        self._call("cuMemFree_v2", p)

    def copy_to_device(self, dst: int, data: bytes) -> None:
        self._call("cuMemcpyHtoD_v2", dst, data, len(data))

    def copy_from_device(self, src: int, n: int) -> bytes:
        buf = ctypes.create_string_buffer(n)
        self._call("cuMemcpyDtoH_v2", buf, src, n)
        return buf.raw

    def memset(self, dst: int, value: int, n: int) -> None:
        self._call("cuMemsetD8_v2", dst, value, n)


_lock = threading.Lock()
_driver: Optional[Driver] = None


def driver() -> Driver:
    """The process's Driver, loading libcuda on the first call (thread-safe)."""
    global _driver
    d = _driver  # every launch asks: no lock once it is set
    if d is not None:
        return d
    with _lock:
        if _driver is None:
            _driver = Driver()
        return _driver

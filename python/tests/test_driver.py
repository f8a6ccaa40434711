"""The ctypes layer without a GPU: struct layouts, descriptors, error checks."""

from __future__ import annotations

import ctypes
import unittest
from typing import Any

import support  # noqa: F401
from swigen_rt import driver


class LayoutTest(unittest.TestCase):
    def test_launch_config_layout(self) -> None:
        # The byte layout of cuda.h on 64-bit targets, as runtime/cu packs it.
        C = driver.LaunchConfig
        self.assertEqual(ctypes.sizeof(C), 56)
        self.assertEqual(C.sharedMemBytes.offset, 24)
        self.assertEqual(C.hStream.offset, 32)
        self.assertEqual(C.attrs.offset, 40)
        self.assertEqual(C.numAttrs.offset, 48)
        A = driver.LaunchAttribute
        self.assertEqual(ctypes.sizeof(A), 72)
        self.assertEqual(A.value.offset, 8)

    def test_launch_config(self) -> None:
        cfg, attr = driver.launch_config((132, 0, 0), (384, 1, 1), 230656, 0xABC0, (0, 0, 0))
        self.assertIsNone(attr)
        self.assertEqual((cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ, cfg.blockDimX), (132, 1, 1, 384))
        self.assertEqual((cfg.sharedMemBytes, cfg.hStream, cfg.numAttrs), (230656, 0xABC0, 0))
        self.assertFalse(cfg.attrs)
        cfg, attr = driver.launch_config((148, 1, 1), (256, 1, 1), 1, 0, (2, 1, 1))
        self.assertIsNotNone(attr)
        self.assertEqual(cfg.numAttrs, 1)
        self.assertIsNone(cfg.hStream)
        a = cfg.attrs[0]
        self.assertEqual(a.id, driver.LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        self.assertEqual((a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z), (2, 1, 1))

    def test_descriptor_alignment(self) -> None:
        for _ in range(16):
            d = driver.Descriptor()
            self.assertEqual(d.address % 128, 0)
            self.assertEqual(d.bytes(), bytes(128))


class _Fn:
    def __init__(self, rc: int = 0, impl: Any = None) -> None:
        self.rc, self.impl, self.calls = rc, impl, []

    def __call__(self, *args: Any) -> int:
        self.calls.append(args)
        if self.impl is not None:
            self.impl(*args)
        return self.rc


class _Lib:
    """A libcuda whose every entry point succeeds, but cuModuleLoadData."""

    def __init__(self) -> None:
        def name(code: int, out: Any) -> None:
            out._obj.value = b"CUDA_ERROR_INVALID_IMAGE"

        def text(code: int, out: Any) -> None:
            out._obj.value = b"device kernel image is invalid"

        self.fns = {n: _Fn() for n in driver._PROTOS}
        self.fns["cuGetErrorName"] = _Fn(impl=name)
        self.fns["cuGetErrorString"] = _Fn(impl=text)
        self.fns["cuModuleLoadData"] = _Fn(rc=200)

    def __getattr__(self, n: str) -> Any:
        try:
            return self.__dict__["fns"][n]
        except KeyError:
            raise AttributeError(n) from None

    def __getitem__(self, n: str) -> Any:  # CDLL's unprototyped lookup
        return self.fns[n]


def _with_current(ctx: int) -> "tuple[_Lib, dict, driver.Driver]":
    """A driver on _Lib whose cuCtxGetCurrent reports cur["ctx"] (ctx at first)."""
    lib = _Lib()
    cur = {"ctx": ctx}

    def get(out: Any) -> None:
        out._obj.value = cur["ctx"]

    lib.fns["cuCtxGetCurrent"] = _Fn(impl=get)
    return lib, cur, driver.Driver(lib)  # type: ignore[arg-type]


class DriverTest(unittest.TestCase):
    def test_errors_name_function_and_code(self) -> None:
        lib = _Lib()
        d = driver.Driver(lib)  # type: ignore[arg-type]
        self.assertEqual(lib.fns["cuInit"].calls, [(0,)])
        with self.assertRaises(driver.CudaError) as cm:
            d.module_load(b"\x7fELF")
        self.assertEqual(str(cm.exception), "cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (200): device kernel image is invalid")
        self.assertEqual((cm.exception.func, cm.exception.code), ("cuModuleLoadData", 200))

    def test_missing_entry_point(self) -> None:
        lib = _Lib()
        del lib.fns["cuTensorMapEncodeTiled"]
        with self.assertRaises(driver.DriverError) as cm:
            driver.Driver(lib)  # type: ignore[arg-type]
        self.assertIn("has no cuTensorMapEncodeTiled", str(cm.exception))

    def test_current_pushes_only_another_context(self) -> None:
        lib, cur, d = _with_current(0x1000)
        with d.current(0x1000):
            pass
        self.assertEqual(lib.fns["cuCtxPushCurrent_v2"].calls, [])
        with d.current(0x2000):
            pass
        self.assertEqual(len(lib.fns["cuCtxPushCurrent_v2"].calls), 1)
        self.assertEqual(len(lib.fns["cuCtxPopCurrent_v2"].calls), 1)
        with self.assertRaises(KeyError):
            with d.current(0x2000):
                raise KeyError("popped anyway")
        self.assertEqual(len(lib.fns["cuCtxPopCurrent_v2"].calls), 2)

    def test_launch_prepared_in_its_context(self) -> None:
        lib, cur, d = _with_current(0x1000)
        shape = driver.LaunchShape((132, 1, 1), (384, 1, 1), (0, 0, 0), 1024, 0x5000)
        p = driver.Prepared(0x1000, 0xF000, shape, bytes(range(16)), (0, 8))
        d.launch_prepared(p)  # its context is current: no push
        launches = lib.fns["cuLaunchKernelEx"].calls
        self.assertEqual(len(launches), 1)
        kp = launches[0][2]  # kernelParams: the second parameter's address, then its bytes
        self.assertEqual(ctypes.string_at(kp[1], 8), bytes(range(8, 16)))
        self.assertEqual(lib.fns["cuCtxPushCurrent_v2"].calls, [])
        cur["ctx"] = 0x2000  # another context current: pushed for the launch, popped after
        d.launch_prepared(p)
        self.assertEqual(len(launches), 2)
        self.assertEqual((len(lib.fns["cuCtxPushCurrent_v2"].calls), len(lib.fns["cuCtxPopCurrent_v2"].calls)), (1, 1))
        lib.fns["cuLaunchKernelEx"].rc = 200
        cur["ctx"] = 0x1000
        with self.assertRaises(driver.CudaError) as cm:
            d.launch_prepared(p)
        self.assertEqual(cm.exception.func, "cuLaunchKernelEx")


if __name__ == "__main__":
    unittest.main()

"""Kernel's load and launch logic over a fake driver (no GPU, no torch)."""

from __future__ import annotations

import contextlib
import os
import threading
import unittest
from typing import Any, Dict, Iterator, List

import support
from support import FakeTensor
from swigen_rt import driver as drv
from swigen_rt import expr as expr_mod
from swigen_rt.kernel import Kernel, LoadError
from swigen_rt.manifest import Manifest

EXAMPLES = os.path.join(support.REPO_DIR, "examples", "kernels")
BWD = os.path.join(EXAMPLES, "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k.json")
GEMM_SM100 = os.path.join(support.REPO_DIR, "manifest", "testdata", "gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc.json")
DOWN_SM100 = os.path.join(support.REPO_DIR, "manifest", "testdata", "fwd_down_sm100a_bf16_m128n128k64_s6_c1x2_1cta_bmn_res_clc.json")


class FakeDriver:
    """Records what Kernel asks of the driver."""

    def __init__(self, cc: tuple = (9, 0), sms: int = 132, per_sm: int = 1, clusters: int = 50) -> None:
        self.cc, self.sms, self.per_sm, self.clusters = cc, sms, per_sm, clusters
        self.calls: List[tuple] = []
        self.retained: Dict[int, int] = {}
        self.launches: List[Dict[str, Any]] = []
        self.encodes = 0
        self.lock = threading.Lock()

    def _rec(self, *c: Any) -> None:
        with self.lock:
            self.calls.append(c)

    def device(self, ordinal: int) -> int:
        return 100 + ordinal

    def device_attribute(self, attr: int, dev: int) -> int:
        return {drv.ATTR_CC_MAJOR: self.cc[0], drv.ATTR_CC_MINOR: self.cc[1], drv.ATTR_MULTIPROCESSOR_COUNT: self.sms}[attr]

    def primary_context_retain(self, dev: int) -> int:
        self.retained[dev] = self.retained.get(dev, 0) + 1
        return 0xC000 + dev

    def primary_context_release(self, dev: int) -> None:
        self.retained[dev] -= 1

    @contextlib.contextmanager
    def current(self, ctx: int) -> Iterator[None]:
        self._rec("current", ctx)
        yield

    def module_load(self, image: bytes) -> int:
        self._rec("load", len(image))
        return 0xA000

    def module_function(self, mod: int, name: str) -> int:
        self._rec("function", name)
        return 0xF000

    def module_unload(self, mod: int) -> None:
        self._rec("unload", mod)

    def set_function_attribute(self, fn: int, attr: int, v: int) -> None:
        self._rec("attr", attr, v)

    def max_active_blocks_per_sm(self, fn: int, threads: int, smem: int) -> int:
        self._rec("occupancy", threads, smem)
        return self.per_sm

    def max_active_clusters(self, fn: int, block: Any, smem: int, cluster: Any) -> int:
        self._rec("clusters", tuple(cluster))
        return self.clusters

    def encode_tiled(self, a: Any) -> Any:
        with self.lock:
            self.encodes += 1
            n = self.encodes

        class D:
            def bytes(self) -> bytes:
                return bytes([n]) * 128

        return D()

    def launch_prepared(self, p: Any) -> None:
        with self.lock:
            self.launches.append(dict(grid=p.grid, block=p.block, cluster=p.cluster, smem=p.smem,
                                      stream=p.stream, params=p.params, offsets=p.offsets, fn=p.fn.value))


def bwd_buffers(M: int = 777, K: int = 520, I: int = 1000) -> Dict[str, Any]:  # noqa: E741
    b = 0x7F0000000000
    return {"dy": FakeTensor((M, K), b + (1 << 32)), "W_down": FakeTensor((I, K), b + (2 << 32)),
            "de": FakeTensor((M, 2 * I), b + (3 << 32)), "grad_de": FakeTensor((M, 2 * I), b + (4 << 32))}


class KernelTest(unittest.TestCase):
    def setUp(self) -> None:
        self.saved = drv._driver

    def tearDown(self) -> None:
        drv._driver = self.saved

    def use(self, fake: FakeDriver) -> FakeDriver:
        drv._driver = fake  # type: ignore[assignment]
        return fake

    def test_launch_loads_once_and_caches_descriptors(self) -> None:
        f = self.use(FakeDriver())
        k = Kernel.from_files(BWD)
        t = bwd_buffers()
        k.launch(t, stream=0x5000)
        k.launch(t, stream=0x5000)
        self.assertEqual([c for c in f.calls if c[0] == "load"], [("load", len(k._cubin))])
        self.assertIn(("attr", drv.FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, 230656), f.calls)
        self.assertNotIn("occupancy", [c[0] for c in f.calls])  # sm_90a: no TMEM limit
        self.assertEqual(f.encodes, 4)  # four maps, encoded once
        self.assertEqual(len(f.launches), 2)
        l0 = f.launches[0]
        p = k.plan({"M": 777, "K": 520, "I": 1000}, {n: x.data_ptr() for n, x in t.items()})
        self.assertEqual((l0["grid"], l0["block"], l0["cluster"], l0["smem"], l0["stream"]),
                         (p.grid, p.block, p.cluster, p.smem_bytes, 0x5000))
        self.assertEqual(l0["offsets"], p.offsets)
        self.assertEqual(l0["params"], bytes(p.packed([bytes([j + 1]) * 128 for j in range(4)])))
        self.assertEqual(f.launches[1]["params"], l0["params"])
        # Another M re-encodes dy, de and grad_de; W_down's map is reused.
        k.launch(bwd_buffers(M=778), stream=0)
        self.assertEqual(f.encodes, 4 + 3)
        k.close()
        self.assertEqual(f.retained, {100: 0})
        self.assertIn(("unload", 0xA000), f.calls)

    def test_shape_errors_before_the_driver(self) -> None:
        f = self.use(FakeDriver())
        k = Kernel.from_files(BWD)
        with self.assertRaises(ValueError) as cm:
            k.launch(bwd_buffers(K=12), stream=0)
        self.assertIn("K=12: must be a positive multiple of 8", str(cm.exception))
        self.assertEqual(f.calls, [])

    def test_arch_mismatch(self) -> None:
        f = self.use(FakeDriver(cc=(10, 0)))
        with self.assertRaises(LoadError) as cm:
            Kernel.from_files(BWD).launch(bwd_buffers(), stream=0)
        self.assertIn("device cuda:0 has compute capability 10.0: the kernel is built for sm_90a (compute capability 9.0)",
                      str(cm.exception))
        self.assertEqual(f.retained, {})

    def test_co_residency(self) -> None:
        m = Manifest.load(GEMM_SM100)
        self.assertGreater(m.max_ctas_per_sm, 0)
        f = self.use(FakeDriver(cc=(10, 0), per_sm=m.max_ctas_per_sm + 1))
        k = Kernel(m, b"cubin")
        with self.assertRaises(LoadError) as cm:
            k.plan({"M": 256, "N": 256, "K": 64}, {"A": 16, "B": 32, "C": 48})
        self.assertIn("more co-resident CTAs than TMEM allocations", str(cm.exception))
        self.assertIn(("unload", 0xA000), f.calls)
        self.assertEqual(f.retained, {100: 0})
        f.per_sm = m.max_ctas_per_sm
        k.plan({"M": 256, "N": 256, "K": 64}, {"A": 16, "B": 32, "C": 48})

    def test_clusters_queried_only_where_they_cap_the_grid(self) -> None:
        down = Manifest.load(DOWN_SM100)  # clc: never capped
        f = self.use(FakeDriver(cc=(10, 0)))
        Kernel(down, b"x").plan({"M": 4096, "K": 4096, "I": 4096}, {b.name: 16 * (i + 1) for i, b in enumerate(down.buffers)})
        self.assertNotIn("clusters", [c[0] for c in f.calls])
        d = dict(down.raw)
        d["grid"] = dict(d["grid"], scheduler="static")
        static = Manifest.from_dict(d)
        p = Kernel(static, b"x").plan({"M": 16384, "K": 4096, "I": 4096}, {b.name: 16 * (i + 1) for i, b in enumerate(static.buffers)})
        self.assertEqual([c for c in f.calls if c[0] == "clusters"], [("clusters", (2, 1, 1))])
        self.assertEqual(p.grid, (100, 1, 1))  # 50 clusters of 2

    def test_repeated_launch_is_planned_once(self) -> None:
        f = self.use(FakeDriver())
        k = Kernel.from_files(BWD)
        evals = []
        real = expr_mod.evaluate

        def counting(e: str, sizes: Any) -> int:
            evals.append(e)
            return real(e, sizes)

        expr_mod.evaluate = counting  # type: ignore[assignment]
        try:
            sizes = {"M": 777, "K": 520, "I": 1000}
            ptrs = {n: t.data_ptr() for n, t in bwd_buffers().items()}
            k.launch_raw(ptrs, sizes, 0, 7)
            self.assertGreater(len(evals), 0)
            evals.clear()
            k.launch_raw(ptrs, sizes, 0, 7)  # same sizes, addresses, stream
            k.launch_raw(ptrs, sizes, 0, 8)  # another stream: a new launch config, the same plan
            k.launch_raw({n: p + (1 << 20) for n, p in ptrs.items()}, sizes, 0, 7)  # the maps encoded anew
            self.assertEqual(evals, [], "a launch at sizes seen before evaluates no expression")
        finally:
            expr_mod.evaluate = real  # type: ignore[assignment]
        self.assertEqual(f.encodes, 4 + 4)
        self.assertEqual([l["stream"] for l in f.launches], [7, 7, 8, 7])
        self.assertEqual(f.launches[0]["params"], f.launches[2]["params"])
        self.assertNotEqual(f.launches[0]["params"], f.launches[3]["params"])
        k.close()  # drops the plans with the module
        k.launch_raw(ptrs, sizes, 0, 7)
        self.assertEqual(len([c for c in f.calls if c[0] == "load"]), 2)
        self.assertEqual(f.launches[-1]["params"][:1], bytes([9]))  # encoded anew after close

    def test_close_while_preparing_caches_nothing_stale(self) -> None:
        # close() from another thread between the module lookup and the
        # cache store (here: before the first descriptor) must not leave a
        # prepared launch on the unloaded module.
        f = self.use(FakeDriver())
        k = Kernel.from_files(BWD)
        real = k._map_descriptor
        closed = []

        def close_then_encode(*a: Any) -> Any:
            if not closed:
                closed.append(True)
                k.close()
            return real(*a)

        k._map_descriptor = close_then_encode  # type: ignore[method-assign]
        sizes = {"M": 777, "K": 520, "I": 1000}
        ptrs = {n: t.data_ptr() for n, t in bwd_buffers().items()}
        k.launch_raw(ptrs, sizes, 0, 7)
        loads = [c for c in f.calls if c[0] == "load"]
        self.assertEqual(len(loads), 2, "loaded again after the close")
        fn = k._devices[0].function
        self.assertEqual([l["fn"] for l in f.launches], [fn], "launched on the reloaded module")
        k.launch_raw(ptrs, sizes, 0, 7)  # and again: the reloaded module, no third load
        self.assertEqual([l["fn"] for l in f.launches], [fn, fn])
        self.assertEqual(len([c for c in f.calls if c[0] == "load"]), 2)

    def test_launch_racing_a_reprepare_after_close(self) -> None:
        # Thread A looks up its launch in the launcher's old (pre-close)
        # launches while thread B prepares anew and swaps in the new epoch's:
        # A must not take the new epoch for its old launch's.
        f = self.use(FakeDriver())
        fns = iter(range(0xF000, 0xF100))
        f.module_function = lambda mod, name: next(fns)  # type: ignore[method-assign]
        k = Kernel.from_files(BWD)
        ptrs = {n: t.data_ptr() for n, t in bwd_buffers().items()}
        names = tuple(sorted(ptrs))
        la = k.launcher(0, (("I", 1000), ("K", 520), ("M", 777)), names)
        vals = [ptrs[n] for n in names]
        la.launch(7, vals)
        k.close()
        fired: List[bool] = []

        class Racing(dict):  # type: ignore[type-arg]
            def get(self, key: Any, default: Any = None) -> Any:
                r = dict.get(self, key, default)
                if not fired:
                    fired.append(True)
                    la.launch(7, vals)  # thread B, in between
                return r

        la.state = (la.state[0], Racing(la.state[1]))
        la.launch(7, vals)  # thread A
        current = k._devices[0].function
        self.assertEqual([l["fn"] for l in f.launches], [0xF000, current, current])

    def test_threads_share_one_load(self) -> None:
        f = self.use(FakeDriver())
        k = Kernel.from_files(BWD)
        t = bwd_buffers()
        errs: List[BaseException] = []

        def run() -> None:
            try:
                for _ in range(20):
                    k.launch(t, stream=1)
            except BaseException as e:  # noqa: BLE001
                errs.append(e)

        ths = [threading.Thread(target=run) for _ in range(8)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        self.assertEqual(errs, [])
        self.assertEqual(len([c for c in f.calls if c[0] == "load"]), 1)
        self.assertEqual(f.encodes, 4)
        self.assertEqual(len(f.launches), 160)

    def test_default_stream_needs_torch(self) -> None:
        try:
            import torch  # noqa: F401
        except ImportError:
            pass
        else:
            self.skipTest("torch is installed")
        self.use(FakeDriver())
        with self.assertRaises(ImportError) as cm:
            Kernel.from_files(BWD).launch(bwd_buffers())
        self.assertIn("needs torch", str(cm.exception))

    def test_cubin_path_default(self) -> None:
        k = Kernel.from_files(BWD)
        with open(BWD[:-5] + ".sm_90a.cubin", "rb") as fh:
            self.assertEqual(k._cubin, fh.read())


if __name__ == "__main__":
    unittest.main()

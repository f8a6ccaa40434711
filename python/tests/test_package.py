"""Generated packages (swigen_rt.package) and the ops' kernel choice (opspec), without GPU or torch.

The package under test is examples/kernels (bwd_dswiglu at the seed shape:
its measured plan points keep the fused kernel everywhere, so emit ships no
unfused path) copied to a temporary directory with the __init__.py gen/pybind
writes for it. DispatchPlan itself is tested in test_dispatch.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import types
import unittest

import support
from swigen_rt import ShapeError, opspec, package
from swigen_rt.package import Registry

KERNELS_DIR = os.path.join(support.REPO_DIR, "examples", "kernels")


def write_package(dst: str) -> None:
    """Copies examples/kernels to dst with the __init__.py that swigen's
    generator writes for it (testdata/kernels_t_init.py, a golden that
    go test ./gen/pybind keeps current)."""
    for f in os.listdir(KERNELS_DIR):
        if not f.endswith(".go"):
            shutil.copy(os.path.join(KERNELS_DIR, f), dst)
    shutil.copy(os.path.join(support.TESTDATA, "kernels_t_init.py"), os.path.join(dst, "__init__.py"))


class PackageTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.dir = os.path.join(self.tmp, "kernels_t")
        os.mkdir(self.dir)
        write_package(self.dir)
        self.addCleanup(shutil.rmtree, self.tmp)
        self.addCleanup(package.REGISTRY.clear)
        self.addCleanup(sys.modules.pop, "kernels_t", None)

    def test_import_registers(self) -> None:
        mod = package.load_dir(self.dir)
        pkg = mod.package  # type: ignore[attr-defined]
        self.assertEqual(sorted(e.kind for e in pkg.kernels.values()), ["bwd_dswiglu"])
        bwd = pkg.by_kind("bwd_dswiglu")[0]
        self.assertEqual((bwd.arch, bwd.dtype, bwd.variant), ("sm_90a", "bfloat16", ""))
        self.assertIsNone(bwd.dispatch)
        self.assertEqual(package.REGISTRY.candidates("bwd_dswiglu", "", "sm_90a", "bfloat16")[0].name, bwd.name)
        self.assertEqual(package.REGISTRY.candidates("bwd_dswiglu", "out", "sm_90a"), [])

    def test_tampered_cubin(self) -> None:
        cubin = [f for f in os.listdir(self.dir) if f.startswith("bwd_dswiglu") and f.endswith(".cubin")][0]
        with open(os.path.join(self.dir, cubin), "ab") as f:
            f.write(b"x")
        with self.assertRaisesRegex(ImportError, "sha256"):
            package.load_dir(self.dir)

    def test_runtime_version(self) -> None:
        with self.assertRaisesRegex(ImportError, "version 2"):
            package.check_runtime(2)
        with self.assertRaisesRegex(ImportError, "no __init__.py"):
            package.load_dir(self.tmp)

    def test_select(self) -> None:
        package.load_dir(self.dir)
        M, K, I = 200, 72, 136
        e, sizes = opspec.select("bwd_dswiglu", "sm_90a", "bfloat16", {"dy": (M, K), "W_down": (I, K), "de": (M, 2 * I)})
        self.assertEqual(sizes, {"M": M, "K": K, "I": I})
        self.assertEqual(opspec.output_shapes(e.kernel.manifest, ["grad_de"], sizes), ((M, 2 * I),))
        with self.assertRaisesRegex(ValueError, "no gemm kernel for sm_90a is registered"):
            opspec.select("gemm", "sm_90a", "bfloat16", {"A": (M, K), "B": (I, K)})
        for op, dt, shapes, want in [
            ("bwd_dswiglu", "bfloat16", {"dy": (M, K), "W_down": (I, K), "de": (M, 2 * I + 2)}, "dimension 2\\*I is 274, not a multiple of 2|tensor de"),
            ("bwd_dswiglu", "bfloat16", {"dy": (M, K), "W_down": (K, I), "de": (M, 2 * I)}, "size K: tensor dy says 72, tensor W_down says 136"),
            ("bwd_dswiglu", "bfloat16", {"dy": (M, 12), "W_down": (I, 12), "de": (M, 2 * I)}, "K=12: must be a positive multiple of 8"),
            ("bwd_dswiglu", "bfloat16", {"dy": (M, K, 1), "W_down": (I, K), "de": (M, 2 * I)}, "tensor dy has 3 dims"),
            ("bwd_dswiglu", "float32", {"dy": (M, K), "W_down": (I, K), "de": (M, 2 * I)}, "tensor dy is float32: the registered bwd_dswiglu kernels for sm_90a read bfloat16"),
            ("bwd_dswiglu_out", "bfloat16", {"dy": (M, K), "W_down": (I, K), "de": (M, 2 * I)}, "no bwd_dswiglu \\(out\\) kernel for sm_90a is registered"),
            ("bwd_dswiglu", "bfloat16", {"dy": (M, K), "W_down": (I, K)}, "inputs de not given"),
        ]:
            with self.subTest(op=op, shapes=shapes):
                with self.assertRaisesRegex(ValueError, want):
                    opspec.select(op, "sm_90a", dt, shapes)

    def test_check_input(self) -> None:
        with self.assertRaisesRegex(ShapeError, "tensor x is on cpu: want a CUDA tensor"):
            opspec.check_input("fwd_gateup", "x", support.FakeTensor((8, 8), 16, device=support.FakeDevice("cpu", None)))

    def test_variants(self) -> None:
        reg = Registry()
        self.assertEqual(reg.candidates("gemm", ""), [])
        self.assertEqual(set(opspec.OPS), {"gemm", "fwd_gateup", "fwd_gateup_train", "fwd_down", "fwd_down_residual",
                                           "bwd_dswiglu", "bwd_dswiglu_out", "moe_gateup", "moe_gateup_train", "moe_dswiglu_out",
                                           "moe_down", "moe_wgrad", "moe_gateup_score", "moe_gateup_train_score", "moe_dswiglu_out_score"})
        self.assertEqual({n for n, s in opspec.OPS.items() if s.grouped},
                         {"moe_gateup", "moe_gateup_train", "moe_dswiglu_out", "moe_down", "moe_wgrad", "moe_gateup_score",
                          "moe_gateup_train_score", "moe_dswiglu_out_score"})
        # Only the _score kernels' ops pass buffers as float32: the score, and the backward's partials.
        self.assertEqual({n: s.fp32 for n, s in opspec.OPS.items() if s.fp32},
                         {"moe_gateup_score": ("score",), "moe_gateup_train_score": ("score",),
                          "moe_dswiglu_out_score": ("score", "dscore_part")})


def stub_package(name: str, *kinds: str) -> package.Package:
    """A package of one stand-in kernel per kind (nothing loads them)."""
    p = package.Package(name=name, dir="/nonexistent")
    for k in kinds:
        n = "%s_%s" % (k, name)
        p.kernels[n] = package.Entry(kernel=types.SimpleNamespace(name=n), kind=k, variant="",  # type: ignore[arg-type]
                                     arch="sm_90a", dtype="bfloat16", package=name)
    return p


class KindGenerationTest(unittest.TestCase):
    def test_changes_touch_their_kinds(self) -> None:
        reg = Registry()
        steps = [
            # change, the kinds' generations after it (absent: never touched)
            (lambda: reg.add_package(stub_package("a", "fwd_gateup", "gemm")), {"fwd_gateup": 1, "gemm": 1}),
            (lambda: reg.add_package(stub_package("b", "moe_fwd_gateup")), {"fwd_gateup": 1, "gemm": 1, "moe_fwd_gateup": 2}),
            # a package registered again under its name: its old kinds and its new ones
            (lambda: reg.add_package(stub_package("a", "fwd_down")), {"fwd_gateup": 3, "gemm": 3, "moe_fwd_gateup": 2,
                                                                      "fwd_down": 3}),
            (lambda: reg.remove_package("b"), {"fwd_gateup": 3, "gemm": 3, "moe_fwd_gateup": 4, "fwd_down": 3}),
            (lambda: reg.remove_package("b"), {"fwd_gateup": 3, "gemm": 3, "moe_fwd_gateup": 4, "fwd_down": 3}),  # not registered
            (reg.clear, {"fwd_gateup": 3, "gemm": 3, "moe_fwd_gateup": 4, "fwd_down": 5}),
        ]
        for j, (change, want) in enumerate(steps):
            with self.subTest(step=j):
                change()
                self.assertEqual(reg.kind_generation, want)
                self.assertEqual(reg.generation, max(want.values()))


if __name__ == "__main__":
    unittest.main()

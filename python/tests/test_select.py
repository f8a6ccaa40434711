"""swigen_rt.select against Go's heuristic (testdata/select.json, from tiling.Selections)."""

from __future__ import annotations

import json
import os
import re
import unittest
from typing import Any, Dict

import support
from swigen_rt.manifest import ShapeError
from swigen_rt.opspec import OPS
from swigen_rt.package import PackageError
from swigen_rt.select import SelectionTable, check_shape

_SHAPE_PREFIX = re.compile(r"^.*shape M=-?\d+,K=-?\d+,I=-?\d+: ")


def _golden() -> Dict[str, Any]:
    with open(os.path.join(support.TESTDATA, "select.json"), encoding="utf-8") as f:
        return json.load(f)


class SelectTest(unittest.TestCase):
    def test_equals_go(self) -> None:
        g = _golden()
        t = SelectionTable(g["table"])
        shapes = [(s["M"], s["K"], s["I"]) for s in g["shapes"]]
        n = measured = errors = 0
        for c in g["calls"]:
            self.assertEqual(len(c["answers"]), len(shapes))
            for (m, k, i), want in zip(shapes, c["answers"]):
                with self.subTest(kernel=c["kernel"], variant=c["variant"], arch=c["arch"], dtype=c["dtype"], shape=(m, k, i)):
                    if want.startswith("error: "):
                        with self.assertRaises(ShapeError) as cm:
                            t.choose(c["kernel"], c["variant"], c["arch"], c["dtype"], m, k, i)
                        # The rule's words are Go's, after the shape.
                        self.assertEqual(_SHAPE_PREFIX.sub("", str(cm.exception)), _SHAPE_PREFIX.sub("", want))
                        errors += 1
                    else:
                        name, source = t.choose(c["kernel"], c["variant"], c["arch"], c["dtype"], m, k, i)
                        self.assertEqual("%s (%s)" % (name, source), want)
                        measured += source == "measured"
                n += 1
        self.assertGreater(n, 1000)
        self.assertGreater(measured, 100)
        self.assertGreater(errors, 0)

    def test_covers_every_op(self) -> None:
        t = SelectionTable(_golden()["table"])
        for arch in ("sm_90a", "sm_100a"):
            for dt in ("bf16", "fp16"):
                for spec in OPS.values():
                    self.assertIn((spec.kind, spec.variant, arch, dt), t.selections)

    def test_k_major_weights(self) -> None:
        # SwiGLUMLP lays W_down out K-major where no registered package
        # says otherwise (mlp.bwd_takes_w_down_kn): the wheel's configs
        # must all be K-major.
        for name in SelectionTable(_golden()["table"]).configs():
            self.assertNotIn("_bmn", name)

    def test_bad_shapes_name_the_rule(self) -> None:
        for shape, rule in (((16, 100, 64), "K=100: must be a multiple of 8"), ((0, 8, 8), "M=0: must be a positive integer"),
                            ((16, 64, 12), "I=12: must be a multiple of 8")):
            with self.subTest(shape=shape):
                with self.assertRaisesRegex(ValueError, rule):
                    check_shape(*shape)

    def test_malformed_table(self) -> None:
        g = _golden()["table"]
        for bad in ({}, dict(g, format="x"), dict(g, rules={}), dict(g, selection=[{"kernel": "gemm"}])):
            with self.assertRaises(PackageError):
                SelectionTable(bad)


if __name__ == "__main__":
    unittest.main()


class BundleTest(unittest.TestCase):
    """The bundle's own checks (the installed wheel's are .ci/run's wheel_check.py)."""

    def _data(self) -> Dict[str, Any]:
        t = _golden()["table"]
        kernels = [{"name": n, "kernel": n.split("_sm")[0], "arch": "sm_90a", "manifest": n + ".json",
                    "cubin": n + ".sm_90a.cubin", "sha256": "0" * 64} for n in SelectionTable(t).configs()]
        return {"format": "swigen-bundle-v1", "runtime_version": 1, "version": "0", "toolchain": "",
                "arches": [{"arch": "sm_90a", "compile_only": False}], "selection": t, "kernels": kernels,
                "elementwise": [], "dispatch": []}

    def test_valid(self) -> None:
        from swigen_rt.select import Bundle

        b = Bundle("/nonexistent", self._data())
        self.assertFalse(b.compile_only["sm_90a"])
        self.assertEqual(set(b.kernels), set(b.table.configs()))

    def test_malformed(self) -> None:
        from swigen_rt.select import Bundle

        d = self._data()
        for what, bad in (("format", dict(d, format="swigen-bundle-v0")), ("swigen_rt format 2", dict(d, runtime_version=2)),
                          ("lacks", dict(d, kernels=d["kernels"][1:])), ("malformed", dict(d, arches=[{}])),
                          ("format", [])):
            with self.subTest(what=what):
                with self.assertRaisesRegex(PackageError, what):
                    Bundle("/nonexistent", bad)  # type: ignore[arg-type]

    def test_no_bundle_installed(self) -> None:
        # The repository's tests run without the wheel: select_bundled
        # declines and opspec.select names the emit command as before.
        from swigen_rt import opspec
        from swigen_rt.select import bundle

        if bundle() is not None:
            self.skipTest("a swigen_kernels wheel is installed in this python")
        with self.assertRaisesRegex(ValueError, "swigen emit --py-package"):
            opspec.select("gemm", "sm_90a", "bfloat16", {"A": (64, 64), "B": (64, 64)})

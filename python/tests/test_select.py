"""swigen_rt.select against Go's heuristic (testdata/select.json, from tiling.Selections)."""

from __future__ import annotations

import json
import os
import re
import unittest
from types import SimpleNamespace
from typing import Any, Dict

import support
from swigen_rt import kinds_gen
from swigen_rt.manifest import ShapeError
from swigen_rt.opspec import OPS
from swigen_rt.package import Package, PackageError
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
                    # Every op has code on both arches but moe_down
                    # (moe_gemm: sm_90a only) and moe_wgrad (sm_90a
                    # only), which the table skips. A _score kernel's op
                    # has no selection: no wheel ships one.
                    if (arch == "sm_100a" and spec.kind in ("moe_gemm", "moe_wgrad")) or spec.variant.endswith(kinds_gen.SCORE_SUFFIX):
                        self.assertNotIn((spec.kind, spec.variant, arch, dt), t.selections, (spec.name, arch, dt))
                        continue
                    self.assertIn((spec.kind, spec.variant, arch, dt), t.selections, (spec.name, arch, dt))
        skipped = _golden()["table"].get("skipped", [])
        self.assertEqual([(s["kernel"], s["arch"]) for s in skipped], [("moe_gemm", "sm_100a"), ("moe_wgrad", "sm_100a")] * 2)

    def test_weight_majors(self) -> None:
        # SwiGLUMLP's backward (bwd_dswiglu out) reads W_down [K, I] as it
        # is on sm_90a (mlp.bwd_takes_w_down_kn: no per-call transpose),
        # SwiGLUExperts' (moe_bwd_dswiglu out) W_down [E, H, I] likewise;
        # moe_wgrad's B [T, K] is MN-major on the arch it has code on;
        # every other op's weight is K-major, as the ops document.
        t = SelectionTable(_golden()["table"])
        for key, sel in t.selections.items():
            with self.subTest(selection=key):
                mn = key[:2] in (("bwd_dswiglu", "out"), ("moe_bwd_dswiglu", "out"), ("moe_wgrad", ""))
                want = "mn" if mn and (key[2] == "sm_90a" or not sel.note) else "k"
                self.assertEqual(sel.major_b, want)
                for name in sel.names():
                    self.assertEqual("_bmn" in name, want == "mn", name)

    def test_bad_shapes_name_the_rule(self) -> None:
        for shape, rule in (((16, 100, 64), "K=100: must be a multiple of 8"), ((0, 8, 8), "M=0: must be a positive integer"),
                            ((16, 64, 12), "I=12: must be a multiple of 8")):
            with self.subTest(shape=shape):
                with self.assertRaisesRegex(ValueError, rule):
                    check_shape(*shape)

    def test_malformed_table(self) -> None:
        g = _golden()["table"]
        no_major = [{k: v for k, v in s.items() if k != "major_b"} for s in g["selection"]]
        flipped = [dict(s, major_b="k" if s["major_b"] == "mn" else "mn") for s in g["selection"]]
        for what, bad in (("format", {}), ("format", dict(g, format="x")), ("malformed", dict(g, rules={})),
                          ("malformed", dict(g, selection=[{"kernel": "gemm"}])), ("malformed", dict(g, selection=no_major)),
                          ("but it names", dict(g, selection=flipped)),
                          ("want k or mn", dict(g, selection=[dict(s, major_b="x") for s in g["selection"]]))):
            with self.subTest(what=what):
                with self.assertRaisesRegex(PackageError, what):
                    SelectionTable(bad)


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


_BMN = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out"


def _fake_bundle(name: str, major_b: str) -> Dict[str, Any]:
    """A bundle whose only kernel is name, bwd_dswiglu out's every choice on sm_90a bf16."""
    t = dict(_golden()["table"])
    rules = [{"facts": {"wide": w, "l2_keep": l2, "two_cta": c}, "config": name}
             for w in (False, True) for l2 in (False, True) for c in (False, True)]
    t["selection"] = [{"kernel": "bwd_dswiglu", "variant": "out", "arch": "sm_90a", "dtype": "bf16",
                       "measured": [], "rules": rules, "major_b": major_b}]
    return {"format": "swigen-bundle-v1", "runtime_version": 1, "version": "0", "toolchain": "",
            "arches": [{"arch": "sm_90a", "compile_only": False}], "selection": t,
            "kernels": [{"name": name, "kernel": "bwd_dswiglu", "arch": "sm_90a", "manifest": name + ".json",
                         "cubin": name + ".sm_90a.cubin", "sha256": "0" * 64}],
            "elementwise": [], "dispatch": []}


class WeightMajorTest(unittest.TestCase):
    """select.weight_mn_major: the layout SwiGLUMLP lays W_down out in
    (mlp.bwd_takes_w_down_kn, mlp.fwd_down_reads_w_down_ik)."""

    def test_wheel_alone(self) -> None:
        from swigen_rt.package import Registry
        from swigen_rt.select import Bundle, weight_mn_major

        mn = Bundle("/nonexistent", _fake_bundle(_BMN, "mn"))
        k = Bundle("/nonexistent", _fake_bundle(_BMN.replace("_bmn", ""), "k"))
        for what, args, b, want in (
                ("only an MN-major bwd kernel in the wheel", ("bwd_dswiglu", "out", "sm_90a", "bfloat16"), mn, True),
                ("only a K-major one", ("bwd_dswiglu", "out", "sm_90a", "bfloat16"), k, False),
                ("a dtype the wheel lacks", ("bwd_dswiglu", "out", "sm_90a", "float16"), mn, False),
                ("an arch the wheel lacks", ("bwd_dswiglu", "out", "sm_100a", "bfloat16"), mn, False),
                ("a variant the wheel lacks", ("bwd_dswiglu", "", "sm_90a", "bfloat16"), mn, False),
                ("a dtype swigen has no name for", ("bwd_dswiglu", "out", "sm_90a", "float32"), mn, False)):
            with self.subTest(what=what):
                self.assertEqual(weight_mn_major(*args, registry=Registry(), b=b), want)

    def test_registered_package_first(self) -> None:
        # opspec.select's order: a registered package's kernel runs, so
        # its layout is the one to pass, whatever the wheel holds.
        from swigen_rt.package import Entry, Registry
        from swigen_rt.select import Bundle, weight_mn_major

        b = Bundle("/nonexistent", _fake_bundle(_BMN, "mn"))
        for name, want in ((_BMN.replace("_bmn", ""), False), (_BMN, True)):
            with self.subTest(registered=name):
                reg = Registry()
                pkg = Package(name="mine", dir="/nonexistent")
                pkg.kernels[name] = Entry(kernel=SimpleNamespace(name=name), kind="bwd_dswiglu", variant="out",  # type: ignore[arg-type]
                                          arch="sm_90a", dtype="bfloat16", package="mine")
                reg.add_package(pkg)
                self.assertEqual(weight_mn_major("bwd_dswiglu", "out", "sm_90a", "bfloat16", registry=reg, b=b), want)


if __name__ == "__main__":
    unittest.main()

"""Manifest parsing, validation, shape rules and the grid rule."""

from __future__ import annotations

import copy
import glob
import json
import os
import unittest
from typing import Any, Dict

import support
from swigen_rt.expr import ExprError
from swigen_rt.manifest import Device, Manifest, ManifestError, ShapeError

MANIFESTS = os.path.join(support.REPO_DIR, "manifest", "testdata")
BWD = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"


def raw(name: str) -> Dict[str, Any]:
    with open(os.path.join(MANIFESTS, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


class ParseTest(unittest.TestCase):
    def test_pinned_manifests_parse(self) -> None:
        paths = sorted(glob.glob(os.path.join(MANIFESTS, "*_*.json")))
        paths = [p for p in paths if not p.endswith("expr_cases.json")]
        self.assertEqual(len(paths), 5)
        for p in paths:
            m = Manifest.load(p)
            self.assertEqual(m.name, os.path.basename(p)[:-5])
            self.assertTrue(m.params)

    def test_example_kernel(self) -> None:
        m = Manifest.load(os.path.join(support.REPO_DIR, "examples", "kernels",
                                       "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k.json"))
        self.assertEqual([b.name for b in m.buffers], ["dy", "W_down", "de", "grad_de"])
        self.assertEqual(m.buffer("de").shape, ("M", "2*I"))

    def test_rejects(self) -> None:
        def broken(edit: Any) -> Dict[str, Any]:
            d = copy.deepcopy(raw(BWD))
            edit(d)
            return d

        tests = [
            ("version", lambda d: d.update(version=1), "version 1: this runtime reads version 2"),
            ("unknown size", lambda d: d["params"][-1].update(value="2*N"), "size N not given"),
            ("syntax", lambda d: d["grid"].update(tiles="cdiv(M,128"), "grid: expression"),
            ("unlisted buffer", lambda d: d["params"][0]["map"].update(buffer="nope"), 'map of buffer "nope", which is not listed'),
            ("kind", lambda d: d["params"][0].update(kind="f32"), 'kind "f32": want tensormap, i32, i64, ptr or workspace'),
            ("box rank", lambda d: d["params"][0]["map"].update(box=[64]), "rank 2 with 1 strides, 1 box"),
            ("block", lambda d: d.update(block_threads=0), "block_threads = 0: want an integer in [1, 1024]"),
            ("missing field", lambda d: d.pop("entry"), "missing 'entry'"),
            ("not an integer", lambda d: d.update(dynamic_smem_bytes="1"), "want an integer"),
        ]
        for name, edit, want in tests:
            with self.subTest(name):
                with self.assertRaises(ManifestError) as cm:
                    Manifest.from_dict(broken(edit))
                self.assertIn(want, str(cm.exception))

    def test_from_json_errors(self) -> None:
        with self.assertRaises(ManifestError):
            Manifest.from_json("[1]")
        with self.assertRaises(ManifestError):
            Manifest.from_json("{")


class RulesTest(unittest.TestCase):
    def test_check_sizes(self) -> None:
        # The same messages as manifest's TestCheckSizes in Go.
        m = Manifest.load(os.path.join(support.REPO_DIR, "examples", "kernels",
                                       "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k.json"))
        m.check_sizes({"M": 16384, "K": 768, "I": 4608})
        m.check_sizes({"M": 129, "K": 8, "I": 200})
        with self.assertRaises(ShapeError) as cm:
            m.check_sizes({"M": 0, "K": 12, "I": 100})
        self.assertEqual(str(cm.exception), m.name + ": bad shape: M=0: must be >= 1; "
                         "K=12: must be a positive multiple of 8 (dy and W_down rows must be 16-byte multiples for TMA); "
                         "I=100: must be a positive multiple of 8 (the gate half of de starts I elements into each row; "
                         "TMA needs 16-byte strides)")
        with self.assertRaises(ExprError) as cm2:
            m.check_sizes({"M": 1, "K": 8})
        self.assertIn("size I not given", str(cm2.exception))

    def test_i32_range(self) -> None:
        m = Manifest.from_dict(raw(BWD))
        with self.assertRaises(ShapeError) as cm:
            m.resolve({"M": 1 << 31, "K": 8, "I": 8}, Device(sms=132))
        self.assertIn("parameter M = M = 2147483648: out of the i32 range", str(cm.exception))


class GridTest(unittest.TestCase):
    def grid(self, scheduler: str, tiles: str, cpt: int, cluster: int) -> Manifest:
        d = copy.deepcopy(raw(BWD))
        d["grid"] = {"tiles": tiles, "ctas_per_tile": cpt, "scheduler": scheduler}
        d["cluster_dims"] = [cluster, 1, 1]
        return Manifest.from_dict(d)

    def test_grid_ctas(self) -> None:
        # The cases of manifest's TestGridCTAs in Go.
        t128x256, t128x128, t256x256 = "cdiv(M,128)*cdiv(I,256)", "cdiv(M,128)*cdiv(I,128)", "cdiv(M,256)*cdiv(I,256)"
        tests = [
            ("1cta static many tiles", self.grid("static", t128x256, 1, 1), 16384, 4608, 148, 0, 148),
            ("1cta static few tiles", self.grid("static", t128x256, 1, 1), 256, 512, 148, 0, 4),
            ("1cta cluster 2 odd SMs", self.grid("static", t128x128, 1, 2), 16384, 4608, 133, 74, 132),
            ("capped by co-resident clusters", self.grid("static", t128x128, 1, 2), 16384, 4608, 148, 50, 100),
            ("1cta cluster 2 one tile", self.grid("static", t128x128, 1, 2), 100, 100, 148, 74, 2),
            ("2cta static", self.grid("static", t256x256, 2, 2), 16384, 4608, 148, 74, 148),
            ("2cta static few tiles", self.grid("static", t256x256, 2, 2), 300, 256, 148, 74, 4),
            ("2cta clc ignores clusters", self.grid("clc", t256x256, 2, 2), 16384, 4608, 148, 1, 2 * 64 * 18),
            ("1cta clc cluster 2 odd tiles", self.grid("clc", t128x128, 1, 2), 384, 128, 148, 0, 4),
        ]
        for name, m, mm, i, sms, clusters, want in tests:
            with self.subTest(name):
                self.assertEqual(m.grid_ctas({"M": mm, "I": i, "K": 8}, sms, clusters), want)

    def test_grid_bound(self) -> None:
        m = self.grid("clc", "cdiv(M,128)*cdiv(I,128)", 1, 1)
        with self.assertRaises(ShapeError) as cm:
            m.grid_ctas({"M": 1 << 30, "I": 1 << 30}, 132)
        self.assertIn("gridDim.x", str(cm.exception))
        self.assertEqual(m.grid_ctas({"M": 256, "I": 256}, 132), 4)


if __name__ == "__main__":
    unittest.main()

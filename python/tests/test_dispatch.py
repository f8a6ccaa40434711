"""swigen_rt.dispatch against Go's tiling.ChoosePath (testdata/choose_path.json)."""

from __future__ import annotations

import json
import os
import unittest

import support
from swigen_rt.dispatch import FUSED, UNFUSED, DispatchPlan, PlanPoint, choose_path


class ChoosePathTest(unittest.TestCase):
    def test_equals_go(self) -> None:
        with open(os.path.join(support.TESTDATA, "choose_path.json"), encoding="utf-8") as f:
            g = json.load(f)
        n = unfused = 0
        for c in g["cases"]:
            pts = [PlanPoint(m=p["shape"]["M"], k=p["shape"]["K"], i=p["shape"]["I"], path=p["path"],
                             unfused_speedup=p["unfused_speedup"]) for p in c["points"]]
            for q in c["calls"]:
                s = q["shape"]
                with self.subTest(of=c["of"], shape=s):
                    self.assertEqual(choose_path(pts, s["M"], s["K"], s["I"]), (q["path"], q["why"]))
                n += 1
                unfused += q["path"] == UNFUSED
        self.assertGreater(n, 100)
        self.assertGreater(unfused, 0)
        self.assertLess(unfused, n)

    def test_plan(self) -> None:
        d = {"fused": "f", "gemm": "g", "elementwise": "e.cubin", "rule": "r",
             "points": [{"shape": {"M": 128, "K": 64, "I": 64}, "path": "unfused", "unfused_speedup": 1.035}]}
        p = DispatchPlan.from_json(json.dumps(d))
        self.assertEqual(p.choose(128, 64, 64)[0], UNFUSED)
        # 3.5% clears the 3.0% required at the point, not the 4.3% at 0.6.
        self.assertEqual(p.choose(233, 64, 64)[0], FUSED)
        self.assertEqual(p.choose(1 << 20, 64, 64)[0], FUSED)
        forced = DispatchPlan.from_dict(dict(d, force="fused"))
        self.assertEqual(forced.choose(128, 64, 64), (FUSED, "fused: forced when the package was emitted"))

    def test_bad_plans(self) -> None:
        base = {"fused": "f", "gemm": "g", "elementwise": "e", "points": []}
        for bad, want in [({"gemm": ""}, "dispatch f: gemm = '': want a non-empty string"),
                          ({"force": "auto"}, "force = 'auto': want one of '', 'fused', 'unfused'"),
                          ({"points": [{"shape": {"M": 0, "K": 8, "I": 8}, "path": "fused"}]}, r"points\[0\]\.shape\.M = 0"),
                          ({"points": [{"shape": {"M": 1, "K": 8, "I": 8}, "path": "x"}]}, r"points\[0\]\.path = 'x'"),
                          ({"points": [{"shape": {"M": 1, "K": 8, "I": 8}, "path": "fused", "unfused_speedup": -1}]},
                           r"points\[0\]\.unfused_speedup = -1"),
                          ({"points": [{"shape": {"M": 1, "K": 8, "I": 8}, "path": "unfused", "unfused_speedup": 0.9}]},
                           r"points\[0\]\.unfused_speedup = 0\.9: a point whose path is unfused wants over 1")]:
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(ValueError, want):
                    DispatchPlan.from_dict(dict(base, **bad))


if __name__ == "__main__":
    unittest.main()

"""bench/py_table.py's pure parts (statistics, the merge of shards, the
verdicts in back-to-back timing); stdlib only."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from typing import Any, Dict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import py_table  # noqa: E402

SEED = (16384, 768, 4608)


def timing(alone: float, b2b: float) -> Dict[str, float]:
    return {"us": alone, "b2b_us": b2b}


def record(m: int, k: int, i: int, peers: Dict[str, Any]) -> Dict[str, Any]:
    return {"shape": {"M": m, "K": k, "I": i}, "peers": peers}


def peer(step: Dict[str, float], infer: Dict[str, float], mib: float, ok: bool = True) -> Dict[str, Any]:
    return {"step": step, "infer": infer, "step_mib": mib, "ok": ok}


class Quantiles(unittest.TestCase):
    def test_median_p20_p80(self) -> None:
        self.assertEqual(py_table.quantiles([5.0, 1.0, 4.0, 2.0, 3.0]), (3.0, 2.0, 5.0))
        ts = [float(v) for v in range(100, 0, -1)]  # 1..100, unsorted
        self.assertEqual(py_table.quantiles(ts), (50.5, 21.0, 81.0))

    def test_empty_refused(self) -> None:
        with self.assertRaises(ValueError):
            py_table.quantiles([])

    def test_reps_at_least_30(self) -> None:
        cases = [(50.0, 300.0, 30), (0.1, 300.0, 100), (5.0, 300.0, 60), (0.0, 300.0, 100)]
        for est, budget, want in cases:
            self.assertEqual(py_table.reps_for(est, budget), want, (est, budget))


class Verdicts(unittest.TestCase):
    def test_back_to_back_is_quoted(self) -> None:
        # QuACK: slower alone (host-bound first launch), faster back-to-back.
        r = record(*SEED, peers={
            "swigen": peer(timing(1706.0, 1700.0), timing(540.0, 530.0), 464.0),
            "QuACK tuned": peer(timing(1942.0, 1690.0), timing(500.0, 499.0), 751.0),
            "torch.compile": peer(timing(1857.0, 1850.0), timing(560.0, 555.0), 607.0),
        })
        v = py_table.verdicts(r, SEED)
        self.assertEqual((v["best"], v["best_us"]), ("QuACK tuned", 1690.0))
        self.assertAlmostEqual(v["ratio"], 1690.0 / 1700.0)
        self.assertFalse(v["speed"])  # 0.99x < 1.10x at the seed
        self.assertTrue(v["mem"])
        self.assertFalse(v["infer"])
        alone = py_table.best(r["peers"], "step", "us")
        self.assertEqual(alone, ("torch.compile", 1857.0))

    def test_wrong_peer_not_best_and_old_records(self) -> None:
        r = record(2048, 4096, 3584, peers={
            "swigen": {"step": {"us": 812.0}, "infer": {"us": 300.0}, "step_mib": 144.0, "ok": True},
            "eager (HF block)": {"step": {"us": 854.6}, "infer": {"us": 320.0}, "step_mib": 150.0, "ok": True},
            "broken": peer(timing(10.0, 10.0), timing(1.0, 1.0), 1.0, ok=False),
        })
        v = py_table.verdicts(r, SEED)  # no b2b_us: the "alone" medians stand in
        self.assertEqual(v["best"], "eager (HF block)")
        self.assertTrue(v["speed"])
        self.assertFalse(v["mem"])  # 144 > 1 counts: memory is compared with every peer that ran
        lines = py_table.shape_lines(r, SEED)
        self.assertIn("speed PASS", lines[0])
        self.assertIn("mem FAIL", lines[0])


class Merge(unittest.TestCase):
    def write(self, d: str, r: Dict[str, Any]) -> None:
        s = r["shape"]
        with open(os.path.join(d, "peers-%dx%dx%d.json" % (s["M"], s["K"], s["I"])), "w") as f:
            json.dump(r, f)

    def test_shards_merge_sorted(self) -> None:
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            sw = {"swigen": peer(timing(1.0, 1.0), timing(1.0, 1.0), 1.0)}
            self.write(a, record(8192, 4096, 14336, sw))
            self.write(b, record(2048, 4096, 3584, sw))
            self.write(a, record(128, 4096, 14336, sw))
            got = [tuple(r["shape"].values()) for r in py_table.load_records([a, b])]
            self.assertEqual(got, [(128, 4096, 14336), (2048, 4096, 3584), (8192, 4096, 14336)])
            out = os.path.join(a, "all.json")
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                self.assertEqual(py_table.summarize(a + os.pathsep + b, out, SEED), 0)
            self.assertIn("back-to-back", printed.getvalue())
            with open(out) as f:
                merged = json.load(f)
            self.assertEqual((merged["timing_quoted"], len(merged["records"])), ("b2b_us", 3))

    def test_overlapping_shards_refused(self) -> None:
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            r = record(2048, 4096, 3584, {})
            self.write(a, r)
            self.write(b, r)
            with self.assertRaisesRegex(ValueError, "recorded twice"):
                py_table.load_records([a, b])


if __name__ == "__main__":
    unittest.main()

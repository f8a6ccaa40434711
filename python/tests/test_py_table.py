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


SUITE = [(16384, 768, 4608), (8192, 4096, 14336), (4096, 4096, 7168), (2048, 4096, 3584), (128, 4096, 14336),
         (8192, 8192, 28672), (8192, 8192, 14336), (8192, 8192, 7168), (8192, 8192, 3584), (32768, 8192, 3584),
         (8192, 3584, 18944), (4096, 3584, 9472), (4096, 4096, 14336), (4096, 7168, 2048), (512, 7168, 2048),
         (2048, 2048, 768), (8192, 3584, 14336), (16384, 3584, 7168), (4096, 3072, 8192), (3000, 2048, 5632)]
TUNE = [(16384, 768, 4608), (8192, 4096, 14336)]
CALL_A = ["swigen", "eager", "compile", "liger"]


class Plan(unittest.TestCase):
    def test_every_shape_once_in_given_order(self) -> None:
        for n in (1, 3, 8, 30):
            got = py_table.plan(SUITE, TUNE, CALL_A, n)
            self.assertEqual(len(got), n)
            flat = [s for g in got for s in g]
            self.assertEqual(sorted(flat), sorted(SUITE), n)
            for g in got:
                self.assertEqual(g, sorted(g, key=SUITE.index), n)

    def test_balanced(self) -> None:
        # LPT: the longest worker is within 4/3 of the perfect split, or is one shape alone.
        for fams in (CALL_A, ["swigen", "quack"]):
            got = py_table.plan(SUITE, TUNE, fams, 8)
            cost = [sum(py_table.estimate_s(s, s in TUNE, fams) for s in g) for g in got]
            ideal = max(sum(cost) / 8, max(py_table.estimate_s(s, s in TUNE, fams) for s in SUITE))
            self.assertLessEqual(max(cost), ideal * 4 / 3, fams)

    def test_suite_fits_ten_minutes_on_eight_gpus(self) -> None:
        # The arithmetic py_perf.sh's LIMIT (530 s) rests on: each call's longest worker.
        for fams in (CALL_A, ["swigen", "quack"]):
            got = py_table.plan(SUITE, TUNE, fams, 8)
            longest = max(sum(py_table.estimate_s(s, s in TUNE, fams) for s in g) for g in got)
            self.assertLess(longest, 400, fams)

    def test_estimate_grows_with_tuning_and_size(self) -> None:
        s = (8192, 4096, 14336)
        self.assertGreater(py_table.estimate_s(s, True, CALL_A), py_table.estimate_s(s, False, CALL_A) + 70)
        self.assertGreater(py_table.estimate_s((8192, 8192, 28672), False, CALL_A),
                           py_table.estimate_s((2048, 2048, 768), False, CALL_A))

    def test_shards(self) -> None:
        parts = [py_table.worker_lines(";".join("%d,%d,%d" % s for s in SUITE), "16384,768,4608", "swigen,eager",
                                       1, "%d/3" % i)[0] for i in (1, 2, 3)]
        got = sorted(py_table.parse_shapes(";".join(parts)))
        self.assertEqual(got, sorted(SUITE))
        for bad in ("0/3", "4/3", "x", "1/0"):
            with self.assertRaisesRegex(ValueError, "shard"):
                py_table.parse_shard(bad)
        with self.assertRaises(ValueError):
            py_table.plan(SUITE, TUNE, CALL_A, 0)


if __name__ == "__main__":
    unittest.main()

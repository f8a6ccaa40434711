"""swigen_rt.moe_plan: SwiGLUExperts' shape rules, checkpoint index math,
routing helpers and path choice; pure (no torch, no GPU)."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import struct
import unittest

import support  # noqa: F401

from swigen_rt import kinds_gen, moe_plan
from swigen_rt.moe_plan import KERNEL, REFERENCE, REFUSED, MoeShape


class CheckShapesTest(unittest.TestCase):
    def test_good(self) -> None:
        self.assertEqual(moe_plan.check_shapes("moe_gateup", (24, 64), (4, 32, 64), (4,)), MoeShape(T=24, E=4, H=64, I=16))
        self.assertEqual(moe_plan.check_shapes("moe_gateup", (0, 64), (4, 32, 64), (4,), (4, 64, 16)).T, 0)

    def test_bad(self) -> None:
        cases = [  # x, W, offs, W_down -> words the error must hold
            ((24, 64, 1), (4, 32, 64), (4,), None, "x is [24, 64, 1]: want [T, H]"),
            ((24, 64), (4, 31, 64), (4,), None, "want [E, 2I, H]"),
            ((24, 64), (32, 64), (4,), None, "want [E, 2I, H]"),
            ((24, 64), (4, 32, 48), (4,), None, "last dim == x's H = 64"),
            ((24, 60), (4, 32, 60), (4,), None, "multiples of 8"),
            ((24, 64), (4, 12, 64), (4,), None, "I=6: want multiples of 8"),
            ((24, 64), (4, 32, 64), (5,), None, "offs is [5]: want [E] = [4]"),
            ((24, 64), (4, 32, 64), (4, 1), None, "offs is [4, 1]"),
            ((24, 64), (4, 32, 64), (4,), (4, 16, 64), "W_down is [4, 16, 64]: want [E, H, I] = [4, 64, 16]"),
            ((24, 64), (0, 32, 64), (0,), None, "E=0"),
        ]
        for x, W, offs, wd, words in cases:
            with self.subTest(x=x, W=W, offs=offs, W_down=wd):
                with self.assertRaises(ValueError) as cm:
                    moe_plan.check_shapes("moe_gateup", x, W, offs, wd)
                self.assertIn("swigen::moe_gateup", str(cm.exception))
                self.assertIn(words, str(cm.exception))


class ScoreTest(unittest.TestCase):
    def test_check_score(self) -> None:
        moe_plan.check_score("moe_gateup", 24, (24,), "float32", "cuda:0", "cuda:0")
        moe_plan.check_score("moe_gateup", 0, (0,), "float32", "cpu", "cpu")
        cases = [  # shape, dtype, device -> words the error must hold
            ((23,), "float32", "cuda:0", "score is [23]: want [T] = [24]"),
            ((24, 1), "float32", "cuda:0", "score is [24, 1]: want [T]"),
            ((24,), "bfloat16", "cuda:0", "score is bfloat16: want float32"),
            ((24,), "float32", "cpu", "score on cpu, x on cuda:0: want one device"),
        ]
        for shape, dt, dev, words in cases:
            with self.subTest(shape=shape, dtype=dt, device=dev):
                with self.assertRaises(ValueError) as cm:
                    moe_plan.check_score("moe_gateup", 24, shape, dt, dev, "cuda:0")
                self.assertIn("swigen::moe_gateup", str(cm.exception))
                self.assertIn(words, str(cm.exception))

    def test_sum_score_partials(self) -> None:
        """Column order from +0.0, each add rounded to float32 (Go's
        launch.SumScorePartials): the cases where float64 differs."""
        eps = 2.0 ** -24  # half an ulp of 1.0 in float32
        cases = [  # partials -> dscore
            ([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], [6.0, -0.25]),
            ([], []),
            ([[1.0, eps, eps]], [1.0]),  # each add ties to even: float64 would give 1 + 2^-23
            ([[eps, eps, 1.0]], [1.0 + 2 * eps]),  # the order shows
            ([[0.1]], [0.10000000149011612]),  # the partial itself is float32
            ([[-0.0, -0.0]], [0.0]),  # +0.0 + -0.0 = +0.0, as from Go's zero
            ([[3e38, 3e38]], [float("inf")]),
        ]
        for part, want in cases:
            with self.subTest(part=part):
                got = moe_plan.sum_score_partials(part)
                self.assertEqual(got, want)
                self.assertEqual([math.copysign(1, v) for v in got], [math.copysign(1, v) for v in want])

    def test_sum_score_partials_shared(self) -> None:
        # testdata/score_partials.json: Go's launch.SumScorePartials reads
        # the same cases, so both sum a row in column order in fp32.
        with open(os.path.join(support.TESTDATA, "score_partials.json")) as f:
            cases = json.load(f)["cases"]
        for c in cases:
            with self.subTest(why=c["why"]):
                got = moe_plan.sum_score_partials(c["part"])
                bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in got]
                self.assertEqual(bits, c["dscore_bits"])


class PathTest(unittest.TestCase):
    def test_reference_names_kind(self) -> None:
        for op, (kind, variant) in moe_plan.GROUPED_KINDS.items():
            with self.subTest(op=op):
                path, why = moe_plan.grouped_path(op, [])
                self.assertEqual(path, REFERENCE)
                self.assertIn("torch._grouped_mm", why)
                emittable = kind in kinds_gen.GROUPED and moe_plan.launchable(op)
                flags = {"": "", "train": " --store-out", "out": " --store-out", "+score": " --score",
                         "train+score": " --store-out --score", "out+score": " --store-out --score"}[variant]
                # No wheel ships a _score kernel.
                self.assertEqual("install the wheel" in why, emittable and not variant.endswith("+score"), why)
                self.assertEqual("swigen emit --kernel %s%s --py-package" % (kind, flags) in why, emittable, why)
                self.assertEqual("has no %s" % kind in why, not emittable, why)

    def test_kinds_are_the_kernels(self) -> None:
        """The inference op runs the registry's grouped kind (a package
        registers its kernels under their manifests' kind names)."""
        self.assertEqual(moe_plan.GROUPED_KINDS["moe_gateup"], ("moe_fwd_gateup", ""))
        self.assertIn("moe_fwd_gateup", kinds_gen.GROUPED)

    def test_kernel_names_package(self) -> None:
        path, why = moe_plan.grouped_path("moe_gateup", ["pkg_a", "pkg_b"])
        self.assertEqual(path, KERNEL)
        self.assertIn("moe_fwd_gateup from package pkg_a", why)

    def test_launchable_ops(self) -> None:
        """An op launches its kernel where kinds_gen.OPS has its row (the
        registry's Ops entry): every grouped op has one."""
        self.assertEqual({op: moe_plan.launchable(op) for op in moe_plan.GROUPED_KINDS},
                         {"moe_gateup": True, "moe_gateup_train": True, "moe_dswiglu_out": True, "moe_down": True,
                          "moe_gateup_score": True, "moe_gateup_train_score": True, "moe_dswiglu_out_score": True,
                          "moe_wgrad": True})
        self.assertFalse(moe_plan.launchable("moe_gateup_other"))
        for op in moe_plan.GROUPED_KINDS:
            row = [r for r in kinds_gen.OPS + tuple(r[:5] for r in kinds_gen.SCORE_OPS) if r[0] == op]
            if row:
                self.assertEqual(row[0][1:3], moe_plan.GROUPED_KINDS[op])

    def test_refused(self) -> None:
        cases = [  # op, packages, reasons -> path, words of why
            ("moe_gateup_train", ["pkg_a"], None, KERNEL, "moe_fwd_gateup (train) from package pkg_a"),
            ("moe_dswiglu_out", ["p"], None, KERNEL, "moe_bwd_dswiglu (out) from package p"),
            ("moe_gateup", ["pkg_a", "pkg_b"], ["de extra", ""], KERNEL, "moe_fwd_gateup from package pkg_b"),
            ("moe_gateup", ["pkg_a", "pkg_b"], ["de extra", "no"], REFUSED, "from package pkg_a is registered but cannot be "
             "launched: de extra"),
            ("moe_gateup", [], [], REFERENCE, "swigen emit --kernel moe_fwd_gateup --py-package NAME"),
        ]
        for op, pkgs, whys, want, words in cases:
            with self.subTest(op=op, packages=pkgs, reasons=whys):
                path, why = moe_plan.grouped_path(op, pkgs, whys)
                self.assertEqual(path, want)
                self.assertIn(words, why)
        with self.assertRaisesRegex(ValueError, "grouped_path: 1 reasons for 2 packages: want one each"):
            moe_plan.grouped_path("moe_gateup", ["a", "b"], [""])

    def test_wheel(self) -> None:
        """The installed wheel's kernel (bundled) runs where no package is
        registered; a registered one, launchable or not, comes first."""
        cases = [  # op, packages, reasons -> path, words of why
            ("moe_gateup", [], [], KERNEL, "moe_fwd_gateup from package swigen_kernels (the installed wheel: cfg)"),
            ("moe_dswiglu_out", [], [], KERNEL, "moe_bwd_dswiglu (out) from package swigen_kernels (the installed wheel: cfg)"),
            ("moe_gateup", ["p"], [""], KERNEL, "moe_fwd_gateup from package p"),
            ("moe_gateup", ["p"], ["de extra"], REFUSED, "from package p is registered but cannot be launched: de extra"),
        ]
        for op, pkgs, whys, want, words in cases:
            with self.subTest(op=op, packages=pkgs, reasons=whys):
                path, why = moe_plan.grouped_path(op, pkgs, whys, ["cfg"])
                self.assertEqual(path, want)
                self.assertIn(words, why)


class TrainForTest(unittest.TestCase):
    """moe_gateup with only the training package: its kernel, de dropped
    (SwiGLUMLP's no-grad rule, modes.forward_kernel)."""

    def test_train_ops_fit(self) -> None:
        """A TRAIN_FOR op has the op's kind and inputs, and its outputs
        start with the op's (the kernel's extras are dropped from the end)."""
        self.assertEqual(moe_plan.TRAIN_FOR, {"moe_gateup": "moe_gateup_train", "moe_gateup_score": "moe_gateup_train_score"})
        ops = {r[0]: r for r in kinds_gen.OPS + tuple(r[:5] for r in kinds_gen.SCORE_OPS)}
        for op, train in moe_plan.TRAIN_FOR.items():
            with self.subTest(op=op):
                self.assertEqual(ops[op][1], ops[train][1])
                self.assertEqual(ops[op][3], ops[train][3])
                self.assertEqual(ops[train][4][:len(ops[op][4])], ops[op][4])
                self.assertGreater(len(ops[train][4]), len(ops[op][4]))
                self.assertIn(moe_plan.GROUPED_KINDS[train][1], ("train", "train+score"))

    def test_choose(self) -> None:
        ref = moe_plan.grouped_path("moe_gateup", [])
        ref_train = moe_plan.grouped_path("moe_gateup_train", [])
        inf = moe_plan.grouped_path("moe_gateup", ["pkg_inf"])
        inf_bad = moe_plan.grouped_path("moe_gateup", ["pkg_inf"], ["buffers differ"])
        tr = moe_plan.grouped_path("moe_gateup_train", ["pkg_tr"])
        tr_bad = moe_plan.grouped_path("moe_gateup_train", ["pkg_tr"], ["no de"])
        cases = [  # own, train -> path, the op that runs, words of why
            (ref, ref_train, REFERENCE, "moe_gateup", "--kernel moe_fwd_gateup --store-out (training) runs it too"),
            (inf, ref_train, KERNEL, "moe_gateup", "moe_fwd_gateup from package pkg_inf"),
            (inf, tr, KERNEL, "moe_gateup", "moe_fwd_gateup from package pkg_inf"),  # inference keeps priority
            (ref, tr, KERNEL, "moe_gateup_train", "the train kernel, de dropped: moe_fwd_gateup (train) from package pkg_tr"),
            # A registered package that cannot launch is refused, not passed over.
            (inf_bad, tr, REFUSED, "moe_gateup", "pkg_inf is registered but cannot be launched: buffers differ"),
            (ref, tr_bad, REFUSED, "moe_gateup_train", "the train kernel, de dropped would run: moe_fwd_gateup (train) "
             "from package pkg_tr is registered but cannot be launched: no de"),
            (inf, tr_bad, KERNEL, "moe_gateup", "from package pkg_inf"),
        ]
        for own, train, want, run, words in cases:
            with self.subTest(own=own[0], train=train[0], words=words):
                path, why, got_run = moe_plan.choose_path("moe_gateup", own, train)
                self.assertEqual((path, got_run), (want, run), why)
                self.assertIn(words, why)
        self.assertTrue(moe_plan.choose_path("moe_gateup", ref, tr)[1].startswith(moe_plan.TRAIN_DROP_DE))

    def test_other_ops_run_their_own(self) -> None:
        for op in ("moe_gateup_train", "moe_dswiglu_out"):
            with self.subTest(op=op):
                own = moe_plan.grouped_path(op, [])
                self.assertEqual(moe_plan.choose_path(op, own, None), own + (op,))
                self.assertEqual(moe_plan.choose_path(op, own, moe_plan.grouped_path("moe_gateup_train", ["p"])),
                                 own + (op,))


class ConverterTest(unittest.TestCase):
    def test_gate_up_rows(self) -> None:
        rows = moe_plan.gate_up_rows(3)
        self.assertEqual(rows, [("up", 0), ("up", 1), ("up", 2), ("gate", 0), ("gate", 1), ("gate", 2)])

    def test_hf_keys(self) -> None:
        self.assertEqual(moe_plan.hf_expert_keys("model.layers.3.mlp.", 17),
                         ("model.layers.3.mlp.experts.17.gate_proj.weight", "model.layers.3.mlp.experts.17.up_proj.weight",
                          "model.layers.3.mlp.experts.17.down_proj.weight"))


class RoutingTest(unittest.TestCase):
    def test_offs_round_trip(self) -> None:
        rng = random.Random(5)
        for _ in range(50):
            counts = [rng.choice([0, 0, 1, rng.randrange(200)]) for _ in range(rng.randrange(1, 40))]
            offs = moe_plan.counts_to_offs(counts)
            self.assertEqual(len(offs), len(counts))
            self.assertEqual(offs[-1], sum(counts))
            self.assertEqual(moe_plan.offs_to_counts(offs), counts)

    def test_offs_bad(self) -> None:
        with self.assertRaisesRegex(ValueError, "expert 1 has -2 rows"):
            moe_plan.counts_to_offs([3, -2])
        with self.assertRaisesRegex(ValueError, r"offs\[2\] = 4 < offs\[1\] = 5"):
            moe_plan.offs_to_counts([1, 5, 4])

    def test_uniform(self) -> None:
        self.assertEqual(moe_plan.uniform_counts(10, 4), [3, 3, 2, 2])
        self.assertEqual(moe_plan.uniform_counts(0, 3), [0, 0, 0])
        self.assertEqual(sum(moe_plan.uniform_counts(65536, 128)), 65536)

    def test_zipf(self) -> None:
        c = moe_plan.zipf_counts(65536, 128)
        self.assertEqual(sum(c), 65536)
        self.assertEqual(c, sorted(c, reverse=True))
        self.assertGreater(c[0], 20 * c[-1])

    def test_zipf_cap(self) -> None:
        # 8192 tokens, top-8 of 128: no expert can hold more than 8192 rows.
        c = moe_plan.zipf_counts(8192 * 8, 128, cap=8192)
        self.assertEqual(sum(c), 8192 * 8)
        self.assertEqual(max(c), 8192)
        self.assertTrue(all(x >= 0 for x in c))
        with self.assertRaisesRegex(ValueError, "cannot place every row"):
            moe_plan.zipf_counts(100, 4, cap=24)

    def test_sort_by_expert(self) -> None:
        order, offs = moe_plan.sort_by_expert([2, 0, 2, 1, 0], 4)
        self.assertEqual(order, [1, 4, 3, 0, 2])  # stable within an expert
        self.assertEqual(offs, [2, 3, 5, 5])  # expert 3 empty
        with self.assertRaisesRegex(ValueError, "row 1 routes to expert 4"):
            moe_plan.sort_by_expert([0, 4], 4)


class StepBytesTest(unittest.TestCase):
    GIB = 2 ** 30

    def test_bench_shapes(self) -> None:
        # rows = tokens x top-k; GiB of the step's peak (y held) per
        # docs/PERFORMANCE.md#moe-layer-memory. Before the fix the peak was
        # 2.00 / 4.62 GiB at Qwen3-30B-A3B (measured on an H100).
        cases = [  # rows, H, I, E -> order, saved, peak (GiB)
            (8192 * 8, 2048, 768, 128, moe_plan.DW_DOWN_LAST, 0.1875, 1.71875),
            (32768 * 8, 2048, 768, 128, moe_plan.DW_DOWN_FIRST, 0.75, 3.875),
            (4096 * 8, 7168, 2048, 256, moe_plan.DW_DOWN_LAST, 0.25, 22.0),
            (16384 * 8, 7168, 2048, 256, moe_plan.DW_DOWN_LAST, 1.0, 25.0),
        ]
        for rows, H, I, E, order, saved, peak in cases:  # noqa: E741
            with self.subTest(rows=rows, H=H):
                got = moe_plan.step_bytes(rows, H, I, E)
                self.assertEqual((got.order, got.saved / self.GIB, got.peak / self.GIB), (order, saved, peak))

    def test_order_is_the_lower_peak(self) -> None:
        for rows in (0, 1, 7, 63, 64, 65, 100, 500, 2048, 4096, 5000):
            for H, I, E in itertools.product((8, 16, 64), (8, 24, 136), (1, 2, 4, 8)):  # noqa: E741
                with self.subTest(rows=rows, H=H, I=I, E=E):
                    first = moe_plan.step_bytes(rows, H, I, E, order=moe_plan.DW_DOWN_FIRST).peak
                    last = moe_plan.step_bytes(rows, H, I, E, order=moe_plan.DW_DOWN_LAST).peak
                    self.assertEqual(moe_plan.step_bytes(rows, H, I, E).peak, min(first, last))
                    want = moe_plan.DW_DOWN_LAST if last < first else moe_plan.DW_DOWN_FIRST
                    self.assertEqual(moe_plan.dw_down_order(rows, H, I, E), want)

    def test_refusals(self) -> None:
        for args, kw, words in [((-1, 8, 8, 1), {}, "T=-1"), ((8, 8, 0, 1), {}, "I=0"),
                                ((8, 8, 8, 1), {"order": "middle"}, "order='middle'")]:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, "step_bytes: .*" + words):
                    moe_plan.step_bytes(*args, **kw)


if __name__ == "__main__":
    unittest.main()

"""swigen_rt.modes: what SwiGLUMLP runs in each mode and when its backward
writes grad_de over de; pure (no torch, no GPU)."""

from __future__ import annotations

import unittest

import support  # noqa: F401

from swigen_rt import modes
from swigen_rt.modes import FWD_INFER, FWD_TRAIN, FWD_TRAIN_DROP_DE, Kernels, MissingKernel

ARCH, DT = "sm_90a", "bfloat16"


class ForwardKernelTest(unittest.TestCase):
    def test_table(self) -> None:
        cases = [
            # grad, train, infer, bwd -> mode
            (True, True, False, True, FWD_TRAIN),
            (True, True, True, True, FWD_TRAIN),
            (False, True, False, False, FWD_TRAIN_DROP_DE),  # no_grad with the training package alone
            (False, True, False, True, FWD_TRAIN_DROP_DE),
            (False, True, True, True, FWD_INFER),  # the inference kernel where registered
            (False, False, True, False, FWD_INFER),
        ]
        for grad, train, infer, bwd, want in cases:
            with self.subTest(grad=grad, train=train, infer=infer, bwd=bwd):
                self.assertEqual(modes.forward_kernel(grad, Kernels(train=train, infer=infer, bwd=bwd), ARCH, DT), want)

    def test_missing_names_the_emit(self) -> None:
        cases = [
            # grad, kernels, substrings the error must name
            (True, Kernels(train=False, infer=True, bwd=True), ["fwd_gateup", "--store-out", "training"]),
            (True, Kernels(train=True, infer=True, bwd=False), ["bwd_dswiglu", "--store-out --major-b mn"]),
            (True, Kernels(train=False, infer=False, bwd=False), ["fwd_gateup", "bwd_dswiglu"]),
            (False, Kernels(train=False, infer=False, bwd=True), ["no fwd_gateup kernel for sm_90a bfloat16",
                                                                 "--kernel fwd_gateup --py-package",
                                                                 "--kernel fwd_gateup --store-out"]),
        ]
        for grad, have, want in cases:
            with self.subTest(grad=grad, have=have):
                with self.assertRaises(MissingKernel) as cm:
                    modes.forward_kernel(grad, have, ARCH, DT)
                self.assertIsInstance(cm.exception, ValueError)
                for w in want:
                    self.assertIn(w, str(cm.exception))

    def test_other_dtype_names_the_registered_ones(self) -> None:
        with self.assertRaises(MissingKernel) as cm:
            modes.forward_kernel(False, Kernels(train=False, infer=False, bwd=False), ARCH, "float32",
                                 ("bfloat16", "float16"))
        self.assertIn("x is float32", str(cm.exception))
        self.assertIn("read bfloat16, float16", str(cm.exception))
        self.assertIn("torch.autocast", str(cm.exception))
        # A kernel of the dtype registered: the usual rules, not the dtype error.
        self.assertEqual(modes.forward_kernel(False, Kernels(train=True, infer=False, bwd=False), ARCH, "float16",
                                              ("bfloat16",)), FWD_TRAIN_DROP_DE)

    def test_training_does_not_need_the_inference_kernel(self) -> None:
        # Only bwd missing must not mention the inference kernel.
        with self.assertRaises(MissingKernel) as cm:
            modes.forward_kernel(True, Kernels(train=True, infer=False, bwd=False), ARCH, DT)
        self.assertNotIn("fwd_gateup", str(cm.exception))


class InPlaceTest(unittest.TestCase):
    def rule(self, **kw: object) -> bool:
        args = {"keep_graph": False, "compiling": False, "hooks": False, "de_refs": 0, "de_version": 3,
                "saved_version": 3}
        args.update(kw)
        ok, why = modes.grad_de_in_place(**args)  # type: ignore[arg-type]
        self.assertTrue(why.startswith("in place" if ok else "out of place"), why)
        return ok

    def test_plain_backward_is_in_place(self) -> None:
        self.assertTrue(self.rule())

    def test_each_holder_forces_out_of_place(self) -> None:
        cases = {
            "retain_graph / create_graph": {"keep_graph": True},
            "torch.compile": {"compiling": True},
            "saved-tensor hooks": {"hooks": True},
            "a view of de": {"de_refs": 1},
            "two views": {"de_refs": 2},
            "de modified": {"de_version": 4},
        }
        for what, kw in cases.items():
            with self.subTest(what):
                self.assertFalse(self.rule(**kw))

    def test_reasons_name_the_cause(self) -> None:
        _, why = modes.grad_de_in_place(True, False, False, 0, 0, 0)
        self.assertIn("retain_graph", why)
        _, why = modes.grad_de_in_place(False, False, False, 2, 0, 0)
        self.assertIn("2 other references", why)
        _, why = modes.grad_de_in_place(False, False, False, 0, 5, 4)
        self.assertIn("version 5, saved 4", why)


class AutocastTest(unittest.TestCase):
    def test_table(self) -> None:
        cases = [
            # enabled, autocast dtype, kernel dtypes, input dtype -> cast to
            (False, "bfloat16", ("bfloat16",), "float32", None),
            (True, "bfloat16", ("bfloat16",), "float32", "bfloat16"),
            (True, "bfloat16", ("bfloat16",), "bfloat16", None),  # already
            (True, "float16", ("bfloat16",), "float32", None),  # no kernel reads it: the op names the dtypes
            (True, "float16", ("bfloat16", "float16"), "bfloat16", "float16"),
        ]
        for enabled, ac, have, dt, want in cases:
            with self.subTest(enabled=enabled, autocast=ac, have=have, dtype=dt):
                self.assertEqual(modes.autocast_dtype(enabled, ac, have, dt), want)


class OptionsTest(unittest.TestCase):
    def test_dx_paths(self) -> None:
        self.assertFalse(modes.dx_halves("one"))
        self.assertTrue(modes.dx_halves("halves"))
        with self.assertRaises(ValueError) as cm:
            modes.dx_halves("split")
        self.assertIn("one, halves", str(cm.exception))

    def test_double_backward_message(self) -> None:
        self.assertIn("create_graph=True", modes.DOUBLE_BACKWARD)
        self.assertIn("not supported", modes.DOUBLE_BACKWARD)



MIB = 2 ** 20 // 2  # bf16 elements a MiB
SHAPES = [(16384, 768, 4608), (8192, 4096, 14336), (4096, 4096, 7168), (2048, 4096, 3584), (128, 4096, 14336),
          (8192, 8192, 28672), (512, 7168, 2048), (2048, 2048, 768), (4096, 7168, 2048), (3000, 2048, 5632),
          (4096, 3072, 8192), (1000, 4096, 1024), (64, 64, 64)]


class DwDownOrderTest(unittest.TestCase):
    def valid(self, m: int, k: int, in_place: bool) -> list:
        orders = [modes.DW_DOWN_FIRST, modes.DW_DOWN_LAST]
        if in_place and k <= 2 * m:
            orders.append(modes.DW_DOWN_OVER_GRAD_DE)
        return orders

    def test_chosen_order_has_the_lowest_peak(self) -> None:
        for m, k, i in SHAPES:
            for in_place in (True, False):
                got = modes.dw_down_order(m, k, i, in_place)
                self.assertIn(got, self.valid(m, k, in_place))
                peaks = {o: modes.backward_peak(m, k, i, o, in_place) for o in self.valid(m, k, in_place)}
                self.assertEqual(peaks[got], min(peaks.values()), (m, k, i, in_place, peaks))
                # Never above today's order (dW_down first) at any shape.
                self.assertLessEqual(peaks[got], peaks[modes.DW_DOWN_FIRST], (m, k, i, in_place))

    def test_lower_exactly_where_m_below_k(self) -> None:
        for m, k, i in SHAPES:
            first = modes.backward_peak(m, k, i, modes.DW_DOWN_FIRST, False)
            got = modes.backward_peak(m, k, i, modes.dw_down_order(m, k, i, False), False)
            self.assertEqual(got < first, m < k, (m, k, i))

    def test_2048_4096_3584_in_place(self) -> None:
        # y 16 MiB and de 28 MiB before the backward; torch.compile's step peaks at 130 MiB there.
        m, k, i = 2048, 4096, 3584
        before = (m * k + 2 * m * i) // MIB
        self.assertEqual(modes.dw_down_order(m, k, i, True), modes.DW_DOWN_OVER_GRAD_DE)
        self.assertEqual(before + modes.backward_peak(m, k, i, modes.DW_DOWN_FIRST, True) // MIB, 144)
        self.assertEqual(before + modes.backward_peak(m, k, i, modes.DW_DOWN_OVER_GRAD_DE, True) // MIB, 130)

    def test_k_above_2m_keeps_first_in_place(self) -> None:
        # dW_down does not fit in de's storage, and a new one beside the held de costs more.
        self.assertEqual(modes.dw_down_order(128, 4096, 14336, True), modes.DW_DOWN_FIRST)
        self.assertEqual(modes.dw_down_order(128, 4096, 14336, False), modes.DW_DOWN_LAST)
        self.assertEqual(modes.dw_down_order(4096, 4096, 7168, True), modes.DW_DOWN_FIRST)


class MemoTest(unittest.TestCase):
    def setUp(self) -> None:
        self.calls = []  # type: list

    def f(self, a: int, b: str = "") -> str:
        self.calls.append((a, b))
        return "%d%s" % (a, b)

    def test_kept_per_arguments_and_generation(self) -> None:
        m = modes.Memo()
        steps = [
            # generation, args, computed again
            (0, (1,), True),
            (0, (1,), False),
            (0, (2,), True),
            (0, (1, "x"), True),
            (0, (2,), False),
            (1, (1,), True),  # a package registered: every value is computed again
            (1, (2,), True),
            (1, (1,), False),
            (0, (1,), True),  # an older generation (a caller that read it before the change)
        ]
        for gen, args, again in steps:
            with self.subTest(generation=gen, args=args):
                n = len(self.calls)
                self.assertEqual(m.call(self.f, gen, *args), self.f(*args))
                self.assertEqual(len(self.calls) - n, 2 if again else 1)

    def test_functions_kept_apart(self) -> None:
        m = modes.Memo()
        self.assertEqual(m.call(str, 0, 5), "5")
        self.assertEqual(m.call(repr, 0, "a"), "'a'")
        self.assertEqual(m.call(str, 0, "a"), "a")

    def test_errors_are_not_kept(self) -> None:
        m = modes.Memo()
        fails = [True]

        def f() -> int:
            if fails[0]:
                raise modes.MissingKernel("no kernel")
            return 7

        with self.assertRaises(modes.MissingKernel):
            m.call(f, 0)
        fails[0] = False
        self.assertEqual(m.call(f, 0), 7)

    def test_bounded(self) -> None:
        m = modes.Memo(limit=4)
        for a in range(10):
            m.call(self.f, 0, a)
        n = len(self.calls)
        m.call(self.f, 0, 9)  # the last is kept
        self.assertEqual(len(self.calls), n)
        m.call(self.f, 0, 0)  # the first was dropped
        self.assertEqual(len(self.calls), n + 1)


if __name__ == "__main__":
    unittest.main()

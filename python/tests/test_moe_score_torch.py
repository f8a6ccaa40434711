"""The router score's device-side pieces that need torch but no GPU: the
partials' sum (swigen_rt.moe._sum_score_partials) against
moe_plan.sum_score_partials bit for bit, the ops' refusal of a score
that is not float32, and the launch's float32 partials buffer. Skipped without torch (CI); the GPU's check is
tests/gpu/test_moe.py's ScoreKernelTest."""

from __future__ import annotations

import struct
import unittest

import support  # noqa: F401

try:
    import torch
except ImportError:  # CI: no torch
    torch = None  # type: ignore[assignment]


def bits(vs: "list[float]") -> "list[int]":
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in vs]


@unittest.skipIf(torch is None, "needs torch")
class SumPartialsTest(unittest.TestCase):
    def test_bitwise_the_pure_sum(self) -> None:
        """Random partials over six magnitudes (where the order of the adds
        shows), zeros of both signs, T = 0 and one column."""
        from swigen_rt import moe, moe_plan  # noqa: PLC0415

        g = torch.Generator().manual_seed(0)
        cases = {
            "mixed magnitudes": torch.randn(257, 11, generator=g) * torch.logspace(-3, 3, 11),
            "one column": torch.randn(5, 1, generator=g),
            "signed zeros": torch.tensor([[-0.0, -0.0], [0.0, -0.0]]),
            "no rows": torch.zeros(0, 3),
        }
        for name, part in cases.items():
            with self.subTest(name):
                part = part.float().contiguous()
                got = moe._sum_score_partials(part)
                self.assertEqual((got.dtype, tuple(got.shape)), (torch.float32, (part.shape[0],)))
                want = moe_plan.sum_score_partials(part.tolist())
                self.assertEqual(bits(got.tolist()), bits(want))

    def test_fp32_inputs_checked(self) -> None:
        """A _score kernel's op refuses a score of another dtype (no tensor
        map names its dtype), naming the op, the tensor and the rule."""
        from swigen_rt import ops, opspec  # noqa: PLC0415
        from swigen_rt.manifest import ShapeError  # noqa: PLC0415

        spec = opspec.OPS["moe_dswiglu_out_score"]
        ops._check_fp32(spec, {"score": torch.zeros(4), "dy": torch.zeros(4, 8, dtype=torch.bfloat16)})
        for dt in (torch.bfloat16, torch.float64):
            with self.subTest(dtype=dt):
                with self.assertRaisesRegex(ShapeError, "swigen::moe_dswiglu_out_score: tensor score is %s: the kernel "
                                            "reads float32" % dt):
                    ops._check_fp32(spec, {"score": torch.zeros(4, dtype=dt)})


@unittest.skipIf(torch is None, "needs torch")
class RunOutputsTest(unittest.TestCase):
    def test_fp32_outputs_and_pointer_order(self) -> None:
        """ops._run on a resolved _score backward call (its selection and
        the device stood in for): dscore_part is allocated float32, the
        others in dy's dtype, and the launch gets the addresses in the
        op's order, inputs then outputs (the Launcher's names)."""
        import types  # noqa: PLC0415
        from unittest import mock  # noqa: PLC0415

        from swigen_rt import ops, opspec  # noqa: PLC0415

        spec = opspec.OPS["moe_dswiglu_out_score"]
        T, K, I, E = 32, 16, 24, 2  # noqa: E741
        bf = torch.bfloat16
        args = (torch.zeros(T, K, dtype=bf), torch.zeros(E, K, I, dtype=bf), torch.zeros(T, 2 * I, dtype=bf),
                torch.tensor([10, T], dtype=torch.int32), torch.zeros(T))
        launched = []
        launcher = types.SimpleNamespace(names=spec.inputs + spec.outputs, launch=lambda s, p: launched.append((s, list(p))))
        call = ops._Call(entry=None, sizes={"T": T, "K": K, "I": I, "E": E},  # type: ignore[arg-type]
                         outputs=((T, 2 * I), (T, I), (T, 1)), dtype=bf, device=torch.device("cpu"), index=0, fused=True,
                         launcher=launcher, out_dtypes=tuple(torch.float32 if n in spec.fp32 else None for n in spec.outputs))
        with mock.patch.object(ops, "_cached_call", lambda op, a, key: call), \
                mock.patch.object(ops, "_current_stream", lambda device: 7):
            outs = ops._run(spec.name, args)
        self.assertEqual([(tuple(o.shape), o.dtype) for o in outs], [((T, 2 * I), bf), ((T, I), bf), ((T, 1), torch.float32)])
        self.assertEqual(launched, [(7, [t.data_ptr() for t in args + tuple(outs)])])


if __name__ == "__main__":
    unittest.main()

"""The router score's device-side pieces that need torch but no GPU: the
partials' sum (swigen_rt.moe._sum_score_partials) against
moe_plan.sum_score_partials bit for bit, and the ops' refusal of a score
that is not float32. Skipped without torch (CI); the GPU's check is
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


if __name__ == "__main__":
    unittest.main()

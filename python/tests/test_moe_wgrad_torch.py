"""swigen::moe_wgrad's reference path on the CPU (no package registered):
dW[e] = A_e^T @ B_e over each expert's rows, zeros for an empty expert,
its fake kernel's shape and its refusals. Skipped without torch (CI); the
kernel path is tests/gpu's and lab/check's TestGPUMoEWgrad."""

from __future__ import annotations

import unittest

import support  # noqa: F401

try:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from swigen_rt import moe
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]


@unittest.skipIf(torch is None, "needs torch")
class MoeWgradTorchTest(unittest.TestCase):
    def setUp(self) -> None:
        g = torch.Generator().manual_seed(3)
        self.counts = [0, 5, 0, 17, 1, 0]
        T = sum(self.counts)
        self.A = torch.randn(T, 16, generator=g).bfloat16()
        self.B = torch.randn(T, 24, generator=g).bfloat16()
        ends = torch.tensor(self.counts).cumsum(0)
        self.offs = ends.to(torch.int32)

    def test_reference_per_expert(self) -> None:
        got = torch.ops.swigen.moe_wgrad(self.A, self.B, self.offs)
        self.assertEqual(tuple(got.shape), (len(self.counts), 16, 24))
        self.assertEqual(got.dtype, torch.bfloat16)
        row0 = 0
        for e, n in enumerate(self.counts):
            want = self.A[row0:row0 + n].float().t() @ self.B[row0:row0 + n].float()
            torch.testing.assert_close(got[e].float(), want, atol=0.05, rtol=0.02, msg="expert %d" % e)
            if n == 0:
                self.assertEqual(int(torch.count_nonzero(got[e])), 0, "empty expert %d" % e)
            row0 += n

    def test_fake(self) -> None:
        with FakeTensorMode() as mode:
            A, B, offs = (mode.from_tensor(t) for t in (self.A, self.B, self.offs))
            got = torch.ops.swigen.moe_wgrad(A, B, offs)
        self.assertEqual(tuple(got.shape), (len(self.counts), 16, 24))

    def test_refusals(self) -> None:
        cases = [
            ((self.A, self.B[:-1], self.offs), "want A \\[T, N\\] and B \\[T, K\\]"),
            ((self.A, self.B, self.offs.long()), "offs is torch.int64: want int32"),
            ((self.A.float(), self.B, self.offs), "A is torch.float32: want bfloat16"),
        ]
        for args, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, "swigen::moe_wgrad: " + ".*" + words):
                    moe.moe_wgrad(*args)


if __name__ == "__main__":
    unittest.main()

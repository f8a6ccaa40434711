"""swigen_rt.elementwise's launch rule: Go's elementwise.Plan, pure."""

from __future__ import annotations

import struct
import unittest

import support  # noqa: F401
from swigen_rt import elementwise as ew


class PlanTest(unittest.TestCase):
    def test_entries(self) -> None:
        self.assertEqual(len(ew.entries()), 8)
        self.assertIn("swigen_dswiglu_bf16_vec8", ew.entries())
        self.assertEqual(ew.entry("swiglu", "float16", False), "swigen_swiglu_fp16_scalar")

    def test_rule(self) -> None:
        for op, dt, m, i, ptrs, sms, want in [
            ("dswiglu", "bfloat16", 4, 64, [16, 32, 48, 0], 132, ew.EwLaunch("swigen_dswiglu_bf16_vec8", 1)),
            ("dswiglu", "bf16", 4, 64, [16, 32, 50, 0], 132, ew.EwLaunch("swigen_dswiglu_bf16_scalar", 1)),
            ("swiglu", "fp16", 1000, 36, [16, 32], 132, ew.EwLaunch("swigen_swiglu_fp16_scalar", 141)),
            ("swiglu", "bf16", 8192, 14336, [0x1000, 0x2000], 132, ew.EwLaunch("swigen_swiglu_bf16_vec8", 132 * 64)),
            ("swiglu", "bf16", 1, 8, [16, 16], 0, ew.EwLaunch("swigen_swiglu_bf16_vec8", 1)),
        ]:
            with self.subTest(op=op, m=m, i=i):
                self.assertEqual(ew.plan(op, dt, m, i, ptrs, sms), want)

    def test_errors(self) -> None:
        for args, want in [(("x", "bf16", 1, 8, [], 1), "op 'x'"), (("swiglu", "float32", 1, 8, [], 1), "dtype"),
                           (("swiglu", "bf16", 0, 8, [], 1), "M=0"), (("swiglu", "bf16", 1, 1 << 31, [], 1), "2\\^31")]:
            with self.subTest(args=args):
                with self.assertRaisesRegex(ValueError, want):
                    ew.plan(*args)

    def test_pack(self) -> None:
        data, offs = ew.pack_params("dswiglu", [1, 2, 3, 0], 5, 6)
        self.assertEqual(offs, (0, 8, 16, 24, 32, 36))
        self.assertEqual(struct.unpack("<4Qii", data), (1, 2, 3, 0, 5, 6))
        data, offs = ew.pack_params("swiglu", [7, 8], 9, 10)
        self.assertEqual((offs, struct.unpack("<2Qii", data)), ((0, 8, 16, 20), (7, 8, 9, 10)))
        with self.assertRaises(ValueError):
            ew.pack_params("swiglu", [1], 1, 1)


if __name__ == "__main__":
    unittest.main()

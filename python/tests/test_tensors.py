"""Tensor checks and size inference on stand-ins for torch tensors."""

from __future__ import annotations

import os
import unittest
from typing import Any, Dict

import support
from support import FakeDevice, FakeTensor
from swigen_rt.manifest import Manifest, ShapeError
from swigen_rt.tensors import check_tensors, infer_sizes

EXAMPLE = os.path.join(support.REPO_DIR, "examples", "kernels",
                       "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k.json")
GEMM = os.path.join(support.REPO_DIR, "manifest", "testdata", "gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc.json")


def bwd_tensors(M: int = 777, K: int = 520, I: int = 1000, **over: Any) -> Dict[str, Any]:  # noqa: E741
    base = 0x7F0000000000
    t = {"dy": FakeTensor((M, K), base + (1 << 32)), "W_down": FakeTensor((I, K), base + (2 << 32)),
         "de": FakeTensor((M, 2 * I), base + (3 << 32)), "grad_de": FakeTensor((M, 2 * I), base + (4 << 32))}
    t.update(over)
    return t


class TensorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.m = Manifest.load(EXAMPLE)

    def test_infer_and_check(self) -> None:
        t = bwd_tensors()
        sizes = infer_sizes(self.m, t)
        self.assertEqual(sizes, {"M": 777, "K": 520, "I": 1000})
        ptrs, dev = check_tensors(self.m, t, sizes)
        self.assertEqual(dev, 0)
        self.assertEqual(ptrs["de"], t["de"].data_ptr())

    def test_gemm_sizes_from_mn_major_operands(self) -> None:
        m = Manifest.load(GEMM)  # A [K,M], B [K,N], C [M,N]
        t = {"A": FakeTensor((64, 24), 16), "B": FakeTensor((64, 40), 32), "C": FakeTensor((24, 40), 48)}
        self.assertEqual(infer_sizes(m, t), {"M": 24, "N": 40, "K": 64})

    def test_size_one_dims_have_free_strides(self) -> None:
        t = bwd_tensors(M=1, dy=FakeTensor((1, 520), 1 << 40, stride=(9999, 1)))
        check_tensors(self.m, t, infer_sizes(self.m, t))

    def test_rejects(self) -> None:
        base = 0x7F0100000000
        tests = [
            ("disagreeing sizes", bwd_tensors(dy=FakeTensor((778, 520), base)), "size M: tensor dy says 778, tensor de says 777"),
            ("missing", {k: v for k, v in bwd_tensors().items() if k != "de"}, "tensor de not given (de [M,2I] as [M][2][I]"),
            ("extra", bwd_tensors(out=FakeTensor((777, 1000), base)), "tensors out are not the kernel's: it takes dy, W_down, de, grad_de"),
            ("dtype", bwd_tensors(dy=FakeTensor((777, 520), base, dtype="torch.float16")), "tensor dy is float16: the kernel reads bfloat16"),
            ("cpu", bwd_tensors(dy=FakeTensor((777, 520), base, device=FakeDevice("cpu", None))), "tensor dy is on cpu: want a CUDA tensor"),
            ("two devices", bwd_tensors(de=FakeTensor((777, 2000), base, device=FakeDevice("cuda", 1))),
             "tensor de is on cuda:1, tensor dy on cuda:0: want one device"),
            ("shape", bwd_tensors(de=FakeTensor((777, 1000), base)), "tensor de has shape [777, 1000], want [M, 2*I] = [777, 2000] at M=777, K=520, I=1000"),
            ("rank", bwd_tensors(dy=FakeTensor((777, 520, 1), base)), "tensor dy has 3 dims [777, 520, 1], want 2"),
            ("strides", bwd_tensors(dy=FakeTensor((777, 520), base, stride=(1, 777))), "tensor dy has strides [1, 777]: want it row-major contiguous"),
            ("alignment", bwd_tensors(dy=FakeTensor((777, 520), base + 8)), "tensor dy at 0x7f0100000008 is not 16-byte aligned (TMA)"),
        ]
        for name, t, want in tests:
            with self.subTest(name):
                with self.assertRaises(ShapeError) as cm:
                    check_tensors(self.m, t, infer_sizes(self.m, t))
                self.assertIn(want, str(cm.exception))
                self.assertTrue(str(cm.exception).startswith(self.m.name + ": "))

    def test_explicit_sizes_checked_against_shapes(self) -> None:
        with self.assertRaises(ShapeError) as cm:
            check_tensors(self.m, bwd_tensors(), {"M": 777, "K": 520, "I": 992})
        self.assertIn("tensor W_down has shape [1000, 520], want [I, K] = [992, 520]", str(cm.exception))


if __name__ == "__main__":
    unittest.main()

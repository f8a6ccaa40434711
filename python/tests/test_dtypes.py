"""The operand types' facts: one table (kinds_gen.DTYPES, generated from
tiling/dtype.go) that every module of the runtime reads."""

from __future__ import annotations

import unittest

import support  # noqa: F401
from swigen_rt import elementwise, kinds_gen, select, tensormap, tensors


class DTypesTest(unittest.TestCase):
    def test_table(self) -> None:
        self.assertEqual([d[0] for d in kinds_gen.DTYPES], ["bf16", "fp16"])
        for name, torch_name, size, tma, _ in kinds_gen.DTYPES:
            with self.subTest(dtype=name):
                self.assertEqual(select.DTYPE_OF_TORCH[torch_name], name)
                self.assertEqual(tensors._ELEM_BYTES[tma], size)
                self.assertEqual(tensors._TORCH_OF_TMA[tma], torch_name)
                self.assertIn(tma, tensormap.DTYPES)

    def test_driver_enums(self) -> None:
        # CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, _BFLOAT16 = 9 (cuda.h).
        self.assertEqual(tensormap.DTYPES, {"float16": 6, "bfloat16": 9})

    def test_helpers(self) -> None:
        self.assertEqual(elementwise.DTYPES, tuple(d[0] for d in kinds_gen.DTYPES if d[4]))
        for name, torch_name, _, _, _ in kinds_gen.DTYPES:
            self.assertEqual(elementwise.entry("swiglu", torch_name, True), "swigen_swiglu_%s_vec8" % name)

    def test_facts_read_the_size(self) -> None:
        t = select.SelectionTable.__new__(select.SelectionTable)
        t.h200_sms, t.wide_n, t.wide_gain, t.b200_half = 132, 192, 0, 74
        t.l2_keep_max = 2 * 1024 * 1024
        # I*K = 1M elements: 2 MB of a 2-byte type is at the bound.
        self.assertTrue(t.facts(1024, 1024, 1024, "bf16")[1])
        self.assertFalse(t.facts(1024, 1024, 1025, "fp16")[1])


if __name__ == "__main__":
    unittest.main()

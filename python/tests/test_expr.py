"""The expression grammar's shared cases (manifest/testdata/expr_cases.json)."""

from __future__ import annotations

import json
import os
import unittest

import support
from swigen_rt import expr

CASES = os.path.join(support.REPO_DIR, "manifest", "testdata", "expr_cases.json")


class ExprCasesTest(unittest.TestCase):
    def test_shared_cases(self) -> None:
        with open(CASES, encoding="utf-8") as f:
            table = json.load(f)
        self.assertTrue(table["cases"])
        for i, case in enumerate(table["cases"]):
            src = case["expr"]
            sizes = case["sizes"] if "sizes" in case else table["default_sizes"]
            with self.subTest(i=i, expr=src):
                self.assertNotEqual("value" in case, "error" in case, "give exactly one of value and error")
                if "error" in case:
                    with self.assertRaises(expr.ExprError) as cm:
                        expr.evaluate(src, sizes)
                    self.assertIn(case["error"], str(cm.exception))
                    self.assertIsInstance(cm.exception, ValueError)
                else:
                    self.assertEqual(expr.evaluate(src, sizes), case["value"])
                if case.get("check_error", False):
                    with self.assertRaises(expr.ExprError):
                        expr.check(src)
                else:
                    expr.check(src)

    def test_message_names_expression(self) -> None:
        with self.assertRaises(expr.ExprError) as cm:
            expr.evaluate("cdiv(M,0)", {"M": 3})
        self.assertEqual(str(cm.exception), 'expression "cdiv(M,0)": cdiv(3, 0): divisor must be positive')

    def test_go_quote(self) -> None:
        for s, want in [("a", '"a"'), ('"', '"\\""'), ("\t", '"\\t"'), ("\x01", '"\\x01"'), ("é", '"é"')]:
            self.assertEqual(expr.go_quote(s), want)


if __name__ == "__main__":
    unittest.main()

"""swigen_rt.ops' decisions that need torch but no GPU: when a call may
skip the dispatcher, and CPU inputs refused with ValueError. Skipped
without torch (CI); the GPU behaviour is tests/gpu/test_torch_ops.py's."""

from __future__ import annotations

import unittest
from typing import Any, List

import support  # noqa: F401

try:
    import torch
except ImportError:  # CI: no torch
    torch = None  # type: ignore[assignment]


@unittest.skipIf(torch is None, "needs torch")
class DirectTest(unittest.TestCase):
    def setUp(self) -> None:
        from swigen_rt import ops  # noqa: PLC0415  (registers torch.ops.swigen.*)

        self.ops = ops
        self.t = torch.ones(4, 4)

    def direct(self, args: Any) -> bool:
        return self.ops._direct_scan("gemm", args) is not None

    def test_plain_eager_is_direct(self) -> None:
        self.assertTrue(self.direct((self.t, torch.nn.Parameter(torch.ones(4, 4), requires_grad=False))))

    def test_dispatcher_needed(self) -> None:
        from torch.overrides import TorchFunctionMode  # noqa: PLC0415
        from torch.utils._python_dispatch import TorchDispatchMode  # noqa: PLC0415

        class FMode(TorchFunctionMode):
            def __torch_function__(self, f: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                return f(*args, **(kwargs or {}))

        class DMode(TorchDispatchMode):
            def __torch_dispatch__(self, f: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                return f(*args, **(kwargs or {}))

        g = torch.ones(4, 4, requires_grad=True)
        self.assertFalse(self.direct((self.t, g)), "an input needs grad")
        with torch.no_grad():
            self.assertTrue(self.direct((self.t, g)), "no grad mode: nothing to record")
        with FMode():
            self.assertFalse(self.direct((self.t,)), "a torch function mode sees torch.ops calls")
        with DMode():
            self.assertFalse(self.direct((self.t,)), "a dispatch mode")
        seen: List[bool] = []

        def f(x: Any) -> Any:
            seen.append(self.direct((x,)))
            return x * 2

        torch.jit.trace(f, (self.t,), check_trace=False)
        self.assertEqual(seen, [False], "torch.jit.trace records only what goes through the dispatcher")
        self.assertFalse(self.direct((torch.ones(4, 4).as_subclass(_Sub),)), "a tensor subclass")

    def test_cpu_inputs_are_value_errors(self) -> None:
        for call in (lambda: torch.ops.swigen.gemm(self.t, self.t), lambda: self.ops.gemm(self.t, self.t)):
            with self.assertRaises(ValueError) as cm:
                call()
            self.assertIn("want a CUDA tensor", str(cm.exception))

    def test_inputs_without_storage_are_value_errors(self) -> None:
        # A sparse tensor has no data pointer: the fast path's address scan
        # leaves it to check_input to name.
        with self.assertRaises(ValueError) as cm:
            self.ops.gemm(torch.eye(16).to_sparse(), self.t)
        self.assertIn("A", str(cm.exception))


if torch is not None:
    class _Sub(torch.Tensor):
        pass


if __name__ == "__main__":
    unittest.main()

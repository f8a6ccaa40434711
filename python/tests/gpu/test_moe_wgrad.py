"""swigen::moe_wgrad on a registered moe_wgrad kernel (the K-grouped weight
gradient, sm_90a), where SWIGEN_MOE_WGRAD_PACKAGE names a package emitted
with swigen emit --kernel moe_wgrad (bench/moe_py_check.sh): both of the
layer's weight gradients (W's: A = grad_de [T, 2I], B = x [T, H]; W_down's:
A = dy [T, H], B = out [T, I]) at gpu.test_moe's routings against the
float64 loop, empty experts exactly zero, two launches bitwise equal,
CUDA-graph replay with new offs, SwiGLUExperts' step with its weight
gradients on the kernel, opcheck. Skipped without torch, CUDA or
the package.
"""

from __future__ import annotations

import os
import unittest
from typing import Any, List

import support  # noqa: F401

from gpu.test_moe import E, H, I, READY, TOL, case, reference, rel, routings, weights  # noqa: E741

if READY:
    import torch

    from swigen_rt import moe, moe_plan, package

MOE_WGRAD_PACKAGE = os.environ.get("SWIGEN_MOE_WGRAD_PACKAGE", "")


def wgrad_reference(A: Any, B: Any, counts: List[int]) -> Any:
    """dW [E, N, K] = A_e^T @ B_e per expert in float64 (zeros where empty)."""
    out, start = [], 0
    for c in counts:
        out.append(A[start:start + c].double().t() @ B[start:start + c].double())
        start += c
    return torch.stack(out)


@unittest.skipUnless(READY and MOE_WGRAD_PACKAGE, "needs torch, an sm_90 GPU and SWIGEN_MOE_WGRAD_PACKAGE (the wheel holds moe_wgrad back)")
class WgradKernelTest(unittest.TestCase):
    NAME = "swigen_moe_wgrad_test_pkg"

    @classmethod
    def setUpClass(cls) -> None:
        package.load_dir(MOE_WGRAD_PACKAGE, cls.NAME)
        if not package.REGISTRY.packages[cls.NAME].by_kind("moe_wgrad", ""):
            package.REGISTRY.remove_package(cls.NAME)
            raise unittest.SkipTest("%s has no compiled moe_wgrad kernel" % MOE_WGRAD_PACKAGE)

    @classmethod
    def tearDownClass(cls) -> None:
        package.REGISTRY.remove_package(cls.NAME)

    def operands(self, T: int, n: int, k: int, seed: int = 7) -> Any:
        g = torch.Generator(device="cuda").manual_seed(seed)
        A = torch.randn(T, n, device="cuda", generator=g).to(torch.bfloat16)
        B = (torch.randn(T, k, device="cuda", generator=g) / 16).to(torch.bfloat16)
        return A, B

    def test_paths(self) -> None:
        path, why = moe.moe_path("moe_wgrad", torch.device("cuda"))
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertIn(self.NAME, why)

    def test_routings(self) -> None:
        """Both weight gradients against the float64 loop at each routing,
        the output's memory poisoned with NaN first; an empty expert's
        slice exactly zero; two launches bitwise equal."""
        for name, counts in routings().items():
            for what, n, k in (("dW", 2 * I, H), ("dW_down", H, I)):
                with self.subTest(routing=name, grad=what):
                    offs = case(counts)[2]
                    T = sum(counts)
                    A, B = self.operands(T, n, k)
                    poison = torch.full((E, n, k), float("nan"), device="cuda", dtype=torch.bfloat16)
                    del poison
                    dW = torch.ops.swigen.moe_wgrad(A, B, offs)
                    torch.cuda.synchronize()
                    self.assertEqual(tuple(dW.shape), (E, n, k))
                    self.assertFalse(bool(dW.isnan().any()), name)
                    for e, c in enumerate(counts):
                        if c == 0:
                            self.assertEqual(int(torch.count_nonzero(dW[e])), 0, "%s: empty expert %d" % (name, e))
                    if T == 0:
                        continue
                    self.assertLess(rel(dW, wgrad_reference(A, B, counts)), TOL, name)
                    self.assertTrue(torch.equal(dW, torch.ops.swigen.moe_wgrad(A, B, offs)), "%s: two launches differ" % name)

    def test_cuda_graph_new_routing(self) -> None:
        """moe_wgrad captured on one routing, replayed on others written into
        the same offs buffer (same T): the kernel reads offs on the device."""
        first = routings()["uniform"]
        T = sum(first)
        others = [[1] * (E - 1) + [T - (E - 1)], [0] * (E - 1) + [T], [T] + [0] * (E - 1)]
        offs = case(first)[2]
        A, B = self.operands(T, 2 * I, H)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch.ops.swigen.moe_wgrad(A, B, offs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            dW = torch.ops.swigen.moe_wgrad(A, B, offs)
        for counts in others + [first]:
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            g.replay()
            torch.cuda.synchronize()
            self.assertLess(rel(dW, wgrad_reference(A, B, counts)), TOL, "after replay with %s" % counts)

    def test_layer_training_step(self) -> None:
        """SwiGLUExperts' step with both weight gradients on the kernel
        (swigen::moe_wgrad in the layer's backward): y and every gradient
        against the float64 loop."""
        W, Wd = weights()
        for name in ("TileM +- 1", "empty experts", "zipf"):
            with self.subTest(routing=name):
                counts = routings()[name]
                x, dy, offs = case(counts)
                _, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                moe.swiglu_experts(xs, Ws, Wds, offs).backward(dy)
                for what, got, want in (("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref), ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, what)

    def test_opcheck(self) -> None:
        counts = routings()["one-token experts"]
        offs = case(counts)[2]
        A, B = self.operands(sum(counts), H, I)
        torch.library.opcheck(torch.ops.swigen.moe_wgrad.default, (A, B, offs))


if __name__ == "__main__":
    unittest.main()

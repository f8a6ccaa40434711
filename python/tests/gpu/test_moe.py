"""SwiGLUExperts and torch.ops.swigen.moe_* on a GPU (sm_90: torch._grouped_mm's bf16 path).

No kernel packages: the ops run their torch._grouped_mm reference path
(moe_path says so, checked here). Outputs and gradients are checked
against a float64 per-expert loop on random routings, empty experts,
one-token experts, one expert holding every token, T = 0 and expert
sizes of 128 +- 1; then torch.compile(fullgraph=True), a CUDA graph
replayed with a new routing in the captured offs buffer, opcheck of each
op (schema, fake kernel, autograd registration) and the HF converter.
Skipped without torch or CUDA.
"""

from __future__ import annotations

import re
import unittest
from typing import Any, Dict, List, Tuple

import support  # noqa: F401

try:
    import torch
    import torch._dynamo
    import torch.nn.functional as F
except ImportError:  # CI: no torch
    torch = None  # type: ignore[assignment]

READY = torch is not None and torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)

if READY:
    from swigen_rt import moe, moe_plan

E, H, I = 8, 256, 136
TOL = 2e-2  # bf16 operands and outputs, fp32 accumulation vs float64


def rel(a: Any, b: Any) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30))


def routings() -> Dict[str, List[int]]:
    """name -> per-expert row counts."""
    return {
        "uniform": moe_plan.uniform_counts(8 * 96, E),
        "zipf": moe_plan.zipf_counts(8 * 96, E),
        "empty experts": [0, 100, 0, 0, 37, 0, 200, 0],
        "one-token experts": [1, 1, 64, 1, 0, 1, 130, 1],
        "one expert holds all": [0, 0, 0, 300, 0, 0, 0, 0],
        "TileM +- 1": [127, 128, 129, 0, 255, 257, 1, 128],
        "T = 0": [0] * E,
    }


def weights(seed: int = 0) -> Tuple[Any, Any]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    W = (torch.randn(E, 2 * I, H, device="cuda", generator=g) / H ** 0.5).to(torch.bfloat16)
    Wd = (torch.randn(E, H, I, device="cuda", generator=g) / I ** 0.5).to(torch.bfloat16)
    return W, Wd


def case(counts: List[int], seed: int = 1) -> Tuple[Any, Any, Any]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    T = sum(counts)
    x = torch.randn(T, H, device="cuda", generator=g).to(torch.bfloat16)
    dy = torch.randn(T, H, device="cuda", generator=g).to(torch.bfloat16)
    offs = torch.tensor(moe_plan.counts_to_offs(counts), device="cuda", dtype=torch.int32)
    return x, dy, offs


def reference(x: Any, W: Any, Wd: Any, counts: List[int], dy: Any) -> Tuple[Any, Any, Any, Any]:
    """y, dx, dW, dW_down in float64, one expert at a time."""
    x64 = x.double().requires_grad_(True)
    W64 = W.double().requires_grad_(True)
    Wd64 = Wd.double().requires_grad_(True)
    ys, start = [], 0
    for e, c in enumerate(counts):
        xe = x64[start:start + c]
        de = xe @ W64[e].t()
        ys.append((de[:, :I] * F.silu(de[:, I:])) @ Wd64[e].t())
        start += c
    y = torch.cat(ys, 0)
    y.backward(dy.double())
    return y.detach(), x64.grad, W64.grad, Wd64.grad


@unittest.skipUnless(READY, "needs torch and an sm_90+ GPU")
class ReferenceTest(unittest.TestCase):
    def test_path_is_reference(self) -> None:
        for op in moe_plan.GROUPED_KINDS:
            path, why = moe.moe_path(op, torch.device("cuda"))
            self.assertEqual(path, moe_plan.REFERENCE, why)

    def test_routings(self) -> None:
        W, Wd = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, dy, offs = case(counts)
                y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
                with torch.no_grad():
                    y_inf = moe.swiglu_experts(x, W, Wd, offs)
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                y = moe.swiglu_experts(xs, Ws, Wds, offs)
                y.backward(dy)
                if sum(counts) == 0:
                    for t in (y, y_inf, xs.grad):
                        self.assertEqual(t.shape[0], 0)
                    self.assertEqual(float(Ws.grad.abs().sum()), 0.0)
                    self.assertEqual(float(Wds.grad.abs().sum()), 0.0)
                    continue
                for what, got, want in (("y", y, y_ref), ("y no_grad", y_inf, y_ref), ("dx", xs.grad, dx_ref),
                                        ("dW", Ws.grad, dW_ref), ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                for e, c in enumerate(counts):  # an empty expert's gradients are exactly zero
                    if c == 0:
                        self.assertEqual(float(Ws.grad[e].abs().sum()), 0.0, "%s: dW[%d]" % (name, e))
                        self.assertEqual(float(Wds.grad[e].abs().sum()), 0.0, "%s: dW_down[%d]" % (name, e))

    def test_ops_alone(self) -> None:
        """Each op's own autograd (register_autograd) against the reference."""
        W, Wd = weights()
        counts = routings()["empty experts"]
        x, dy, offs = case(counts)
        _, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
        for op in ("moe_gateup", "moe_gateup_train"):
            with self.subTest(op=op):
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                r = getattr(torch.ops.swigen, op)(xs, Ws, offs)
                out = r[0] if op == "moe_gateup_train" else r
                torch.ops.swigen.moe_down(out, Wds, offs).backward(dy)
                for what, got, want in (("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref), ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (op, what))

    def test_bad_inputs(self) -> None:
        W, Wd = weights()
        x, _, offs = case(routings()["uniform"])
        cases = [
            ((x, W, offs.long()), "offs is torch.int64: want int32"),
            ((x.float(), W, offs), "x is torch.float32: want bfloat16"),
            ((x, W[:, :, :128], offs), "want W's last dim == x's H"),
            ((x, W, offs[:4]), "offs is [4]: want [E] = [8]"),
            ((x, W, offs.cpu()), "want one device"),
        ]
        for args, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, re.escape(words)):
                    torch.ops.swigen.moe_gateup(*args)

    def test_opcheck(self) -> None:
        W, Wd = weights()
        counts = routings()["one-token experts"]
        x, dy, offs = case(counts)
        _, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
        out = torch.ops.swigen.moe_gateup(x, W, offs)
        calls = [
            ("moe_gateup", (x, W.requires_grad_(True), offs)),
            ("moe_gateup_train", (x, W, offs)),
            ("moe_down", (out, Wd.requires_grad_(True), offs)),
            ("moe_dswiglu_out", (dy, Wd.detach(), de, offs)),
        ]
        for op, args in calls:
            with self.subTest(op=op):
                torch.library.opcheck(getattr(torch.ops.swigen, op).default, args)


@unittest.skipUnless(READY, "needs torch and an sm_90+ GPU")
class CaptureTest(unittest.TestCase):
    def test_compile_fullgraph(self) -> None:
        torch._dynamo.reset()
        W, Wd = weights()
        counts = routings()["TileM +- 1"]
        x, dy, offs = case(counts)
        _, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
        m = moe.SwiGLUExperts(E, H, I, device="cuda")
        with torch.no_grad():
            m.W.copy_(W)
            m.W_down.copy_(Wd)
        cm = torch.compile(m, fullgraph=True)
        xs = x.detach().clone().requires_grad_(True)
        y = cm(xs, offs)
        y.backward(dy)
        eager = moe.swiglu_experts(x, W, Wd, offs)
        self.assertLess(rel(y, eager), 1e-3)  # the same ops, traced
        for what, got, want in (("dx", xs.grad, dx_ref), ("dW", m.W.grad, dW_ref), ("dW_down", m.W_down.grad, dWd_ref)):
            self.assertLess(rel(got, want), TOL, what)
        with torch.no_grad():
            self.assertLess(rel(cm(x, offs), eager), 1e-3)

    def test_cuda_graph_new_routing(self) -> None:
        """A graph captured on one routing, replayed on another written into
        the same offs buffer: right only if no op read offs on the host."""
        W, Wd = weights()
        first, second = routings()["uniform"], routings()["empty experts"][:]
        second[0] += sum(first) - sum(second)  # same T, other split
        x, dy, offs = case(first)
        Ws, Wds = W.detach().clone().requires_grad_(True), Wd.detach().clone().requires_grad_(True)
        xs = x.detach().clone().requires_grad_(True)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm up on a side stream, as torch's docs do
            for _ in range(3):
                moe.swiglu_experts(xs, Ws, Wds, offs).backward(dy)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        xs.grad = Ws.grad = Wds.grad = None
        with torch.cuda.graph(g):
            y = moe.swiglu_experts(xs, Ws, Wds, offs)
            y.backward(dy)
        for counts in (second, first):
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            g.replay()
            torch.cuda.synchronize()
            y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
            for what, got, want in (("y", y, y_ref), ("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                    ("dW_down", Wds.grad, dWd_ref)):
                self.assertLess(rel(got, want), TOL, "%s after replay with %s" % (what, counts))


@unittest.skipUnless(READY, "needs torch and an sm_90+ GPU")
class ConverterTest(unittest.TestCase):
    def test_hf_state_dict(self) -> None:
        g = torch.Generator(device="cuda").manual_seed(3)
        r = lambda *s: (torch.randn(*s, device="cuda", generator=g) * 0.05).to(torch.bfloat16)  # noqa: E731
        sd = {}
        for e in range(E):
            kg, ku, kd = moe_plan.hf_expert_keys("mlp.", e)
            sd[kg], sd[ku], sd[kd] = r(I, H), r(I, H), r(H, I)
        m = moe.SwiGLUExperts(E, H, I, device="cuda")
        m.load_hf_experts(sd, "mlp.")
        counts = routings()["zipf"]
        x, _, offs = case(counts)
        with torch.no_grad():
            y = m(x, offs)
        start, ys = 0, []
        for e, c in enumerate(counts):
            kg, ku, kd = moe_plan.hf_expert_keys("mlp.", e)
            xe = x[start:start + c].double()
            ys.append((F.silu(xe @ sd[kg].double().t()) * (xe @ sd[ku].double().t())) @ sd[kd].double().t())
            start += c
        self.assertLess(rel(y, torch.cat(ys)), TOL)
        with self.assertRaisesRegex(ValueError, "keys missing, first mlp.experts.0.gate_proj.weight"):
            moe.convert_experts_state_dict({}, E, "mlp.")


if __name__ == "__main__":
    unittest.main()

"""SwiGLUExperts and torch.ops.swigen.moe_* on a GPU (sm_90: torch._grouped_mm's bf16 path).

Without kernel packages (ReferenceTest, CaptureTest, ConverterTest) the
ops run their torch._grouped_mm reference path (moe_path says so,
checked here). Outputs and gradients are checked against a float64
per-expert loop on random routings, empty experts, one-token experts,
one expert holding every token, T = 0 and expert sizes of 128 +- 1; then
torch.compile(fullgraph=True), a CUDA graph replayed with a new routing
in the captured offs buffer, opcheck of each op (schema, fake kernel,
autograd registration) and the HF converter. ScoreTest: the router
score (score [T] float32) on the reference path, the layer's y and
gradients (dscore too) against float64, opcheck of the score ops.

KernelTest, where SWIGEN_MOE_PACKAGE names the directory of a package
emitted with swigen emit --kernel moe_fwd_gateup --arch sm_90a
--py-package NAME (bench/moe_perf.sh builds one): registered for that
class only, swigen::moe_gateup launches its kernel (moe_path KERNEL),
checked against the float64 loop and the reference path on the same
routings, in a CUDA graph replayed with new offs, under
torch.compile(fullgraph=True) and opcheck; the training and backward ops
keep the reference path. TrainKernelTest, where SWIGEN_MOE_TRAIN_PACKAGE
names a package emitted with --store-out as well: swigen::moe_gateup_train
(out and de) on its kernel against the float64 loop, the layer's
training step with its forward on it, and, with no inference package
registered, swigen::moe_gateup and the layer under no_grad on it (de
dropped; out equal to moe_gateup_train's bitwise). BwdKernelTest, where
SWIGEN_MOE_BWD_PACKAGE names a package emitted with swigen emit --kernel
moe_bwd_dswiglu --store-out: swigen::moe_dswiglu_out (grad_de and out) on
its kernel, and the layer's whole step with both kernels. DownKernelTest,
where SWIGEN_MOE_DOWN_PACKAGE names a package emitted with swigen emit
--kernel moe_gemm: swigen::moe_down on its kernel (routings against
float64, CUDA-graph replay with new offs, the layer's step, opcheck).
ScoreKernelTest, where SWIGEN_MOE_SCORE_PACKAGE,
SWIGEN_MOE_TRAIN_SCORE_PACKAGE and SWIGEN_MOE_BWD_SCORE_PACKAGE name
packages emitted with --score (moe_fwd_gateup; --store-out;
moe_bwd_dswiglu --store-out): the ops with a router score on the _score
kernels against float64 on every routing, dscore the column-order float32
sum of the kernel's partials bit for bit, bitwise repeat, the layer's step
with a score, CUDA-graph replay with new offs and scores, compile
fullgraph, opcheck. With
SWIGEN_MOE_WHEEL=1 (bench/wheel_check.sh, the swigen wheel installed)
each kernel class whose package variable is unset runs on the wheel's
kernel instead (moe_path names swigen_kernels), and ReferenceTest's and
CaptureTest's layer checks run on the wheel's kernels too. Skipped without
torch or CUDA.
"""

from __future__ import annotations

import os
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
    from swigen_rt import moe, moe_plan, opspec, package, select
    from swigen_rt.kernel import Kernel
    from swigen_rt.manifest import Manifest

MOE_PACKAGE = os.environ.get("SWIGEN_MOE_PACKAGE", "")
MOE_TRAIN_PACKAGE = os.environ.get("SWIGEN_MOE_TRAIN_PACKAGE", "")
MOE_BWD_PACKAGE = os.environ.get("SWIGEN_MOE_BWD_PACKAGE", "")
MOE_DOWN_PACKAGE = os.environ.get("SWIGEN_MOE_DOWN_PACKAGE", "")
MOE_SCORE_PACKAGES = {op: os.environ.get(v, "") for op, v in (
    ("moe_gateup_score", "SWIGEN_MOE_SCORE_PACKAGE"), ("moe_gateup_train_score", "SWIGEN_MOE_TRAIN_SCORE_PACKAGE"),
    ("moe_dswiglu_out_score", "SWIGEN_MOE_BWD_SCORE_PACKAGE"))}
"""The _score packages (swigen emit --score), by the op that launches each."""
WHEEL = os.environ.get("SWIGEN_MOE_WHEEL", "") == "1"
"""The installed wheel's grouped kernels stand in for an unset package."""

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
        if WHEEL:
            self.skipTest("SWIGEN_MOE_WHEEL: the wheel's kernels run (the kernel classes check the paths)")
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

    def test_elementwise_bits(self) -> None:
        """The reference SwiGLU and dSwiGLU (written in place on fp32
        copies, and _dswiglu_graph out of place) give the textbook
        formula's bits on the GPU too, saturated and zero gates included."""
        g = torch.Generator(device="cuda").manual_seed(7)
        T = 300
        de = (torch.randn(T, 2 * I, device="cuda", generator=g) * 4).to(torch.bfloat16)
        de[:4, I:] = torch.tensor([30.0, -30.0, 0.0, -1e-3], device="cuda")[:, None].to(torch.bfloat16)
        dout = torch.randn(T, I, device="cuda", generator=g).to(torch.bfloat16)
        score = torch.rand(T, device="cuda", generator=g)
        left, gate, d = de[:, :I].float(), de[:, I:].float(), dout.float()
        s = torch.sigmoid(gate)
        f = gate * s
        h = left * f
        bf = torch.bfloat16
        for sc in (None, score):
            with self.subTest(score=sc is not None):
                ds = d if sc is None else d * sc[:, None]
                grad = torch.cat([ds * f, ds * left * s * (1 + gate * (1 - s))], 1).to(bf)
                out = h if sc is None else h * sc[:, None]
                got = moe._dswiglu(dout, de) if sc is None else moe._dswiglu_score(dout, de, sc)
                self.assertTrue(torch.equal(got[0], grad) and torch.equal(got[1], out.to(bf)))
                if sc is not None:
                    self.assertTrue(torch.equal(got[2], (h * d).sum(1)))
                self.assertTrue(torch.equal(moe._swiglu(de, sc), (left * F.silu(gate) * (1 if sc is None else sc[:, None])).to(bf)))
                self.assertTrue(torch.equal(moe._dswiglu_graph(dout, de, sc)[0], grad))

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


def reference_score(x: Any, W: Any, Wd: Any, counts: List[int], dy: Any, score: Any) -> Tuple[Any, ...]:
    """y, dx, dW, dW_down, dscore in float64 with the router score: y =
    per expert (score * up * silu(gate)) @ W_down_e^T."""
    x64, W64, Wd64, s64 = (t.double().requires_grad_(True) for t in (x, W, Wd, score))
    ys, start = [], 0
    for e, c in enumerate(counts):
        de = x64[start:start + c] @ W64[e].t()
        ys.append((s64[start:start + c, None] * de[:, :I] * F.silu(de[:, I:])) @ Wd64[e].t())
        start += c
    y = torch.cat(ys, 0)
    y.backward(dy.double())
    return y.detach(), x64.grad, W64.grad, Wd64.grad, s64.grad


def router_score(T: int, seed: int = 2) -> Any:
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(T, device="cuda", generator=g) + 0.05


@unittest.skipUnless(READY, "needs torch and an sm_90+ GPU")
class ScoreTest(unittest.TestCase):
    """The router score on the reference path: the layer's y and every
    gradient, dscore included, against float64; the ops' schemas, fake
    kernels and autograd (opcheck); the score's rules."""

    def test_routings(self) -> None:
        W, Wd = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, dy, offs = case(counts)
                score = router_score(sum(counts))
                y_ref, dx_ref, dW_ref, dWd_ref, ds_ref = reference_score(x, W, Wd, counts, dy, score)
                with torch.no_grad():
                    y_inf = moe.swiglu_experts(x, W, Wd, offs, score)
                xs, Ws, Wds, ss = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd, score))
                m = moe.SwiGLUExperts(E, H, I, device="cuda")
                with torch.no_grad():
                    m.W.copy_(Ws)
                    m.W_down.copy_(Wds)
                y = m(xs, offs, ss)
                y.backward(dy)
                if sum(counts) == 0:
                    self.assertEqual((y.shape[0], y_inf.shape[0], ss.grad.shape[0]), (0, 0, 0))
                    continue
                for what, got, want in (("y", y, y_ref), ("y no_grad", y_inf, y_ref), ("dx", xs.grad, dx_ref),
                                        ("dW", m.W.grad, dW_ref), ("dW_down", m.W_down.grad, dWd_ref),
                                        ("dscore", ss.grad, ds_ref)):
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                self.assertEqual(ss.grad.dtype, torch.float32)

    def test_ops_alone(self) -> None:
        """moe_gateup and moe_gateup_train with a score, each by its own
        autograd, then moe_down: dscore as the layer's."""
        W, Wd = weights()
        counts = routings()["empty experts"]
        x, dy, offs = case(counts)
        score = router_score(sum(counts))
        _, dx_ref, dW_ref, dWd_ref, ds_ref = reference_score(x, W, Wd, counts, dy, score)
        for op in ("moe_gateup", "moe_gateup_train"):
            with self.subTest(op=op):
                xs, Ws, Wds, ss = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd, score))
                r = getattr(torch.ops.swigen, op)(xs, Ws, offs, ss)
                out = r[0] if op == "moe_gateup_train" else r
                torch.ops.swigen.moe_down(out, Wds, offs).backward(dy)
                for what, got, want in (("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                        ("dW_down", Wds.grad, dWd_ref), ("dscore", ss.grad, ds_ref)):
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (op, what))
                _, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
                if op == "moe_gateup_train":
                    self.assertTrue(torch.equal(r[1], de), "de must stay unscaled")

    def test_dswiglu_out_score(self) -> None:
        """grad_de, out and dscore of the backward op against float64."""
        W, Wd = weights()
        counts = routings()["TileM +- 1"]
        x, dy, offs = case(counts)
        score = router_score(sum(counts))
        _, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
        grad_de, out, dscore = torch.ops.swigen.moe_dswiglu_out_score(dy, Wd, de, offs, score)
        dout = torch.cat([dy[a:b].double() @ Wd[e].double() for e, (a, b) in
                          enumerate(zip([0] + moe_plan.counts_to_offs(counts)[:-1], moe_plan.counts_to_offs(counts)))])
        left, gate, s = de[:, :I].double(), de[:, I:].double(), score.double()[:, None]
        sig = torch.sigmoid(gate)
        h = left * gate * sig
        want_g = torch.cat([s * dout * gate * sig, s * dout * left * sig * (1 + gate * (1 - sig))], 1)
        for what, got, want in (("grad_de", grad_de, want_g), ("out", out, s * h), ("dscore", dscore, (h * dout).sum(1))):
            self.assertLess(rel(got, want), TOL, what)

    def test_opcheck(self) -> None:
        W, Wd = weights()
        counts = routings()["one-token experts"]
        x, dy, offs = case(counts)
        score = router_score(sum(counts))
        _, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
        calls = [
            ("moe_gateup", (x, W.requires_grad_(True), offs, score.requires_grad_(True))),
            ("moe_gateup_train", (x, W, offs, score)),
            ("moe_dswiglu_out_score", (dy, Wd.detach(), de, offs, score.detach())),
        ]
        for op, args in calls:
            with self.subTest(op=op):
                torch.library.opcheck(getattr(torch.ops.swigen, op).default, args)

    def test_bad_score(self) -> None:
        W, _ = weights()
        x, _, offs = case(routings()["uniform"])
        T = x.shape[0]
        cases = [
            (router_score(T)[:-1], "score is [%d]: want [T] = [%d]" % (T - 1, T)),
            (router_score(T).to(torch.bfloat16), "score is bfloat16: want float32"),
            (router_score(T).cpu(), "want one device"),
        ]
        for score, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, re.escape(words)):
                    torch.ops.swigen.moe_gateup(x, W, offs, score)


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


def gateup_reference(x: Any, W: Any, counts: List[int]) -> Any:
    """out [T, I] in float64, one expert at a time."""
    outs, start = [x.new_zeros((0, I), dtype=torch.float64)], 0
    for e, c in enumerate(counts):
        de = x[start:start + c].double() @ W[e].double().t()
        outs.append(de[:, :I] * F.silu(de[:, I:]))
        start += c
    return torch.cat(outs, 0)


@unittest.skipUnless(READY and (MOE_PACKAGE or WHEEL), "needs torch, an sm_90 GPU and SWIGEN_MOE_PACKAGE or SWIGEN_MOE_WHEEL")
class KernelTest(unittest.TestCase):
    """swigen::moe_gateup on the registered moe_fwd_gateup kernel."""

    NAME = "swigen_moe_test_pkg"
    pkg: Any = None

    @classmethod
    def setUpClass(cls) -> None:
        if not MOE_PACKAGE:  # SWIGEN_MOE_WHEEL
            cls.NAME = select.BUNDLE_PACKAGE
            return
        package.load_dir(MOE_PACKAGE, cls.NAME)
        cls.pkg = package.REGISTRY.packages[cls.NAME]
        if not cls.pkg.by_kind("moe_fwd_gateup"):
            raise unittest.SkipTest("%s has no compiled moe_fwd_gateup kernel (uncompiled: %s)"
                                    % (MOE_PACKAGE, ", ".join(cls.pkg.uncompiled) or "none"))

    @classmethod
    def tearDownClass(cls) -> None:
        package.REGISTRY.remove_package(cls.NAME)  # the other classes test the reference path

    def test_paths(self) -> None:
        dev = torch.device("cuda")
        path, why = moe.moe_path("moe_gateup", dev)
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertIn(self.NAME, why)
        for op in ("moe_gateup_train", "moe_dswiglu_out", "moe_down"):
            path, why = moe.moe_path(op, dev)
            want = moe_plan.KERNEL if WHEEL else moe_plan.REFERENCE
            self.assertEqual(path, want, "%s: %s" % (op, why))

    def test_routings(self) -> None:
        """out against the float64 loop and against the reference path
        (torch._grouped_mm + fp32 SwiGLU) at each routing, out's memory
        poisoned with NaN first (a row the kernel leaves shows up)."""
        W, _ = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, _, offs = case(counts)
                want = gateup_reference(x, W, counts)
                ref = moe._swiglu(moe._gateup(x, W, offs))
                poison = torch.full((sum(counts), I), float("nan"), device="cuda", dtype=torch.bfloat16)
                del poison  # its block is the next allocation of that size: out's
                got = torch.ops.swigen.moe_gateup(x, W, offs)
                torch.cuda.synchronize()
                self.assertEqual(tuple(got.shape), (sum(counts), I))
                if sum(counts) == 0:
                    continue
                self.assertFalse(bool(got.isnan().any()), name)
                self.assertLess(rel(got, want), TOL, name)
                self.assertLess(rel(got, ref.double()), TOL, name)
                again = torch.ops.swigen.moe_gateup(x, W, offs)
                self.assertTrue(torch.equal(got, again), "%s: two launches differ" % name)

    def test_layer_inference_and_training(self) -> None:
        """SwiGLUExperts: no_grad runs the kernel, the training step the
        reference ops; both against the float64 loop."""
        W, Wd = weights()
        counts = routings()["one-token experts"]
        x, dy, offs = case(counts)
        y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
        with torch.no_grad():
            self.assertLess(rel(moe.swiglu_experts(x, W, Wd, offs), y_ref), TOL)
        xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
        y = moe.swiglu_experts(xs, Ws, Wds, offs)
        y.backward(dy)
        for what, got, want in (("y", y, y_ref), ("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                ("dW_down", Wds.grad, dWd_ref)):
            self.assertLess(rel(got, want), TOL, what)

    def test_cuda_graph_new_routing(self) -> None:
        """moe_gateup captured on one routing and replayed on others written
        into the same offs buffer (same T): the kernel reads offs on the device."""
        W, _ = weights()
        first = routings()["uniform"]
        T = sum(first)
        others = [routings()["empty experts"][:], [1] * (E - 1) + [T - (E - 1)], [0] * (E - 1) + [T]]
        others[0][0] += T - sum(others[0])
        x, _, offs = case(first)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch.ops.swigen.moe_gateup(x, W, offs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = torch.ops.swigen.moe_gateup(x, W, offs)
        for counts in others + [first]:
            self.assertEqual(sum(counts), T)
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            g.replay()
            torch.cuda.synchronize()
            self.assertLess(rel(out, gateup_reference(x, W, counts)), TOL, "after replay with %s" % counts)

    def test_compile_fullgraph(self) -> None:
        torch._dynamo.reset()
        W, _ = weights()
        x, _, offs = case(routings()["TileM +- 1"])
        f = torch.compile(lambda x, W, offs: torch.ops.swigen.moe_gateup(x, W, offs), fullgraph=True)
        eager = torch.ops.swigen.moe_gateup(x, W, offs)
        self.assertTrue(torch.equal(f(x, W, offs), eager))  # the same kernel on the same inputs

    def test_opcheck(self) -> None:
        W, _ = weights()
        x, _, offs = case(routings()["one-token experts"])
        torch.library.opcheck(torch.ops.swigen.moe_gateup.default, (x, W.requires_grad_(True), offs))

    def test_compile_follows_the_registry(self) -> None:
        """The layer compiled (fullgraph, no_grad) while the package is
        unregistered runs the reference path; registered after the trace,
        the next compiled call launches its kernel with no retrace: the ops
        pick their path when they run (the fake kernels read shapes alone)."""
        import torch._dynamo.testing

        if self.pkg is None:
            self.skipTest("the wheel's kernels cannot be unregistered")
        W, Wd = weights()
        x, _, offs = case(routings()["TileM +- 1"])
        torch._dynamo.reset()
        cnt = torch._dynamo.testing.CompileCounterWithBackend("inductor")
        f = torch.compile(moe.swiglu_experts, backend=cnt, fullgraph=True)
        with torch.no_grad():
            kernel = moe.swiglu_experts(x, W, Wd, offs)
            try:
                package.REGISTRY.remove_package(self.NAME)
                path, why = moe.moe_path("moe_gateup", x.device)
                if path != moe_plan.REFERENCE:
                    self.skipTest("another package or the wheel runs moe_gateup: %s" % why)
                self.assertTrue(torch.equal(f(x, W, Wd, offs), moe.swiglu_experts(x, W, Wd, offs)))
            finally:
                package.REGISTRY.add_package(self.pkg)
            self.assertEqual(moe.moe_path("moe_gateup", x.device)[0], moe_plan.KERNEL)
            self.assertTrue(torch.equal(f(x, W, Wd, offs), kernel), "the kernel's output after the trace")
        self.assertEqual(cnt.frame_count, 1, "no retrace")
        torch._dynamo.reset()

    def test_bad_inputs(self) -> None:
        """What only the kernel path refuses: a ValueError naming the tensor and the rule."""
        W, _ = weights()
        x, _, offs = case(routings()["uniform"])
        wide = torch.zeros(E + 1, dtype=torch.int32, device="cuda")
        wide[1:].copy_(offs)
        cases = [
            ((x, W.transpose(1, 2).contiguous().transpose(1, 2), offs), "tensor W has strides"),
            ((x, W, wide[1:]), "tensor offs at"),  # 4 bytes past a 16-byte boundary
        ]
        for args, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, re.escape(words)):
                    torch.ops.swigen.moe_gateup(*args)

    def test_refused(self) -> None:
        """A registered package the op cannot launch (a kernel with a de
        buffer the registry has no variant marker for) is refused, not
        passed over for the reference."""
        if self.pkg is None:  # the wheel's kernel
            b = select.bundle()
            assert b is not None
            e = b.entry(select.bundled_configs("moe_fwd_gateup", "", "sm_90a", "bfloat16")[0])
        else:
            e = self.pkg.by_kind("moe_fwd_gateup")[0]
        d = dict(e.kernel.manifest.raw)
        d["buffers"] = list(d["buffers"]) + [{"name": "de", "shape": ["T", "2*I"]}]
        bad = package.Entry(kernel=Kernel(Manifest.from_dict(d), b"\0"), kind=e.kind, variant="",
                            arch=e.arch, dtype=e.dtype, package="swigen_moe_unlaunchable")
        p = package.Package(name=bad.package, dir=MOE_PACKAGE or "/nonexistent")
        p.kernels[bad.name] = bad
        package.REGISTRY.remove_package(self.NAME)
        package.REGISTRY.add_package(p)
        try:
            W, _ = weights()
            x, _, offs = case(routings()["uniform"])
            with self.assertRaisesRegex(NotImplementedError, "swigen_moe_unlaunchable is registered but cannot be launched"):
                torch.ops.swigen.moe_gateup(x, W, offs)
        finally:
            package.REGISTRY.remove_package(bad.package)
            if self.pkg is not None:
                package.REGISTRY.add_package(self.pkg)


def gateup_train_reference(x: Any, W: Any, counts: List[int]) -> Tuple[Any, Any]:
    """out [T, I] and de [T, 2I] in float64, one expert at a time."""
    des, start = [x.new_zeros((0, 2 * I), dtype=torch.float64)], 0
    for e, c in enumerate(counts):
        des.append(x[start:start + c].double() @ W[e].double().t())
        start += c
    de = torch.cat(des, 0)
    return de[:, :I] * F.silu(de[:, I:]), de


@unittest.skipUnless(READY and (MOE_TRAIN_PACKAGE or WHEEL), "needs torch, an sm_90 GPU and SWIGEN_MOE_TRAIN_PACKAGE or SWIGEN_MOE_WHEEL")
class TrainKernelTest(unittest.TestCase):
    """swigen::moe_gateup_train on the registered moe_fwd_gateup --store-out
    kernel (the train variant: out and de), alone and inside the layer's
    training step."""

    NAME = "swigen_moe_train_test_pkg"

    @classmethod
    def setUpClass(cls) -> None:
        if not MOE_TRAIN_PACKAGE:  # SWIGEN_MOE_WHEEL
            cls.NAME = select.BUNDLE_PACKAGE
            return
        package.load_dir(MOE_TRAIN_PACKAGE, cls.NAME)
        pkg = package.REGISTRY.packages[cls.NAME]
        if not pkg.by_kind("moe_fwd_gateup", "train"):
            package.REGISTRY.remove_package(cls.NAME)
            raise unittest.SkipTest("%s has no compiled moe_fwd_gateup train kernel" % MOE_TRAIN_PACKAGE)

    @classmethod
    def tearDownClass(cls) -> None:
        package.REGISTRY.remove_package(cls.NAME)

    def test_paths(self) -> None:
        path, why = moe.moe_path("moe_gateup_train", torch.device("cuda"))
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertIn(self.NAME, why)
        if not MOE_TRAIN_PACKAGE:
            return  # the wheel ships an inference kernel too: moe_gateup runs that one
        # No inference package: the inference op runs this kernel, de dropped.
        path, why = moe.moe_path("moe_gateup", torch.device("cuda"))
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertTrue(why.startswith(moe_plan.TRAIN_DROP_DE), why)
        self.assertIn(self.NAME, why)

    def test_inference_op_drops_de(self) -> None:
        """swigen::moe_gateup on the train kernel: its out is
        moe_gateup_train's bitwise, at moe_gateup's shape, and de is freed
        when it returns (it holds what an out alone would)."""
        if not MOE_TRAIN_PACKAGE:
            self.skipTest("SWIGEN_MOE_WHEEL: the wheel's inference kernel runs moe_gateup, not the train kernel")
        W, _ = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, _, offs = case(counts)
                T = sum(counts)
                want, _ = torch.ops.swigen.moe_gateup_train(x, W, offs)
                torch.cuda.synchronize()
                base = torch.cuda.memory_allocated()
                got = torch.ops.swigen.moe_gateup(x, W, offs)
                torch.cuda.synchronize()
                held = torch.cuda.memory_allocated() - base
                self.assertEqual(tuple(got.shape), (T, I))
                self.assertTrue(torch.equal(got, want), "%s: moe_gateup's out differs from moe_gateup_train's" % name)
                del got
                alone = x.new_empty((T, I))
                self.assertEqual(held, torch.cuda.memory_allocated() - base, "%s: de outlived the call" % name)
                del alone

    def test_layer_inference(self) -> None:
        """SwiGLUExperts under no_grad and inference_mode, the forward on
        the train kernel (de dropped): y against the float64 loop."""
        W, Wd = weights()
        m = moe.SwiGLUExperts(E, H, I, device="cuda")
        with torch.no_grad():
            m.W.copy_(W)
            m.W_down.copy_(Wd)
        for name in ("TileM +- 1", "empty experts", "zipf", "T = 0"):
            counts = routings()[name]
            x, dy, offs = case(counts)
            y_ref = reference(x, W, Wd, counts, dy)[0]
            for mode in ("no_grad", "inference_mode"):
                with self.subTest(routing=name, mode=mode):
                    with (torch.no_grad() if mode == "no_grad" else torch.inference_mode()):
                        y = m(x, offs)
                    self.assertEqual(tuple(y.shape), (sum(counts), H))
                    if sum(counts):
                        self.assertLess(rel(y, y_ref), TOL, "%s, %s" % (name, mode))

    def test_inference_cuda_graph(self) -> None:
        """moe_gateup on the train kernel captured once and replayed on a
        new routing in the captured offs: equal to moe_gateup_train's out."""
        if not MOE_TRAIN_PACKAGE:
            self.skipTest("SWIGEN_MOE_WHEEL: the wheel's inference kernel runs moe_gateup, not the train kernel")
        W, _ = weights()
        first, other = routings()["uniform"], routings()["one expert holds all"][:]
        other[3] += sum(first) - sum(other)
        x, _, offs = case(first)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch.ops.swigen.moe_gateup(x, W, offs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = torch.ops.swigen.moe_gateup(x, W, offs)
        for counts in (other, first):
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            g.replay()
            want, _ = torch.ops.swigen.moe_gateup_train(x, W, offs)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(out, want), "after replay with %s" % counts)

    def test_routings(self) -> None:
        """out and de against the float64 loop at each routing, their
        memory poisoned with NaN first; two launches bitwise equal."""
        W, _ = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, _, offs = case(counts)
                T = sum(counts)
                want_out, want_de = gateup_train_reference(x, W, counts)
                for shape in ((T, 2 * I), (T, I)):
                    poison = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
                    del poison
                out, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
                torch.cuda.synchronize()
                self.assertEqual((tuple(out.shape), tuple(de.shape)), ((T, I), (T, 2 * I)))
                if T == 0:
                    continue
                for what, got, want in (("out", out, want_out), ("de", de, want_de)):
                    self.assertFalse(bool(got.isnan().any()), "%s: %s" % (name, what))
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                out2, de2 = torch.ops.swigen.moe_gateup_train(x, W, offs)
                self.assertTrue(torch.equal(out, out2) and torch.equal(de, de2), "%s: two launches differ" % name)

    def test_layer_training_step(self) -> None:
        """SwiGLUExperts' training step with the forward on the kernel:
        y and every gradient against the float64 loop."""
        W, Wd = weights()
        for name in ("TileM +- 1", "empty experts"):
            with self.subTest(routing=name):
                counts = routings()[name]
                x, dy, offs = case(counts)
                y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                y = moe.swiglu_experts(xs, Ws, Wds, offs)
                y.backward(dy)
                for what, got, want in (("y", y, y_ref), ("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                        ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, what)

    def test_opcheck(self) -> None:
        W, _ = weights()
        x, _, offs = case(routings()["one-token experts"])
        torch.library.opcheck(torch.ops.swigen.moe_gateup_train.default, (x, W.requires_grad_(True), offs))


def dswiglu_reference(dy: Any, Wd: Any, de: Any, counts: List[int]) -> Tuple[Any, Any]:
    """grad_de [T, 2I] and out [T, I] in float64: dout = dy_e @ W_down_e
    per expert, then dSwiGLU against de = [up | gate]."""
    douts, start = [dy.new_zeros((0, I), dtype=torch.float64)], 0
    for e, c in enumerate(counts):
        douts.append(dy[start:start + c].double() @ Wd[e].double())
        start += c
    dout = torch.cat(douts, 0)
    up, gate = de.double()[:, :I], de.double()[:, I:]
    sig = torch.sigmoid(gate)
    grad_up = dout * gate * sig
    grad_gate = dout * up * sig * (1 + gate * (1 - sig))
    return torch.cat([grad_up, grad_gate], 1), up * gate * sig


@unittest.skipUnless(READY and (MOE_BWD_PACKAGE or WHEEL), "needs torch, an sm_90 GPU and SWIGEN_MOE_BWD_PACKAGE or SWIGEN_MOE_WHEEL")
class BwdKernelTest(unittest.TestCase):
    """swigen::moe_dswiglu_out on the registered moe_bwd_dswiglu --store-out
    kernel (grad_de and the recomputed out), alone and inside the layer's
    training step (with the train package's forward when one is given)."""

    NAMES = ("swigen_moe_bwd_test_pkg", "swigen_moe_bwd_test_train_pkg")

    @classmethod
    def setUpClass(cls) -> None:
        if not MOE_BWD_PACKAGE:  # SWIGEN_MOE_WHEEL
            cls.NAMES = (select.BUNDLE_PACKAGE, cls.NAMES[1])
            if MOE_TRAIN_PACKAGE:
                package.load_dir(MOE_TRAIN_PACKAGE, cls.NAMES[1])
            return
        package.load_dir(MOE_BWD_PACKAGE, cls.NAMES[0])
        if not package.REGISTRY.packages[cls.NAMES[0]].by_kind("moe_bwd_dswiglu", "out"):
            package.REGISTRY.remove_package(cls.NAMES[0])
            raise unittest.SkipTest("%s has no compiled moe_bwd_dswiglu out kernel" % MOE_BWD_PACKAGE)
        if MOE_TRAIN_PACKAGE:
            package.load_dir(MOE_TRAIN_PACKAGE, cls.NAMES[1])

    @classmethod
    def tearDownClass(cls) -> None:
        for n in cls.NAMES:
            package.REGISTRY.remove_package(n)

    def test_paths(self) -> None:
        path, why = moe.moe_path("moe_dswiglu_out", torch.device("cuda"))
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertIn(self.NAMES[0], why)

    def test_routings(self) -> None:
        """grad_de and out against the float64 loop at each routing, their
        memory poisoned with NaN first; two launches bitwise equal."""
        _, Wd = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                _, dy, offs = case(counts)
                T = sum(counts)
                g = torch.Generator(device="cuda").manual_seed(7)
                de = torch.randn(T, 2 * I, device="cuda", generator=g).to(torch.bfloat16)
                want_gde, want_out = dswiglu_reference(dy, Wd, de, counts)
                for shape in ((T, 2 * I), (T, I)):
                    poison = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
                    del poison
                gde, out = torch.ops.swigen.moe_dswiglu_out(dy, Wd, de, offs)
                torch.cuda.synchronize()
                self.assertEqual((tuple(gde.shape), tuple(out.shape)), ((T, 2 * I), (T, I)))
                if T == 0:
                    continue
                for what, got, want in (("grad_de", gde, want_gde), ("out", out, want_out)):
                    self.assertFalse(bool(got.isnan().any()), "%s: %s" % (name, what))
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                gde2, out2 = torch.ops.swigen.moe_dswiglu_out(dy, Wd, de, offs)
                self.assertTrue(torch.equal(gde, gde2) and torch.equal(out, out2), "%s: two launches differ" % name)

    def test_layer_step_memory(self) -> None:
        """The step's peak of requested bytes above its inputs (y held
        through the backward, after a warm-up step) is moe_plan.step_bytes'
        model at a shape of each backward order, up to 1 MiB over
        (torch._grouped_mm's workspace); the former backward, de held to
        its end, was 6.7 and 3.6 MB over at these shapes. Needs the forward
        on the train kernel too (the reference's fp32 temporaries are not
        the model's)."""
        if moe.moe_path("moe_gateup_train", torch.device("cuda"))[0] != moe_plan.KERNEL:
            self.skipTest("the training forward runs the reference (needs SWIGEN_MOE_TRAIN_PACKAGE or the wheel)")
        # requested_bytes: the sizes asked for, not the allocator's blocks
        # (rounded to 512 bytes, or a cached block up to 1 MB larger).
        key = "requested_bytes.all.%s" if "requested_bytes.all.peak" in torch.cuda.memory_stats() else "allocated_bytes.all.%s"
        for e, h, rows in ((16, 1024, 512), (E, H, 1024)):  # rows an expert: T < E*H (last), T >= E*H (first)
            counts, T = [rows] * e, rows * e
            want = moe_plan.step_bytes(T, h, I, e)
            with self.subTest(T=T, E=e, H=h, order=want.order):
                g = torch.Generator(device="cuda").manual_seed(3)
                xs = torch.randn(T, h, device="cuda", generator=g).to(torch.bfloat16).requires_grad_(True)
                Ws = (torch.randn(e, 2 * I, h, device="cuda", generator=g) / h ** 0.5).to(torch.bfloat16).requires_grad_(True)
                Wds = (torch.randn(e, h, I, device="cuda", generator=g) / I ** 0.5).to(torch.bfloat16).requires_grad_(True)
                dy = torch.randn(T, h, device="cuda", generator=g).to(torch.bfloat16)
                offs = torch.tensor(moe_plan.counts_to_offs(counts), device="cuda", dtype=torch.int32)
                for _ in range(2):
                    for t in (xs, Ws, Wds):
                        t.grad = None
                    torch.cuda.synchronize()
                    base = torch.cuda.memory_stats()[key % "current"]
                    torch.cuda.reset_peak_memory_stats()
                    y = moe.swiglu_experts(xs, Ws, Wds, offs)
                    y.backward(dy)
                    torch.cuda.synchronize()
                    peak = torch.cuda.memory_stats()[key % "peak"] - base
                    del y
                self.assertGreaterEqual(peak, want.peak, key)
                self.assertLess(peak - want.peak, 1 << 20, "%s: peak %d bytes, model %d" % (key, peak, want.peak))

    def test_layer_training_step(self) -> None:
        """SwiGLUExperts' training step with the backward's dout + dSwiGLU on
        the kernel (and the forward too with the train package): y and
        every gradient against the float64 loop."""
        W, Wd = weights()
        for name in ("TileM +- 1", "empty experts", "zipf"):
            with self.subTest(routing=name):
                counts = routings()[name]
                x, dy, offs = case(counts)
                y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                y = moe.swiglu_experts(xs, Ws, Wds, offs)
                y.backward(dy)
                for what, got, want in (("y", y, y_ref), ("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                        ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, what)

    def test_opcheck(self) -> None:
        W, Wd = weights()
        _, dy, offs = case(routings()["one-token experts"])
        de = torch.randn(dy.shape[0], 2 * I, device="cuda").to(torch.bfloat16)
        torch.library.opcheck(torch.ops.swigen.moe_dswiglu_out.default, (dy, Wd, de, offs))


def down_reference(out: Any, Wd: Any, counts: List[int]) -> Any:
    """y = out_e @ W_down_e^T per expert in float64."""
    ys, start = [], 0
    for e, c in enumerate(counts):
        ys.append(out[start:start + c].double() @ Wd[e].double().t())
        start += c
    return torch.cat(ys, 0)


@unittest.skipUnless(READY and (MOE_DOWN_PACKAGE or WHEEL), "needs torch, an sm_90 GPU and SWIGEN_MOE_DOWN_PACKAGE or SWIGEN_MOE_WHEEL")
class DownKernelTest(unittest.TestCase):
    """swigen::moe_down on the registered moe_gemm kernel (W_down [E, H, I]
    its K-major B): routings against float64, CUDA-graph replay with new
    offs, the layer's training step, opcheck."""

    NAME = "swigen_moe_down_test_pkg"

    @classmethod
    def setUpClass(cls) -> None:
        if not MOE_DOWN_PACKAGE:  # SWIGEN_MOE_WHEEL
            cls.NAME = select.BUNDLE_PACKAGE
            return
        package.load_dir(MOE_DOWN_PACKAGE, cls.NAME)
        if not package.REGISTRY.packages[cls.NAME].by_kind("moe_gemm", ""):
            package.REGISTRY.remove_package(cls.NAME)
            raise unittest.SkipTest("%s has no compiled moe_gemm kernel" % MOE_DOWN_PACKAGE)

    @classmethod
    def tearDownClass(cls) -> None:
        package.REGISTRY.remove_package(cls.NAME)

    def out_of(self, T: int, seed: int = 5) -> Any:
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(T, I, device="cuda", generator=g).to(torch.bfloat16)

    def test_paths(self) -> None:
        path, why = moe.moe_path("moe_down", torch.device("cuda"))
        self.assertEqual(path, moe_plan.KERNEL, why)
        self.assertIn(self.NAME, why)

    def test_routings(self) -> None:
        """y against the float64 loop at each routing, its memory poisoned
        with NaN first; two launches bitwise equal."""
        _, Wd = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                offs = case(counts)[2]
                T = sum(counts)
                out = self.out_of(T)
                poison = torch.full((T, H), float("nan"), device="cuda", dtype=torch.bfloat16)
                del poison
                y = torch.ops.swigen.moe_down(out, Wd, offs)
                torch.cuda.synchronize()
                self.assertEqual(tuple(y.shape), (T, H))
                if T == 0:
                    continue
                self.assertFalse(bool(y.isnan().any()), name)
                self.assertLess(rel(y, down_reference(out, Wd, counts)), TOL, name)
                self.assertTrue(torch.equal(y, torch.ops.swigen.moe_down(out, Wd, offs)), "%s: two launches differ" % name)

    def test_cuda_graph_new_routing(self) -> None:
        """moe_down captured on one routing, replayed on others written into
        the same offs buffer (same T): the kernel reads offs on the device."""
        _, Wd = weights()
        first = routings()["uniform"]
        T = sum(first)
        others = [[1] * (E - 1) + [T - (E - 1)], [0] * (E - 1) + [T], [T] + [0] * (E - 1)]
        offs = case(first)[2]
        out = self.out_of(T)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch.ops.swigen.moe_down(out, Wd, offs)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = torch.ops.swigen.moe_down(out, Wd, offs)
        for counts in others + [first]:
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            g.replay()
            torch.cuda.synchronize()
            self.assertLess(rel(y, down_reference(out, Wd, counts)), TOL, "after replay with %s" % counts)

    def test_layer_training_step(self) -> None:
        """SwiGLUExperts' step with its forward's down projection on the
        kernel: y and every gradient against the float64 loop."""
        W, Wd = weights()
        for name in ("TileM +- 1", "empty experts", "zipf"):
            with self.subTest(routing=name):
                counts = routings()[name]
                x, dy, offs = case(counts)
                y_ref, dx_ref, dW_ref, dWd_ref = reference(x, W, Wd, counts, dy)
                xs, Ws, Wds = (t.detach().clone().requires_grad_(True) for t in (x, W, Wd))
                y = moe.swiglu_experts(xs, Ws, Wds, offs)
                y.backward(dy)
                for what, got, want in (("y", y, y_ref), ("dx", xs.grad, dx_ref), ("dW", Ws.grad, dW_ref),
                                        ("dW_down", Wds.grad, dWd_ref)):
                    self.assertLess(rel(got, want), TOL, what)

    def test_opcheck(self) -> None:
        _, Wd = weights()
        counts = routings()["one-token experts"]
        offs = case(counts)[2]
        out = self.out_of(sum(counts))
        torch.library.opcheck(torch.ops.swigen.moe_down.default, (out.requires_grad_(True), Wd.requires_grad_(True), offs))


def score_bwd_reference(dy: Any, Wd: Any, de: Any, counts: List[int], score: Any) -> Tuple[Any, Any, Any]:
    """grad_de, out and dscore in float64 of the backward with a score:
    the dSwiGLU of score*dout, score*h, and sum_i h*dout (h unscaled)."""
    douts, start = [dy.new_zeros((0, I), dtype=torch.float64)], 0
    for e, c in enumerate(counts):
        douts.append(dy[start:start + c].double() @ Wd[e].double())
        start += c
    dout = torch.cat(douts, 0)
    grad_de, h = dswiglu_reference(dy, Wd, de, counts)
    s = score.double()[:, None]
    return s * grad_de, s * h, (h * dout).sum(1)


def f32_bits(t: Any) -> List[int]:
    """The float32 values of t as their bit patterns (NaN and -0.0 compare as bits)."""
    return t.float().contiguous().view(torch.int32).tolist()


# With SWIGEN_MOE_WHEEL the skip says so without "needs" (bench/wheel_check.sh
# fails on a class skipped for want of a kernel the wheel ships).
@unittest.skipUnless(READY and all(MOE_SCORE_PACKAGES.values()),
                     "no wheel ships a _score kernel (swigen emit --score builds them)" if WHEEL else
                     "needs torch, an sm_90 GPU and SWIGEN_MOE_SCORE_PACKAGE, SWIGEN_MOE_TRAIN_SCORE_PACKAGE and "
                     "SWIGEN_MOE_BWD_SCORE_PACKAGE (packages of swigen emit --score)")
class ScoreKernelTest(unittest.TestCase):
    """The router score on the _score kernels (emit --score): swigen::
    moe_gateup and moe_gateup_train with a score on the inference and
    training _score packages, moe_dswiglu_out_score on the backward's (its
    dscore_part summed in column order: moe_plan.sum_score_partials' bits),
    each against float64 on every routing (empty experts, T = 0), bitwise
    on repeat; the layer's step with a score (y and every gradient, dscore
    too), a CUDA graph replayed with a new routing and new scores, compile
    fullgraph, opcheck. The plain ops keep their own path."""

    NAMES = {op: "swigen_moe_test_" + op for op in MOE_SCORE_PACKAGES}

    @classmethod
    def setUpClass(cls) -> None:
        for op, d in MOE_SCORE_PACKAGES.items():
            package.load_dir(d, cls.NAMES[op])
            spec = opspec.OPS[op]
            if not package.REGISTRY.packages[cls.NAMES[op]].by_kind(spec.kind, spec.variant):
                cls.tearDownClass()
                raise unittest.SkipTest("%s has no compiled %s (%s) kernel" % (d, spec.kind, spec.variant))

    @classmethod
    def tearDownClass(cls) -> None:
        for n in cls.NAMES.values():
            package.REGISTRY.remove_package(n)

    def test_paths(self) -> None:
        dev = torch.device("cuda")
        for op, name in self.NAMES.items():
            path, why = moe.moe_path(op, dev)
            self.assertEqual(path, moe_plan.KERNEL, why)
            self.assertIn(name, why)
        for op in ("moe_gateup", "moe_gateup_train", "moe_dswiglu_out"):
            _, why = moe.moe_path(op, dev)
            for name in self.NAMES.values():
                self.assertNotIn(name, why, "%s must not run a _score kernel" % op)

    def test_forward_routings(self) -> None:
        """out (scaled) and de (unscaled) against float64 at each routing,
        their memory poisoned with NaN first; inference and training; two
        launches bitwise equal."""
        W, _ = weights()
        for name, counts in routings().items():
            with self.subTest(routing=name):
                x, _, offs = case(counts)
                T = sum(counts)
                score = router_score(T)
                want_h, want_de = gateup_train_reference(x, W, counts)
                want_out = score.double()[:, None] * want_h
                for shape in ((T, 2 * I), (T, I), (T, I)):
                    poison = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
                    del poison
                out_inf = torch.ops.swigen.moe_gateup(x, W, offs, score)
                out, de = torch.ops.swigen.moe_gateup_train(x, W, offs, score)
                torch.cuda.synchronize()
                self.assertEqual([tuple(t.shape) for t in (out_inf, out, de)], [(T, I), (T, I), (T, 2 * I)])
                if T == 0:
                    continue
                for what, got, want in (("out (inference)", out_inf, want_out), ("out", out, want_out), ("de", de, want_de)):
                    self.assertFalse(bool(got.isnan().any()), "%s: %s" % (name, what))
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                again = torch.ops.swigen.moe_gateup_train(x, W, offs, score)
                self.assertTrue(torch.equal(out, again[0]) and torch.equal(de, again[1]), "%s: two launches differ" % name)
                self.assertTrue(torch.equal(out_inf, torch.ops.swigen.moe_gateup(x, W, offs, score)), "%s: two launches" % name)

    def test_backward_routings(self) -> None:
        """grad_de, out and dscore against float64 at each routing, the
        outputs and partials poisoned with NaN first; dscore is the column-
        order float32 sum of the kernel's own partials (moe_plan.
        sum_score_partials) bit for bit; two launches bitwise equal."""
        _, Wd = weights()
        spec = opspec.OPS["moe_dswiglu_out_score"]
        k = package.REGISTRY.packages[self.NAMES[spec.name]].by_kind(spec.kind, spec.variant)[0].kernel
        # cdiv(I, TileN): one partial per n-block of the emitted config.
        cols = opspec.output_shapes(k.manifest, ["dscore_part"], {"T": 1, "K": H, "I": I, "E": E})[0][1]
        for name, counts in routings().items():
            with self.subTest(routing=name):
                _, dy, offs = case(counts)
                T = sum(counts)
                g = torch.Generator(device="cuda").manual_seed(7)
                de = torch.randn(T, 2 * I, device="cuda", generator=g).to(torch.bfloat16)
                score = router_score(T)
                want = score_bwd_reference(dy, Wd, de, counts, score)
                for shape, dt in (((T, 2 * I), torch.bfloat16), ((T, I), torch.bfloat16), ((T, cols), torch.float32)):
                    poison = torch.full(shape, float("nan"), device="cuda", dtype=dt)
                    del poison
                got = torch.ops.swigen.moe_dswiglu_out_score(dy, Wd, de, offs, score)
                torch.cuda.synchronize()
                self.assertEqual([tuple(t.shape) for t in got], [(T, 2 * I), (T, I), (T,)])
                self.assertEqual(got[2].dtype, torch.float32)
                if T == 0:
                    continue
                for what, t, w in zip(("grad_de", "out", "dscore"), got, want):
                    self.assertFalse(bool(t.isnan().any()), "%s: %s" % (name, what))
                    self.assertLess(rel(t, w), TOL, "%s: %s" % (name, what))
                part = moe._ops._run("moe_dswiglu_out_score", (dy, Wd, de, offs, score))[2]
                self.assertEqual(tuple(part.shape), (T, cols))
                self.assertEqual(f32_bits(got[2]), f32_bits(torch.tensor(moe_plan.sum_score_partials(part.tolist()))),
                                 "%s: dscore is not the partials' column-order sum" % name)
                again = torch.ops.swigen.moe_dswiglu_out_score(dy, Wd, de, offs, score)
                for what, t, u in zip(("grad_de", "out", "dscore"), got, again):
                    self.assertTrue(torch.equal(t, u), "%s: %s differs between two launches" % (name, what))

    def layer(self) -> Tuple[Any, Any, Any]:
        """The layer on weights() and those weights (the references' leaves)."""
        W, Wd = weights()
        m = moe.SwiGLUExperts(E, H, I, device="cuda")
        with torch.no_grad():
            m.W.copy_(W)
            m.W_down.copy_(Wd)
        return m, W, Wd

    def test_layer_step(self) -> None:
        """SwiGLUExperts' training step with a score on the _score kernels
        (forward and backward): y and every gradient, dscore included,
        against float64; dscore repeated is bitwise the same; no_grad's
        y on the inference _score kernel."""
        m, W, Wd = self.layer()
        for name in ("TileM +- 1", "empty experts", "zipf", "one expert holds all"):
            with self.subTest(routing=name):
                counts = routings()[name]
                x, dy, offs = case(counts)
                score = router_score(sum(counts))
                y_ref, dx_ref, dW_ref, dWd_ref, ds_ref = reference_score(x, W, Wd, counts, dy, score)
                runs = []
                for _ in range(2):
                    m.zero_grad(set_to_none=True)
                    xs, ss = x.detach().clone().requires_grad_(True), score.detach().clone().requires_grad_(True)
                    y = m(xs, offs, ss)
                    y.backward(dy)
                    runs.append((y.detach(), xs.grad, m.W.grad.clone(), m.W_down.grad.clone(), ss.grad))
                for what, got, want in zip(("y", "dx", "dW", "dW_down", "dscore"), runs[0], (y_ref, dx_ref, dW_ref, dWd_ref, ds_ref)):
                    self.assertLess(rel(got, want), TOL, "%s: %s" % (name, what))
                # dscore is the _score kernels' alone (y and the weight
                # gradients pass through torch._grouped_mm too).
                self.assertTrue(torch.equal(runs[0][4], runs[1][4]), "%s: dscore differs between two steps" % name)
                with torch.no_grad():
                    self.assertLess(rel(m(x, offs, score), y_ref), TOL, "%s: no_grad" % name)

    def test_cuda_graph_new_routing(self) -> None:
        """The step with a score captured once, replayed with another
        routing in the captured offs and other scores in the captured
        score: right only if no op read either on the host."""
        m, W, Wd = self.layer()
        first, second = routings()["uniform"], routings()["empty experts"][:]
        second[0] += sum(first) - sum(second)
        x, dy, offs = case(first)
        T = sum(first)
        xs = x.detach().clone().requires_grad_(True)
        ss = router_score(T).requires_grad_(True)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                m(xs, offs, ss).backward(dy)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        xs.grad = ss.grad = m.W.grad = m.W_down.grad = None
        with torch.cuda.graph(g):
            y = m(xs, offs, ss)
            y.backward(dy)
        for counts, seed in ((second, 3), (first, 4)):
            offs.copy_(torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32))
            with torch.no_grad():
                ss.copy_(router_score(T, seed))
            g.replay()
            torch.cuda.synchronize()
            want = reference_score(x, W, Wd, counts, dy, ss.detach())
            for what, got, w in zip(("y", "dx", "dW", "dW_down", "dscore"), (y, xs.grad, m.W.grad, m.W_down.grad, ss.grad), want):
                self.assertLess(rel(got, w), TOL, "%s after replay with %s" % (what, counts))

    def test_compile_fullgraph(self) -> None:
        """The layer with a score compiled (fullgraph): y and every gradient
        equal eager's (the same kernels)."""
        torch._dynamo.reset()
        m = self.layer()[0]
        x, dy, offs = case(routings()["TileM +- 1"])
        score = router_score(x.shape[0])
        runs = []
        for f in (m, torch.compile(m, fullgraph=True)):
            m.zero_grad(set_to_none=True)
            xs, ss = x.detach().clone().requires_grad_(True), score.detach().clone().requires_grad_(True)
            y = f(xs, offs, ss)
            y.backward(dy)
            runs.append((y.detach(), xs.grad, m.W.grad.clone(), ss.grad))
        for what, a, b in zip(("y", "dx", "dW", "dscore"), *runs):
            self.assertLess(rel(b, a), 1e-3, what)
        torch._dynamo.reset()

    def test_opcheck(self) -> None:
        W, Wd = weights()
        x, dy, offs = case(routings()["one-token experts"])
        score = router_score(x.shape[0])
        _, de = torch.ops.swigen.moe_gateup_train(x, W, offs)
        calls = [
            ("moe_gateup", (x, W.requires_grad_(True), offs, score.requires_grad_(True))),
            ("moe_gateup_train", (x, W, offs, score)),
            ("moe_dswiglu_out_score", (dy, Wd.detach(), de, offs, score.detach())),
        ]
        for op, args in calls:
            with self.subTest(op=op):
                torch.library.opcheck(getattr(torch.ops.swigen, op).default, args)

    def test_bad_score(self) -> None:
        """What only the kernel path refuses, a misaligned score, and the
        rules every path checks: ValueErrors naming the score."""
        W, _ = weights()
        x, _, offs = case(routings()["uniform"])
        T = x.shape[0]
        wide = router_score(T + 1)
        cases = [
            (wide[1:], "tensor score at"),  # 4 bytes past a 16-byte boundary
            (router_score(T).to(torch.bfloat16), "score is bfloat16: want float32"),
            (router_score(T)[:-1], "score is [%d]: want [T] = [%d]" % (T - 1, T)),
        ]
        for score, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, re.escape(words)):
                    torch.ops.swigen.moe_gateup(x, W, offs, score)


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

"""SwiGLUMLP and SwiGLUExperts under torch.compile(fullgraph=True) with the
kernel registry changing between two compiled calls, on the CPU: the next
call must run what the registry now says. Skipped without torch (CI); the
GPU's check on real packages is tests/gpu/test_torch_ops.py's
test_compile_follows_the_registry and tests/gpu/test_moe.py's.

SwiGLUMLP decides its kernels' weight layouts and its forward's kernel when
the graph is traced (swigen_rt.mlp: each decision one constant of the
trace), so the trace must be guarded on the registry's generation. The test
stands in for the kernels with CPU custom ops (swigen_cpu_test::*) that, as
swigen's ops do, pick their kernel when they run: each reads the registry
then and refuses a weight in the other layout, as a real launch's shape
check does (K != I here, so the layouts differ in shape). SwiGLUExperts'
ops decide inside the op (opaque to Dynamo): a registry change needs no
retrace there, and none may happen."""

from __future__ import annotations

import types
import unittest
from typing import Any, Dict, Iterator, List, Tuple
from unittest import mock

import support  # noqa: F401

try:
    import torch
    import torch._dynamo
    import torch._dynamo.testing
    import torch.nn.functional as F
except ImportError:  # CI: no torch
    torch = None  # type: ignore[assignment]

M, K, I = 12, 16, 8  # K != I: a weight in the wrong layout has the wrong shape
ARCH, DT = "sm_90a", "float32"
BACKEND = "aot_eager"  # AOTAutograd (the compiled backward) without a C++ compiler

if torch is not None:
    from swigen_rt import mlp as smlp
    from swigen_rt import moe, moe_plan, opspec, select
    from swigen_rt.package import REGISTRY, Entry, Package

    def _kernel(kind: str, variant: str) -> Entry:
        """The registry's first kernel of kind and variant (ARCH, DT), or a
        ValueError as the real op's selection raises."""
        cands = REGISTRY.candidates(kind, variant, ARCH, DT)
        if not cands:
            raise ValueError("no %s %r kernel is registered" % (kind, variant))
        return cands[0]

    def _weight(what: str, w: Any, mn: bool, n: int, k: int) -> Any:
        """The operand w as a [k, n] matrix: w as it is where mn (an _bmn
        kernel's [K, N]), else w^T of an [N, K] w; ValueError on the other
        layout's shape."""
        want = (k, n) if mn else (n, k)
        if tuple(w.shape) != want:
            raise ValueError("%s: W_down is %s, the registered kernel (%s) reads %s"
                             % (what, list(w.shape), "MN-major" if mn else "K-major", list(want)))
        return w if mn else w.t()

    def _swiglu(de: Any) -> Any:
        i = de.shape[1] // 2
        return de[:, :i] * F.silu(de[:, i:])

    @torch.library.custom_op("swigen_cpu_test::fwd_gateup_train", mutates_args=())
    def _gateup_train(x: torch.Tensor, W: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        _kernel("fwd_gateup", "train")
        de = x @ W.t()
        return _swiglu(de), de

    @_gateup_train.register_fake
    def _(x: Any, W: Any) -> Tuple[Any, Any]:
        return x.new_empty(x.shape[0], W.shape[0] // 2), x.new_empty(x.shape[0], W.shape[0])

    @torch.library.custom_op("swigen_cpu_test::fwd_gateup", mutates_args=())
    def _gateup(x: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        _kernel("fwd_gateup", "")
        return _swiglu(x @ W.t()) * 2  # * 2: which kernel ran shows in y

    @_gateup.register_fake
    def _(x: Any, W: Any) -> Any:
        return x.new_empty(x.shape[0], W.shape[0] // 2)

    @torch.library.custom_op("swigen_cpu_test::fwd_down", mutates_args=())
    def _down(out: torch.Tensor, W_down: torch.Tensor) -> torch.Tensor:
        return out @ _weight("fwd_down", W_down, _kernel("fwd_down", "").mn_major, K, I)

    @_down.register_fake
    def _(out: Any, W_down: Any) -> Any:
        return out.new_empty(out.shape[0], K)

    @torch.library.custom_op("swigen_cpu_test::bwd_dswiglu_out", mutates_args=())
    def _dswiglu_out(dy: torch.Tensor, W_down: torch.Tensor, de: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        dout = dy @ _weight("bwd_dswiglu", W_down, _kernel("bwd_dswiglu", "out").mn_major, I, K)
        left, gate = de[:, :I], de[:, I:]
        s = torch.sigmoid(gate)
        return torch.cat([dout * gate * s, dout * left * s * (1 + gate * (1 - s))], 1), left * gate * s

    @_dswiglu_out.register_fake
    def _(dy: Any, W_down: Any, de: Any) -> Tuple[Any, Any]:
        return de.new_empty(de.shape), de.new_empty(de.shape[0], de.shape[1] // 2)

    FAKE_OPS = types.SimpleNamespace(
        arch_of=lambda device: ARCH,
        fwd_gateup_train=torch.ops.swigen_cpu_test.fwd_gateup_train,
        fwd_gateup=torch.ops.swigen_cpu_test.fwd_gateup,
        fwd_down=torch.ops.swigen_cpu_test.fwd_down,
        bwd_dswiglu_out=torch.ops.swigen_cpu_test.bwd_dswiglu_out,
        bwd_dswiglu_out_over_de=lambda dy, W_down, de: None,  # eager: "cannot run directly", out of place
    )


def package(name: str, *kernels: Tuple[str, str, bool]) -> Any:
    """A package of stand-in kernels (kind, variant, MN-major) for ARCH
    and DT; nothing loads them."""
    p = Package(name=name, dir="/nonexistent")
    for kind, variant, mn in kernels:
        n = "%s_%s%s%s" % (kind, name, "_" + variant if variant else "", "_bmn" if mn else "")
        k = types.SimpleNamespace(name=n)
        p.kernels[n] = Entry(kernel=k, kind=kind, variant=variant, arch=ARCH, dtype=DT, package=name)  # type: ignore[arg-type]
    return p


class RegistryCase(unittest.TestCase):
    """The process's registry emptied for each test and restored after,
    the wheel hidden, and dynamo's caches reset."""

    def setUp(self) -> None:
        self.saved = list(REGISTRY.packages.values())
        REGISTRY.clear()
        torch._dynamo.reset()
        for p in (mock.patch.object(select, "bundle", lambda: None),):
            p.start()
            self.addCleanup(p.stop)

    def tearDown(self) -> None:
        torch._dynamo.reset()
        REGISTRY.clear()
        for p in self.saved:
            REGISTRY.add_package(p)


@unittest.skipIf(torch is None, "needs torch")
class MLPRetraceTest(RegistryCase):
    """swiglu_mlp compiled, the registry changed between two calls."""

    def setUp(self) -> None:
        super().setUp()
        for p in (mock.patch.object(smlp, "_ops", FAKE_OPS),
                  mock.patch.object(smlp, "_index", lambda t: 0),
                  # CPU tensors stand for CUDA ones here
                  mock.patch.object(smlp.opspec, "check_input", lambda *a: None)):
            p.start()
            self.addCleanup(p.stop)
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(M, K, generator=g)
        self.W = torch.randn(2 * I, K, generator=g) / K ** 0.5
        self.W_down = torch.randn(K, I, generator=g) / I ** 0.5
        self.dy = torch.randn(M, K, generator=g)

    def reference(self, grad: bool = True) -> List[Any]:
        """y and, where grad, dx, dW, dW_down of the fp32 block."""
        x, W, Wd = (t.clone().requires_grad_(grad) for t in (self.x, self.W, self.W_down))
        y = _swiglu(x @ W.t()) @ Wd.t()
        if not grad:
            return [y]
        y.backward(self.dy)
        return [y.detach(), x.grad, W.grad, Wd.grad]

    def step(self, f: Any) -> List[Any]:
        x, W, Wd = (t.clone().requires_grad_() for t in (self.x, self.W, self.W_down))
        y = f(x, W, Wd)
        y.backward(self.dy)
        return [y.detach(), x.grad, W.grad, Wd.grad]

    def assertClose(self, got: List[Any], want: List[Any]) -> None:
        for j, (g, w) in enumerate(zip(got, want)):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=lambda m: "output %d: %s" % (j, m))

    def compiled(self, down: str = "torch") -> Tuple[Any, Any]:
        cnt = torch._dynamo.testing.CompileCounterWithBackend(BACKEND)
        f = torch.compile(lambda x, W, Wd: smlp.swiglu_mlp(x, W, Wd, down=down), backend=cnt, fullgraph=True)
        return f, cnt

    def test_backward_layout_follows_the_registry(self) -> None:
        # The backward's bwd_dswiglu_out kernel K-major (W_down^T copied
        # each call), then an _bmn package in its place (W_down as held).
        REGISTRY.add_package(package("train", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", False)))
        f, cnt = self.compiled()
        want = self.reference()
        self.assertClose(self.step(f), want)
        self.assertClose(self.step(f), want)
        self.assertEqual(cnt.frame_count, 1, "the same registry: no retrace")
        REGISTRY.add_package(package("others", ("gemm", "", False), ("moe_fwd_gateup", "", False)))
        self.assertClose(self.step(f), want)
        self.assertEqual(cnt.frame_count, 1, "a package of other kinds: no retrace")
        REGISTRY.remove_package("train")
        REGISTRY.add_package(package("train_bmn", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", True)))
        self.assertClose(self.step(f), want)
        self.assertEqual(cnt.frame_count, 2, "a new registry generation retraces")
        self.assertClose(self.step(f), want)
        self.assertEqual(cnt.frame_count, 2)

    def test_forward_down_layout_follows_the_registry(self) -> None:
        REGISTRY.add_package(package("train", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", True),
                                     ("fwd_down", "", False)))
        f, cnt = self.compiled(down="swigen")
        want = self.reference()
        self.assertClose(self.step(f), want)
        # An _bmn fwd_down registered first in order? K-major candidates
        # come first, so the K-major package leaves for the _bmn one.
        REGISTRY.remove_package("train")
        REGISTRY.add_package(package("train2", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", True),
                                     ("fwd_down", "", True)))
        self.assertClose(self.step(f), want)
        self.assertEqual(cnt.frame_count, 2)

    def test_no_grad_mode_follows_the_registry(self) -> None:
        # Under no_grad the inference kernel runs where registered (its
        # stand-in doubles out, so y doubles), else the training one with
        # de dropped; the package registered or removed after the trace.
        REGISTRY.add_package(package("train", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", True)))
        f, cnt = self.compiled()
        want = self.reference(grad=False)[0]
        with torch.no_grad():
            self.assertClose([f(self.x, self.W, self.W_down)], [want])
            REGISTRY.add_package(package("infer", ("fwd_gateup", "", False)))
            self.assertClose([f(self.x, self.W, self.W_down)], [2 * want])
            self.assertEqual(cnt.frame_count, 2)
            REGISTRY.remove_package("infer")
            self.assertClose([f(self.x, self.W, self.W_down)], [want])
            self.assertEqual(cnt.frame_count, 3)

    def test_eager_follows_the_registry(self) -> None:
        # The decisions' cache (modes.Memo) is keyed on the generation too.
        REGISTRY.add_package(package("train", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", False)))
        f = lambda x, W, Wd: smlp.swiglu_mlp(x, W, Wd)  # noqa: E731
        want = self.reference()
        self.assertClose(self.step(f), want)
        REGISTRY.remove_package("train")
        REGISTRY.add_package(package("train_bmn", ("fwd_gateup", "train", False), ("bwd_dswiglu", "out", True)))
        self.assertClose(self.step(f), want)


@unittest.skipIf(torch is None, "needs torch")
class ExpertsNoRetraceTest(RegistryCase):
    """swiglu_experts compiled: its ops pick their path when they run (the
    fake kernels read shapes alone), so a package registered after the
    trace runs at the next call with no retrace."""

    E, H, I = 3, 16, 8

    def setUp(self) -> None:
        super().setUp()
        self.ran: Dict[str, str] = {}

        def kernel(op: str, T: int, args: Tuple[Any, ...]) -> Any:
            # moe._kernel's decision on a device the tests do not have:
            # moe._plan at the call, as a CUDA input gets it.
            path, why, run = moe._plan(op, torch.device("cuda", 0), args[0].dtype)
            self.ran[op] = path
            if path == moe_plan.REFUSED:
                raise NotImplementedError(why)
            if path != moe_plan.KERNEL:
                return None
            a, w, offs = args
            if op == "moe_down":  # * 3: the "kernel" shows in y
                return [moe._gmm(a, w.transpose(1, 2), offs, (a.shape[0], w.shape[1])) * 3]
            return [moe._swiglu(moe._gateup(a, w, offs)) * 2]  # * 2: the "kernel" shows in y

        for p in (mock.patch.object(moe, "_kernel", kernel),
                  mock.patch.object(moe._ops, "arch_of", lambda device: ARCH)):
            p.start()
            self.addCleanup(p.stop)
        g = torch.Generator().manual_seed(0)
        bf = torch.bfloat16
        self.x = torch.randn(10, self.H, generator=g).to(bf)
        self.W = (torch.randn(self.E, 2 * self.I, self.H, generator=g) / 4).to(bf)
        self.W_down = (torch.randn(self.E, self.H, self.I, generator=g) / 4).to(bf)
        self.offs = torch.tensor([3, 3, 10], dtype=torch.int32)

    def test_registry_change_needs_no_retrace(self) -> None:
        try:
            with torch.no_grad():
                want = moe.swiglu_experts(self.x, self.W, self.W_down, self.offs)
        except (RuntimeError, NotImplementedError) as e:  # a torch without a CPU torch._grouped_mm
            self.skipTest("torch._grouped_mm on the CPU: %s" % e)
        cnt = torch._dynamo.testing.CompileCounterWithBackend(BACKEND)
        f = torch.compile(moe.swiglu_experts, backend=cnt, fullgraph=True)
        with torch.no_grad():
            torch.testing.assert_close(f(self.x, self.W, self.W_down, self.offs), want)
            moe_pkg = Package(name="moe_pkg", dir="/nonexistent")
            for op, kind in (("moe_gateup", "moe_fwd_gateup"), ("moe_down", "moe_gemm")):
                n = kind + "_test"
                spec = opspec.OPS[op]
                # moe_down's B is K-major (moe_plan.WEIGHT_LAYOUT): [E, N, K].
                buffers = [types.SimpleNamespace(name=b, shape=("E", "N", "K") if b == "B" else ())
                           for b in spec.inputs + spec.outputs]
                k = types.SimpleNamespace(name=n, manifest=types.SimpleNamespace(buffers=buffers))
                moe_pkg.kernels[n] = Entry(kernel=k, kind=kind, variant="", arch=ARCH,  # type: ignore[arg-type]
                                           dtype="bfloat16", package="moe_pkg")
            REGISTRY.add_package(moe_pkg)
            got = f(self.x, self.W, self.W_down, self.offs)
            self.assertEqual(self.ran, {"moe_gateup": moe_plan.KERNEL, "moe_down": moe_plan.KERNEL})
            torch.testing.assert_close(got, moe.moe_down(
                moe._swiglu(moe._gateup(self.x, self.W, self.offs)) * 2, self.W_down, self.offs))
            REGISTRY.remove_package("moe_pkg")
            torch.testing.assert_close(f(self.x, self.W, self.W_down, self.offs), want)
            self.assertEqual(self.ran, {"moe_gateup": moe_plan.REFERENCE, "moe_down": moe_plan.REFERENCE})
        self.assertEqual(cnt.frame_count, 1, "the ops decide when they run: no retrace")


@unittest.skipIf(torch is None, "needs torch")
class ExpertsScoreTest(RegistryCase):
    """swiglu_experts with a router score, compiled (fullgraph; the
    backward through AOTAutograd): _score packages registered after the
    trace run at the next call's forward and backward
    (moe_gateup_train_score, moe_dswiglu_out_score with its partials
    summed on the device) with no retrace; a call without a score keeps
    the plain ops' path."""

    E, H, I = 3, 16, 8

    def setUp(self) -> None:
        super().setUp()
        self.ran: Dict[str, str] = {}

        def kernel(op: str, T: int, args: Tuple[Any, ...]) -> Any:
            # moe._kernel's decision (moe._plan, as a CUDA input gets it);
            # the "kernels" mark what they return: out * 2, partials * 3.
            path, why, run = moe._plan(op, torch.device("cuda", 0), args[0].dtype)
            self.ran[op] = path
            if path == moe_plan.REFUSED:
                raise NotImplementedError(why)
            if path != moe_plan.KERNEL:
                return None
            if run == "moe_gateup_train_score":
                x, W, offs, score = args
                de = moe._gateup(x, W, offs)
                # moe_gateup_score on it: de dropped, as moe._kernel does.
                return [moe._swiglu(de, score) * 2, de][:len(opspec.OPS[op].outputs)]
            self.assertEqual((op, run), ("moe_dswiglu_out_score", op))
            dy, W_down, de, offs, score = args
            dout = moe._gmm(dy, W_down, offs, (dy.shape[0], W_down.shape[2]))
            grad_de, out, _ = moe._dswiglu_score(dout, de, score)
            # Two n-blocks of I/2 columns each, as a kernel of TileN = I/2 writes them.
            hd = (de[:, :self.I].float() * F.silu(de[:, self.I:].float())) * dout.float()
            part = torch.stack([hd[:, :self.I // 2].sum(1), hd[:, self.I // 2:].sum(1)], 1)
            return [grad_de, out, part * 3]

        for p in (mock.patch.object(moe, "_kernel", kernel),
                  mock.patch.object(moe._ops, "arch_of", lambda device: ARCH)):
            p.start()
            self.addCleanup(p.stop)
        g = torch.Generator().manual_seed(0)
        bf = torch.bfloat16
        self.x = torch.randn(10, self.H, generator=g).to(bf)
        self.W = (torch.randn(self.E, 2 * self.I, self.H, generator=g) / 4).to(bf)
        self.W_down = (torch.randn(self.E, self.H, self.I, generator=g) / 4).to(bf)
        self.offs = torch.tensor([3, 3, 10], dtype=torch.int32)
        self.score = torch.rand(10, generator=g) + 0.1
        self.dy = torch.randn(10, self.H, generator=g).to(bf)

    def step(self, f: Any) -> Tuple[Any, Any]:
        """y and dscore of one training step of f with the score."""
        s = self.score.clone().requires_grad_(True)
        W = self.W.clone().requires_grad_(True)
        y = f(self.x, W, self.W_down, self.offs, s)
        y.backward(self.dy)
        return y.detach(), s.grad

    def score_package(self) -> Any:
        """Stand-ins of the training forward's and the backward's _score
        kernels, each with its op's buffers."""
        p = Package(name="score_pkg", dir="/nonexistent")
        for op in ("moe_gateup_train_score", "moe_dswiglu_out_score"):
            spec = opspec.OPS[op]
            n = spec.kind + "_score_test"
            buffers = [types.SimpleNamespace(name=b, shape=()) for b in spec.inputs + spec.outputs]
            k = types.SimpleNamespace(name=n, manifest=types.SimpleNamespace(buffers=buffers))
            p.kernels[n] = Entry(kernel=k, kind=spec.kind, variant=spec.variant, arch=ARCH,  # type: ignore[arg-type]
                                 dtype="bfloat16", package="score_pkg")
        return p

    def test_registry_change_needs_no_retrace(self) -> None:
        try:
            want_y, want_ds = self.step(moe.swiglu_experts)
        except (RuntimeError, NotImplementedError) as e:  # a torch without a CPU torch._grouped_mm
            self.skipTest("torch._grouped_mm on the CPU: %s" % e)
        # The weight gradients are swigen::moe_wgrad's (no package: torch._grouped_mm).
        ref = {"moe_gateup_train_score": moe_plan.REFERENCE, "moe_down": moe_plan.REFERENCE,
               "moe_dswiglu_out_score": moe_plan.REFERENCE, "moe_wgrad": moe_plan.REFERENCE}
        self.assertEqual(self.ran, ref)
        cnt = torch._dynamo.testing.CompileCounterWithBackend(BACKEND)
        f = torch.compile(moe.swiglu_experts, backend=cnt, fullgraph=True)
        y, ds = self.step(f)
        torch.testing.assert_close((y, ds), (want_y, want_ds))
        REGISTRY.add_package(self.score_package())
        self.ran.clear()
        y, ds = self.step(f)
        self.assertEqual(cnt.frame_count, 1, "the ops decide when they run: no retrace")
        self.assertEqual(self.ran, {"moe_gateup_train_score": moe_plan.KERNEL, "moe_down": moe_plan.REFERENCE,
                                    "moe_dswiglu_out_score": moe_plan.KERNEL, "moe_wgrad": moe_plan.REFERENCE})
        torch.testing.assert_close(y, want_y * 2, rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(ds, want_ds * 3, rtol=1e-3, atol=1e-4)
        # No gradient: moe_gateup_score on the training kernel, de dropped.
        self.ran.clear()
        with torch.no_grad():
            torch.testing.assert_close(f(self.x, self.W, self.W_down, self.offs, self.score), want_y * 2, rtol=2e-2, atol=2e-2)
        self.assertEqual(self.ran, {"moe_gateup_score": moe_plan.KERNEL, "moe_down": moe_plan.REFERENCE})
        # Without a score, the plain ops: no _score kernel stands in.
        self.ran.clear()
        with torch.no_grad():
            f(self.x, self.W, self.W_down, self.offs)
        self.assertEqual(self.ran, {"moe_gateup": moe_plan.REFERENCE, "moe_down": moe_plan.REFERENCE})
        REGISTRY.remove_package("score_pkg")
        self.ran.clear()
        torch.testing.assert_close(self.step(f), (want_y, want_ds))
        self.assertEqual(self.ran, ref)
        self.assertEqual(cnt.frame_count, 3, "one trace per form of call (training, no_grad, no score); none on a registry change")


if __name__ == "__main__":
    unittest.main()

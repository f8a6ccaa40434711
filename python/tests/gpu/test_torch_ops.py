"""torch.ops.swigen.* and SwiGLUMLP on an sm_90a GPU, on packages of swigen emit --py-package.

SWIGEN_PY_PACKAGES names the package directories (os.pathsep-separated);
bench/py_check.sh emits them. Skipped without torch, CUDA or packages.
"""

from __future__ import annotations

import os
import threading
import unittest
from typing import Any, Dict

import support  # noqa: F401

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # CI: no torch
    torch = None  # type: ignore[assignment]

DIRS = [d for d in os.environ.get("SWIGEN_PY_PACKAGES", "").split(os.pathsep) if d]
READY = torch is not None and torch.cuda.is_available() and bool(DIRS)

if READY:
    from swigen_rt import eval_expr, load_dir, modes, opspec
    from swigen_rt import mlp as smlp
    from swigen_rt import ops as sops

    for _i, _d in enumerate(DIRS):
        load_dir(_d, "swigen_pkg%d" % _i)

M, K, I = 200, 256, 136  # ragged M and I
BF = torch.bfloat16 if torch is not None else None


def rel(a: Any, b: Any) -> float:
    return float((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30))


def has(op: str) -> bool:
    spec = opspec.OPS[op]
    return bool(opspec.REGISTRY.candidates(spec.kind, spec.variant, "sm_90a", "bfloat16"))


def inputs(op: str, seed: int = 0) -> Dict[str, Any]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    r = lambda *s: (torch.randn(*s, device="cuda", generator=g) * 0.5).to(BF)  # noqa: E731
    e = opspec.REGISTRY.candidates(opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16")[0]
    sizes = {"M": M, "K": K, "I": I, "N": I}
    shapes = {b.name: [eval_expr(x, sizes) for x in b.shape] for b in e.kernel.manifest.buffers}
    return {n: r(*shapes[n]) for n in opspec.OPS[op].inputs}


def reference(op: str, t: Dict[str, Any], mn: bool) -> Any:
    f = {n: v.float() for n, v in t.items()}
    w = lambda x: x if mn else x.t()  # noqa: E731  (K-major weights are [N, K])
    if op == "gemm":
        return (f["A"] @ w(f["B"]),)
    if op.startswith("fwd_gateup"):
        de = f["x"] @ w(f["W"])
        left, gate = de[:, :I], de[:, I:]
        return (left * F.silu(gate), de)
    if op.startswith("fwd_down"):
        y = f["out"] @ (f["W_down"] if mn else f["W_down"].t())
        return (y + f["residual"] if "residual" in f else y,)
    dout = f["dy"] @ (f["W_down"] if mn else f["W_down"].t())
    left, gate = f["de"][:, :I], f["de"][:, I:]
    s = torch.sigmoid(gate)
    return (torch.cat([dout * gate * s, dout * left * s * (1 + gate * (1 - s))], 1), left * gate * s)


@unittest.skipUnless(READY, "needs torch, CUDA and SWIGEN_PY_PACKAGES")
class OpsTest(unittest.TestCase):
    def test_ops_match_torch(self) -> None:
        ran = 0
        for op in opspec.OPS:
            if not has(op):
                continue
            e = opspec.REGISTRY.candidates(opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16")[0]
            t = inputs(op)
            got = getattr(torch.ops.swigen, op)(*t.values())
            got = got if isinstance(got, tuple) else (got,)
            want = reference(op, t, e.mn_major)
            for j, g in enumerate(got):
                with self.subTest(op=op, output=j, path=sops.path_of(op, *t.values())):
                    self.assertLess(rel(g, want[j]), 1e-2)
            ran += 1
        self.assertGreater(ran, 0)

    def test_opcheck(self) -> None:
        for op in opspec.OPS:
            if has(op):
                with self.subTest(op=op):
                    # Every default check, test_autograd_registration
                    # included: each op registers its own backward.
                    args = tuple(t.requires_grad_() for t in inputs(op).values())
                    torch.library.opcheck(getattr(torch.ops.swigen, op).default, args)

    def test_grads_match_fp32(self) -> None:
        # The registered backwards against autograd through the fp32
        # reference (gradcheck is too strict for bf16).
        for op in opspec.OPS:
            if not has(op):
                continue
            e = opspec.REGISTRY.candidates(opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16")[0]
            t = {n: v.requires_grad_() for n, v in inputs(op).items()}
            got = getattr(torch.ops.swigen, op)(*t.values())
            got = got if isinstance(got, tuple) else (got,)
            ups = [torch.randn_like(g) for g in got]
            gin = torch.autograd.grad(got, list(t.values()), ups, allow_unused=True)
            f = {n: v.detach().float().requires_grad_() for n, v in t.items()}
            want = reference(op, f, e.mn_major)[:len(got)]
            win = torch.autograd.grad(want, list(f.values()), [u.float() for u in ups], allow_unused=True)
            for n, g, w in zip(t, gin, win):
                with self.subTest(op=op, grad=n):
                    self.assertIsNotNone(g)
                    self.assertLess(rel(g, w), 1e-2)

    def test_direct_call_is_the_op(self) -> None:
        # swigen_rt.ops.<op> skips the dispatcher in eager without grad:
        # the same kernel, bitwise the same outputs as torch.ops.swigen.<op>,
        # and the dispatcher (autograd) as soon as an input requires grad.
        for op in (o for o in opspec.OPS if has(o)):
            with self.subTest(op=op):
                t = inputs(op)
                direct = getattr(sops, op)(*t.values())
                via = getattr(torch.ops.swigen, op)(*t.values())
                for a, b in zip(direct if isinstance(direct, tuple) else (direct,), via if isinstance(via, tuple) else (via,)):
                    self.assertTrue(torch.equal(a, b))
                g = {n: v.clone().requires_grad_() for n, v in t.items()}
                o = getattr(sops, op)(*g.values())
                self.assertIsNotNone((o[0] if isinstance(o, tuple) else o).grad_fn)

    def test_bad_inputs(self) -> None:
        # After a good call, so the bad ones with the same shape, dtype and
        # device (stride, align) meet the cached fast path and must still
        # be named, not launched.
        for op in (o for o in opspec.OPS if has(o)):
            t = inputs(op)
            names = list(t)
            f = getattr(torch.ops.swigen, op)
            f(*t.values())
            bad = {
                "dtype": lambda: {**t, names[0]: t[names[0]].float()},
                "device": lambda: {**t, names[0]: t[names[0]].cpu()},
                "shape": lambda: {**t, names[0]: t[names[0]][:, :-8].contiguous()},
                "K%8": lambda: {**t, names[0]: t[names[0]][:, :-4].contiguous()},
                "stride": lambda: {**t, names[0]: t[names[0]].t().contiguous().t()},
                "align": lambda: {**t, names[0]: torch.empty(t[names[0]].numel() + 1, dtype=BF, device="cuda")[1:].view(t[names[0]].shape)},
                "stride (weight)": lambda: {**t, names[1]: t[names[1]].t().contiguous().t()},
            }
            for what, mk in bad.items():
                for via, g in (("torch.ops", f), ("direct", getattr(sops, op))):
                    with self.subTest(op=op, what=what, via=via):
                        bad_t = mk()
                        with self.assertRaises(ValueError) as cm:
                            g(*bad_t.values())
                        self.assertIn(names[1] if "weight" in what else names[0], str(cm.exception))

    def test_stream_thread_graph(self) -> None:
        op = next(o for o in opspec.OPS if has(o))
        f = getattr(torch.ops.swigen, op)
        t = inputs(op)
        base = f(*t.values())
        base = base[0] if isinstance(base, tuple) else base
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            o = f(*t.values())
        s.synchronize()
        self.assertTrue(torch.equal(o[0] if isinstance(o, tuple) else o, base))
        res: Dict[str, Any] = {}

        def work() -> None:
            r = f(*t.values())
            torch.cuda.synchronize()
            res["o"] = r[0] if isinstance(r, tuple) else r

        th = threading.Thread(target=work)
        th.start()
        th.join()
        self.assertTrue(torch.equal(res["o"], base))
        static = {n: v.clone() for n, v in t.items()}
        f(*static.values())  # warm up (load, descriptors) outside the capture
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = f(*static.values())
        for seed in (1, 2, 3):
            new = inputs(op, seed)
            for n in static:
                static[n].copy_(new[n])
            g.replay()
            torch.cuda.synchronize()
            want = f(*new.values())
            self.assertTrue(torch.equal(out[0] if isinstance(out, tuple) else out, want[0] if isinstance(want, tuple) else want))


@unittest.skipUnless(READY and has("fwd_gateup_train") and has("fwd_down") and has("bwd_dswiglu_out"),
                     "needs fwd_gateup --store-out, fwd_down and bwd_dswiglu --store-out packages")
class MLPTest(unittest.TestCase):
    def ref_block(self) -> Any:
        torch.manual_seed(0)
        gate, up, down = (torch.nn.Linear(K, I, bias=False), torch.nn.Linear(K, I, bias=False), torch.nn.Linear(I, K, bias=False))
        return gate.cuda(), up.cuda(), down.cuda()

    def model(self, **kw: Any) -> Any:
        gate, up, down = self.ref_block()
        m = smlp.SwiGLUMLP(K, I, device="cuda", **kw)
        m.load_gate_up(gate.weight.to(m.W.dtype), up.weight.to(m.W.dtype), down.weight.to(m.W.dtype))
        return m

    def fp32(self, m: Any, xs: Any, r: Any = None) -> Any:
        """y and, after yr.backward, the grads of x, W, W_down in fp32."""
        xr = xs.detach().float().requires_grad_()
        ws = [m.W.detach().float().requires_grad_(), m.W_down.detach().float().requires_grad_()]
        de = xr @ ws[0].t()
        yr = (de[..., :I] * F.silu(de[..., I:])) @ ws[1].t()
        if r is not None:
            yr = yr + r.detach().float()
        return yr, xr, ws

    def check_step(self, m: Any, residual: bool, retain: bool = False, rows: int = M) -> str:
        x = torch.randn(2, rows // 2, K, device="cuda")
        xs = x.to(BF).requires_grad_()
        r = torch.randn(2, rows // 2, K, device="cuda").to(BF).requires_grad_() if residual else None
        y = m(xs, r)
        dy = torch.randn_like(y)
        y.backward(dy, retain_graph=retain)
        path = smlp.last_grad_de_path()
        yr, xr, ws = self.fp32(m, xs, r)
        yr.backward(dy.float())
        self.assertLess(rel(y, yr), 1e-2)
        self.assertLess(rel(xs.grad, xr.grad), 1e-2)
        self.assertLess(rel(m.W.grad, ws[0].grad), 1e-2)
        self.assertLess(rel(m.W_down.grad, ws[1].grad), 1e-2)
        if r is not None:
            self.assertTrue(torch.equal(r.grad, dy))
        if retain:  # a second backward on the kept graph: de was left intact
            g = [xs.grad.clone(), m.W.grad.clone(), m.W_down.grad.clone()]
            y.backward(dy)
            for a, b in zip((xs.grad, m.W.grad, m.W_down.grad), g):
                self.assertLess(rel(a, 2 * b.float()), 1e-2)
        return path

    def test_matches_fp32_reference(self) -> None:
        downs = [d for d in smlp.DOWN_PATHS if d == "torch" or has("fwd_down")]
        for path in downs:
            for dx in ("one", "halves"):
                for residual in (False, True):
                    if residual and path == "swigen" and not has("fwd_down_residual"):
                        continue
                    with self.subTest(down=path, dx=dx, residual=residual):
                        how = self.check_step(self.model(down=path, dx=dx), residual)
                        self.assertTrue(how.startswith("in place"), how)
        with self.assertRaises(ValueError):
            smlp.SwiGLUMLP(K, I, device="cuda", down="cublas")
        with self.assertRaises(ValueError):
            smlp.SwiGLUMLP(K, I, device="cuda", dx="thirds")

    def test_out_of_place_paths(self) -> None:
        # retain_graph keeps de for a second backward: out of place, and
        # both backwards correct; saved-tensor hooks: out of place.
        how = self.check_step(self.model(), False, retain=True)
        self.assertTrue(how.startswith("out of place") and "retain_graph" in how, how)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            how = self.check_step(self.model(), False)
        self.assertTrue(how.startswith("out of place") and "hooks" in how, how)

    def test_each_dw_down_order(self) -> None:
        # modes.dw_down_order by rows (M) against K=256: over grad_de (M < K <= 2M, in place), last (out of
        # place, M < K), first (M >= K; K > 2M in place).
        cases = [(200, False, modes.DW_DOWN_OVER_GRAD_DE), (200, True, modes.DW_DOWN_LAST),
                 (600, False, modes.DW_DOWN_FIRST), (600, True, modes.DW_DOWN_FIRST),
                 (100, False, modes.DW_DOWN_FIRST), (100, True, modes.DW_DOWN_LAST)]
        for rows, retain, order in cases:
            with self.subTest(rows=rows, retain=retain):
                self.assertEqual(modes.dw_down_order(rows, K, I, not retain), order)
                for dx in ("one", "halves"):
                    how = self.check_step(self.model(dx=dx), False, retain=retain, rows=rows)
                    self.assertEqual(how.startswith("in place"), not retain, how)

    def test_in_place_saves_memory(self) -> None:
        # The in-place backward's peak is at least grad_de (2*M*I) below
        # the out-of-place one's.
        m = self.model()
        x = torch.randn(4096, K, device="cuda", dtype=BF, requires_grad=True)
        # One step first: the first backward also allocates what stays
        # (cuBLAS's workspace, the launchers' buffers), which would land in
        # whichever path is measured first.
        y = m(x)
        torch.autograd.grad(y, [x, m.W, m.W_down], torch.randn_like(y))
        del y
        peaks = {}
        for retain in (False, True):
            y = m(x)
            dy = torch.randn_like(y)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            g = torch.autograd.grad(y, [x, m.W, m.W_down], dy, retain_graph=retain)
            torch.cuda.synchronize()
            peaks[retain] = torch.cuda.max_memory_allocated() - base
            del y, g
        grad_de = 2 * 4096 * I * 2  # bytes
        self.assertLessEqual(peaks[False] + 0.9 * grad_de, peaks[True], peaks)

    def test_double_backward_refused(self) -> None:
        m = self.model()
        x = torch.randn(M, K, device="cuda", dtype=BF, requires_grad=True)
        y = m(x)
        with self.assertRaises(RuntimeError) as cm:
            torch.autograd.grad(y, x, torch.randn_like(y), create_graph=True)
        self.assertIn("double backward", str(cm.exception))

    def test_modes(self) -> None:
        m = self.model()
        x = torch.randn(M, K, device="cuda", dtype=BF)
        yr, _, _ = self.fp32(m, x)
        with torch.no_grad():
            self.assertLess(rel(m(x), yr), 1e-2)
        with torch.inference_mode():
            self.assertLess(rel(m(x), yr), 1e-2)
        m.eval()
        self.assertLess(rel(m(x), yr), 1e-2)  # params require grad: a training forward
        # autocast: fp32 weights and input, bf16 kernels; grads reach the fp32 weights
        m32 = self.model(dtype=torch.float32)
        x32 = x.float().requires_grad_()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = m32(x32)
        self.assertEqual(y.dtype, torch.bfloat16)
        self.assertLess(rel(y, yr), 1e-2)
        y.float().sum().backward()
        self.assertEqual(m32.W.grad.dtype, torch.float32)
        self.assertEqual(x32.grad.dtype, torch.float32)

    def test_training_package_alone(self) -> None:
        # no_grad with only the training fwd_gateup registered: it runs and
        # drops de; with no fwd_gateup at all the error names the emits.
        reg = opspec.REGISTRY
        pkgs = list(reg.packages.values())
        m = self.model()
        x = torch.randn(M, K, device="cuda", dtype=BF)
        yr, _, _ = self.fp32(m, x)
        try:
            reg.clear()
            for p in pkgs:
                if not p.by_kind("fwd_gateup", ""):
                    reg.add_package(p)
            with torch.no_grad():
                self.assertLess(rel(m(x), yr), 1e-2)
            reg.clear()
            for p in pkgs:
                if not p.by_kind("fwd_gateup", "") and not p.by_kind("fwd_gateup", "train"):
                    reg.add_package(p)
            with torch.no_grad(), self.assertRaises(ValueError) as cm:
                m(x)
            self.assertIn("swigen emit --arch sm_90a --kernel fwd_gateup", str(cm.exception))
        finally:
            reg.clear()
            for p in pkgs:
                reg.add_package(p)

    def test_compile_fullgraph(self) -> None:
        for path in smlp.DOWN_PATHS:
            with self.subTest(down=path):
                m = smlp.SwiGLUMLP(K, I, device="cuda", down=path)
                x = torch.randn(M, K, device="cuda", dtype=BF)
                eager = m(x)
                c = torch.compile(lambda a: m(a) * 2, fullgraph=True)
                self.assertTrue(torch.equal(c(x), eager * 2))

    def test_compile_follows_the_registry(self) -> None:
        """Packages removed or registered after torch.compile traced the
        block: the next call retraces (the graph is guarded on the
        registry's generation) and runs what the registry says then: under
        no_grad the training kernel with de dropped once the inference
        package is gone; where SWIGEN_PY_ALT_PACKAGES names a K-major
        bwd_dswiglu --store-out package, the training step's backward with
        W_down^T once it is registered (it comes before the _bmn one)."""
        import torch._dynamo
        import torch._dynamo.testing

        reg = opspec.REGISTRY
        pkgs = list(reg.packages.values())
        m = self.model()
        x = torch.randn(M, K, device="cuda", dtype=BF)
        torch._dynamo.reset()
        cnt = torch._dynamo.testing.CompileCounterWithBackend("inductor")
        c = torch.compile(m, backend=cnt, fullgraph=True)
        yr, _, _ = self.fp32(m, x)
        try:
            with torch.no_grad():
                self.assertLess(rel(c(x), yr), 1e-2)
                for p in pkgs:
                    if p.by_kind("fwd_gateup", ""):
                        reg.remove_package(p.name)
                # (before the fix the graph kept calling fwd_gateup: "no kernel registered")
                self.assertLess(rel(c(x), yr), 1e-2)
                self.assertEqual(cnt.frame_count, 2, "a registry change retraces once")
                self.assertLess(rel(c(x), yr), 1e-2)
                self.assertEqual(cnt.frame_count, 2, "the same registry: no retrace")
            self.check_step(c, False)
            if ALT_DIRS:
                kn = smlp.bwd_takes_w_down_kn("sm_90a", "bfloat16")
                for j, d in enumerate(ALT_DIRS):
                    load_dir(d, "swigen_alt_pkg%d" % j)
                self.assertNotEqual(smlp.bwd_takes_w_down_kn("sm_90a", "bfloat16"), kn,
                                    "the alt package flips the backward's W_down layout")
                n = cnt.frame_count
                m.zero_grad(set_to_none=True)
                self.check_step(c, False)  # (before the fix: a ShapeError naming W_down)
                self.assertGreater(cnt.frame_count, n)
        finally:
            reg.clear()
            for p in pkgs:
                reg.add_package(p)
            torch._dynamo.reset()


ALT_DIRS = [d for d in os.environ.get("SWIGEN_PY_ALT_PACKAGES", "").split(os.pathsep) if d]
"""Packages of the other weight layout (bench/py_check.sh: bwd_dswiglu
--store-out K-major), registered only by test_compile_follows_the_registry."""


UNFUSED_DIRS = [d for d in os.environ.get("SWIGEN_PY_UNFUSED_PACKAGES", "").split(os.pathsep) if d]


@unittest.skipUnless(READY and bool(UNFUSED_DIRS), "needs SWIGEN_PY_UNFUSED_PACKAGES (emit --path unfused)")
class UnfusedMLPTest(MLPTest):
    """MLPTest's step on the plans' unfused path alone (torch's matmul, then
    the elementwise kernel, grad_de over de in place where allowed)."""

    def setUp(self) -> None:
        reg = opspec.REGISTRY
        self.saved = list(reg.packages.values())
        reg.clear()
        for j, d in enumerate(UNFUSED_DIRS):
            load_dir(d, "swigen_unfused_pkg%d" % j)
        for op in ("fwd_gateup_train", "bwd_dswiglu_out"):
            e = reg.candidates(opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16")[0]
            self.assertIsNotNone(e.dispatch, e.name)
        for p in self.saved:  # the rest (fwd_down, the inference kernel) after the unfused ones
            reg.add_package(p)

    def tearDown(self) -> None:
        reg = opspec.REGISTRY
        reg.clear()
        for p in self.saved:
            reg.add_package(p)

    def test_paths_are_unfused(self) -> None:
        x = torch.randn(M, K, device="cuda", dtype=BF)
        self.assertEqual(sops.path_of("fwd_gateup_train", x, torch.randn(2 * I, K, device="cuda", dtype=BF))[0],
                         "unfused")

    def test_training_package_alone(self) -> None:
        self.skipTest("MLPTest's: it re-registers the packages itself")


if __name__ == "__main__":
    unittest.main()

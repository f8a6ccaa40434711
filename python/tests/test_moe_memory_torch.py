"""SwiGLUExperts' training-step memory on the CPU: what its autograd
saves (saved-tensor hooks) and the live bytes of every buffer its ops
return, step by step, against moe_plan.step_bytes' model
(docs/PERFORMANCE.md#moe-layer-memory). The grouped ops are opaque to
the tracker (a dispatch mode sees a custom op's outputs, not its
reference path's temporaries), so what it counts is what the kernel path
allocates. Skipped without torch (CI)."""

from __future__ import annotations

import unittest
import warnings
import weakref
from typing import Any, Dict, List, Optional, Set, Tuple

import support  # noqa: F401

from swigen_rt import moe_plan

try:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    from swigen_rt import moe
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]
    TorchDispatchMode = object  # type: ignore[assignment,misc]


class LiveBytes(TorchDispatchMode):  # type: ignore[misc,valid-type]
    """The bytes of the storages ops return while they live, and their
    peak. A storage an op reads that the tracker has not seen returned
    (the caller's x, weights, dy, and views of them) is the caller's and
    never counted; each storage is forgotten when torch frees it."""

    def __init__(self) -> None:
        super().__init__()
        self.live: Dict[int, int] = {}
        self.theirs: Set[int] = set()
        self.now = 0
        self.peak = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        for t in tree_flatten((args, kwargs or {}))[0]:
            if isinstance(t, torch.Tensor):
                self._note(t.untyped_storage(), mine=False)
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self._note(t.untyped_storage(), mine=True)
        return out

    def _note(self, st: Any, mine: bool) -> None:
        k = st.data_ptr()
        if k in self.live or k in self.theirs or st.nbytes() == 0:
            return
        if mine:
            self.live[k] = st.nbytes()
            self.now += st.nbytes()
            self.peak = max(self.peak, self.now)
        else:
            self.theirs.add(k)
        weakref.finalize(st, self._free, k)

    def _free(self, k: int) -> None:
        if k in self.live:
            self.now -= self.live.pop(k)
        self.theirs.discard(k)


def _problem(counts: List[int], H: int, I: int, score: bool, seed: int = 5) -> Dict[str, Any]:  # noqa: E741
    g = torch.Generator().manual_seed(seed)
    E, T = len(counts), sum(counts)
    m = moe.SwiGLUExperts(E, H, I)
    with torch.no_grad():
        m.W.copy_(torch.randn(E, 2 * I, H, generator=g) / H ** 0.5)
        m.W_down.copy_(torch.randn(E, H, I, generator=g) / I ** 0.5)
    return {"m": m, "x": (torch.randn(T, H, generator=g)).bfloat16().requires_grad_(True),
            "offs": torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32),
            "score": torch.rand(T, generator=g).requires_grad_(True) if score else None,
            "dy": torch.randn(T, H, generator=g).bfloat16()}


def _step(p: Dict[str, Any], track: Optional[LiveBytes] = None, retain: bool = False) -> Tuple[int, int, int]:
    """One step (y held through the backward): (forward peak, step peak,
    held after) of track, zeros without one."""
    track = track or LiveBytes()
    with track:
        y = p["m"](p["x"], p["offs"], p["score"])
        fwd = track.peak
        y.backward(p["dy"], retain_graph=retain)
        end = track.now
        del y
    return fwd, track.peak, end


def _grads(p: Dict[str, Any]) -> List[Any]:
    got = [p["x"].grad, p["m"].W.grad, p["m"].W_down.grad] + ([p["score"].grad] if p["score"] is not None else [])
    return [g.clone() for g in got]


def _zero(p: Dict[str, Any]) -> None:
    for t in (p["x"], p["m"].W, p["m"].W_down, p["score"]):
        if t is not None:
            t.grad = None


@unittest.skipIf(torch is None, "needs torch")
class StepMemoryTest(unittest.TestCase):
    # counts, H, I: rows < E*H takes DW_DOWN_LAST, rows >= E*H DW_DOWN_FIRST.
    SHAPES = [([3, 0, 5, 8], 32, 16), ([15, 25], 16, 8), ([0, 9, 0, 30, 1], 16, 24)]

    def test_peak_is_the_model(self) -> None:
        for counts, H, I in self.SHAPES:  # noqa: E741
            for score in (False, True):
                E, T = len(counts), sum(counts)
                want = moe_plan.step_bytes(T, H, I, E, score=score)
                with self.subTest(counts=counts, H=H, I=I, score=score, order=want.order):
                    p = _problem(counts, H, I, score)
                    fwd, peak, end = _step(p)
                    # Before: de held to the end of the backward, dW_down
                    # always first: y + dx + dW + dW_down + 2 [T, 2I] more.
                    self.assertEqual((fwd, peak, end), (want.fwd_peak, want.peak, want.end))

    def test_orders_at_the_tests_shapes(self) -> None:
        got = [moe_plan.dw_down_order(sum(c), H, I, len(c)) for c, H, I in self.SHAPES]  # noqa: E741
        self.assertEqual(got, [moe_plan.DW_DOWN_LAST, moe_plan.DW_DOWN_FIRST, moe_plan.DW_DOWN_LAST])

    def test_saved_is_de_alone(self) -> None:
        p = _problem([3, 0, 5, 8], 32, 16, score=True)
        caller = {t.untyped_storage().data_ptr() for t in (p["x"], p["m"].W, p["m"].W_down, p["offs"], p["score"])}
        saved: List[Any] = []

        def pack(t: Any) -> Any:
            saved.append(t)
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = p["m"](p["x"], p["offs"], p["score"])
        ours = [t for t in saved if t.untyped_storage().data_ptr() not in caller]
        self.assertEqual([tuple(t.shape) for t in ours], [(16, 32)], "de [T, 2I] and nothing else")
        self.assertEqual(sum(t.untyped_storage().nbytes() for t in ours), moe_plan.step_bytes(16, 32, 16, 4).saved)
        y.backward(p["dy"])

    def test_retain_graph_keeps_de(self) -> None:
        # maybe_clear_saved_tensors leaves de where autograd keeps the
        # graph: a second backward reads it and accumulates the same grads.
        for counts, H, I in self.SHAPES[:2]:  # noqa: E741
            with self.subTest(counts=counts):
                p = _problem(counts, H, I, score=True)
                _step(p)
                once = _grads(p)
                _zero(p)
                y = p["m"](p["x"], p["offs"], p["score"])
                y.backward(p["dy"], retain_graph=True)
                y.backward(p["dy"])
                for a, b in zip(_grads(p), once):
                    torch.testing.assert_close(a.float(), 2 * b.float(), atol=1e-2, rtol=1e-2)

    def test_second_backward_is_refused(self) -> None:
        # Without retain_graph the released ctx reads as freed: torch's own
        # error, not a backward over nothing.
        p = _problem([3, 0, 5, 8], 32, 16, score=True)
        y = p["m"](p["x"], p["offs"], p["score"])
        y.backward(p["dy"])
        with self.assertRaisesRegex(RuntimeError, "second time"):
            y.backward(p["dy"])

    def test_checkpoint(self) -> None:
        # Activation checkpointing (saved-tensor hooks or a reentrant
        # recompute) unpacks de from its own store: the same grads.
        import torch.utils.checkpoint as cp  # noqa: PLC0415

        for reentrant in (False, True):
            with self.subTest(use_reentrant=reentrant):
                p = _problem([3, 0, 5, 8], 32, 16, score=True)
                _step(p)
                want = _grads(p)
                _zero(p)
                y = cp.checkpoint(p["m"], p["x"], p["offs"], p["score"], use_reentrant=reentrant)
                y.backward(p["dy"])
                for a, b in zip(_grads(p), want):
                    self.assertTrue(torch.equal(a, b))

    def test_hooks_and_order_keep_the_gradients(self) -> None:
        # The same grads with saved-tensor hooks (packed copies) as without,
        # and as the dense per-expert float64 reference.
        for counts, H, I in self.SHAPES:  # noqa: E741
            with self.subTest(counts=counts):
                p = _problem(counts, H, I, score=True)
                _step(p)
                plain = _grads(p)
                _zero(p)
                with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
                    y = p["m"](p["x"], p["offs"], p["score"])
                y.backward(p["dy"])
                for a, b in zip(_grads(p), plain):
                    self.assertTrue(torch.equal(a, b))
                for a, b in zip(plain, _reference(p, counts)):
                    torch.testing.assert_close(a.double(), b, atol=3e-2, rtol=3e-2)


@unittest.skipIf(torch is None, "needs torch")
class GateupTrainAutogradTest(unittest.TestCase):
    """moe_gateup_train's own autograd formula (for callers of the op):
    gradients through out and de against float64, once and under
    retain_graph (its saved de released only where autograd keeps no
    graph)."""

    def test_grads(self) -> None:
        counts, H, I = [4, 0, 7, 5], 16, 8  # noqa: E741
        g = torch.Generator().manual_seed(2)
        T, E = sum(counts), len(counts)
        x = torch.randn(T, H, generator=g).bfloat16().requires_grad_(True)
        W = (torch.randn(E, 2 * I, H, generator=g) / 4).bfloat16().requires_grad_(True)
        score = torch.rand(T, generator=g).requires_grad_(True)
        offs = torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32)
        g_out, g_de = torch.randn(T, I, generator=g), torch.randn(T, 2 * I, generator=g)

        def loss(x: Any, W: Any, score: Any, op: bool) -> Any:
            if op:
                out, de = torch.ops.swigen.moe_gateup_train(x, W, offs, score)
            else:
                de = torch.cat([x[r - n:r] @ W[e].t() for e, (n, r) in enumerate(zip(counts, offs.tolist()))])
                out = score[:, None] * de[:, :I] * torch.nn.functional.silu(de[:, I:])
            return (out.double() * g_out.double()).sum() + (de.double() * g_de.double()).sum()

        leaves = [t.detach().double().requires_grad_(True) for t in (x, W, score)]
        loss(*leaves, op=False).backward()
        for retain in (False, True):
            with self.subTest(retain_graph=retain):
                for t in (x, W, score):
                    t.grad = None
                z = loss(x, W, score, op=True)
                z.backward(retain_graph=retain)
                if retain:
                    z.backward()  # de read again: the same grads twice
                for got, ref in zip((x.grad, W.grad, score.grad), leaves):
                    want = ref.grad * (2 if retain else 1)
                    torch.testing.assert_close(got.double(), want, atol=0.1, rtol=3e-2)


    def test_double_backward(self) -> None:
        # create_graph: the ops' autograd formulas (the reference dSwiGLU
        # in Python) are themselves differentiated, so their fp32
        # temporaries must not be written in place after autograd saved
        # them. A gradient penalty on dx against float64's.
        counts, H, I = [4, 0, 7, 5], 16, 8  # noqa: E741
        g = torch.Generator().manual_seed(4)
        T, E = sum(counts), len(counts)
        x = torch.randn(T, H, generator=g).bfloat16().requires_grad_(True)
        W = (torch.randn(E, 2 * I, H, generator=g) / 4).bfloat16().requires_grad_(True)
        score = torch.rand(T, generator=g).requires_grad_(True)
        offs = torch.tensor(moe_plan.counts_to_offs(counts), dtype=torch.int32)
        g_out = torch.randn(T, I, generator=g)

        def penalty(x: Any, W: Any, score: Any, op: Optional[str]) -> Any:
            if op == "moe_gateup":
                out = torch.ops.swigen.moe_gateup(x, W, offs, score)
            elif op == "moe_gateup_train":
                out, _ = torch.ops.swigen.moe_gateup_train(x, W, offs, score)
            else:
                de = torch.cat([x[r - n:r] @ W[e].t() for e, (n, r) in enumerate(zip(counts, offs.tolist()))])
                out = de[:, :I] * torch.nn.functional.silu(de[:, I:])
                out = out if score is None else score[:, None] * out
            gx, = torch.autograd.grad((out.double() * g_out.double()).sum(), [x], create_graph=True)
            return (gx.double() ** 2).sum()

        for with_score in (False, True):
            leaves = [t.detach().double().requires_grad_(True) for t in (x, score)]
            penalty(leaves[0], W.detach().double(), leaves[1] if with_score else None, None).backward()
            for op in ("moe_gateup", "moe_gateup_train"):
                with self.subTest(op=op, score=with_score):
                    x.grad = score.grad = None
                    penalty(x, W, score if with_score else None, op).backward()
                    torch.testing.assert_close(x.grad.double(), leaves[0].grad, atol=0.1, rtol=3e-2)
                    if with_score:
                        torch.testing.assert_close(score.grad.double(), leaves[1].grad, atol=0.1, rtol=3e-2)


@unittest.skipIf(torch is None, "needs torch")
class CompiledStepTest(unittest.TestCase):
    """The layer's step under torch.compile(fullgraph=True) (AOTAutograd,
    aot_eager: no host compiler): its backward traces (no early release
    there, AOT autograd frees its own saved tensors), with no warning, and
    gives the eager step's gradients bit for bit."""

    def test_compiled_step(self) -> None:
        import torch._dynamo.testing  # noqa: PLC0415

        p = _problem([3, 0, 5, 8], 32, 16, score=True)
        _step(p)
        want = _grads(p)
        _zero(p)
        torch._dynamo.reset()
        cnt = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
        f = torch.compile(moe.swiglu_experts, backend=cnt, fullgraph=True)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y = f(p["x"], p["m"].W, p["m"].W_down, p["offs"], p["score"])
            y.backward(p["dy"])
        self.assertEqual([str(w.message) for w in seen if "moe" in str(w.message) or "swigen" in str(w.message)], [])
        self.assertEqual(cnt.frame_count, 1)
        for a, b in zip(_grads(p), want):
            self.assertTrue(torch.equal(a, b))


    def test_compiled_autograd(self) -> None:
        # Compiled autograd (the backward traced by dynamo, ctx a stand-in):
        # _release_saved is skipped there and the gradients are the eager's.
        from torch._dynamo import compiled_autograd  # noqa: PLC0415

        enable = getattr(compiled_autograd, "_enable", None)
        if enable is None:
            self.skipTest("this torch has no compiled_autograd._enable")
        p = _problem([3, 0, 5, 8], 32, 16, score=True)
        _step(p)
        want = _grads(p)
        _zero(p)
        torch._dynamo.reset()
        y = p["m"](p["x"], p["offs"], p["score"])
        with enable(torch.compile(backend="aot_eager")):
            y.backward(p["dy"])
        for a, b in zip(_grads(p), want):
            self.assertTrue(torch.equal(a, b))


def _textbook(dout: Any, de: Any, score: Any = None) -> Tuple[Any, ...]:
    """The reference dSwiGLU as first written (fp32, out of place): the
    oracle of moe._dswiglu's and moe._dswiglu_score's bits."""
    i = de.shape[1] // 2
    left, gate, d = de[:, :i].float(), de[:, i:].float(), dout.float()
    sc = None if score is None else score.float()[:, None]
    s = torch.sigmoid(gate)
    f = gate * s
    h = left * f
    ds = d if sc is None else d * sc
    grad = torch.cat([ds * f, ds * left * s * (1 + gate * (1 - s))], 1).to(de.dtype)
    if sc is None:
        return grad, h.to(de.dtype)
    return grad, (h * sc).to(de.dtype), (h * d).sum(1)


def _textbook_fwd(de: Any, score: Any = None) -> Any:
    i = de.shape[1] // 2
    h = de[:, :i].float() * torch.nn.functional.silu(de[:, i:].float())
    return (h if score is None else h * score[:, None]).to(de.dtype)


@unittest.skipIf(torch is None, "needs torch")
class ReferenceTemporariesTest(unittest.TestCase):
    """The reference path's SwiGLU and dSwiGLU (the ops' path without a
    kernel: the CPU, or a GPU with no package): the textbook formula's
    bits, with fewer fp32 temporaries live."""

    T, I = 96, 40  # noqa: E741

    def inputs(self) -> Tuple[Any, Any, Any]:
        g = torch.Generator().manual_seed(11)
        de = (torch.randn(self.T, 2 * self.I, generator=g) * 4).bfloat16()
        de[:4, self.I:] = torch.tensor([30.0, -30.0, 0.0, -1e-3])[:, None].bfloat16()  # saturated and zero gates
        dout = torch.randn(self.T, self.I, generator=g).bfloat16()
        return dout, de, torch.rand(self.T, generator=g)

    def test_bits_are_the_textbooks(self) -> None:
        dout, de, score = self.inputs()
        for got, want in [(moe._dswiglu(dout, de), _textbook(dout, de)),
                          (moe._dswiglu_score(dout, de, score), _textbook(dout, de, score)),
                          ((moe._swiglu(de),), (_textbook_fwd(de),)),
                          ((moe._swiglu(de, score),), (_textbook_fwd(de, score),))]:
            self.assertEqual(len(got), len(want))
            for a, b in zip(got, want):
                self.assertEqual((a.dtype, a.shape), (b.dtype, b.shape))
                self.assertTrue(torch.equal(a, b))
        # The out-of-place form a create_graph backward runs: the same bits.
        grad, none = moe._dswiglu_graph(dout, de, None)
        self.assertTrue(none is None and torch.equal(grad, _textbook(dout, de)[0]))
        grad, dscore = moe._dswiglu_graph(dout, de, score)
        want = _textbook(dout, de, score)
        self.assertTrue(torch.equal(grad, want[0]) and torch.equal(dscore, want[2].to(score.dtype)))

    def test_inputs_untouched(self) -> None:
        # The in-place forms write only over their own fp32 copies, also
        # where an input is fp32 already (.float() would return it).
        dout, de, score = self.inputs()
        for dt in (torch.bfloat16, torch.float32):
            d, e = dout.to(dt), de.to(dt)
            keep = (d.clone(), e.clone(), score.clone())
            for name, fn in (("swiglu", lambda: moe._swiglu(e, score)), ("dswiglu", lambda: moe._dswiglu(d, e)),
                             ("score", lambda: moe._dswiglu_score(d, e, score))):
                with self.subTest(dtype=dt, fn=name):
                    fn()
                    for a, b in zip((d, e, score), keep):
                        self.assertTrue(torch.equal(a, b))

    def test_fp32_temporaries(self) -> None:
        dout, de, score = self.inputs()
        f32 = 4 * self.T * self.I  # one [T, I] fp32
        outs = {"dswiglu": 3 * self.T * self.I * 2, "score": 3 * self.T * self.I * 2 + 4 * self.T,
                "swiglu": self.T * self.I * 2}
        cases = [("dswiglu", lambda: moe._dswiglu(dout, de), lambda: _textbook(dout, de), 5),
                 ("score", lambda: moe._dswiglu_score(dout, de, score), lambda: _textbook(dout, de, score), 7),
                 ("swiglu", lambda: moe._swiglu(de, score), lambda: _textbook_fwd(de, score), 2)]
        for name, new, old, most in cases:
            with self.subTest(name=name):
                peaks = []
                for fn in (new, old):
                    track = LiveBytes()
                    with track:
                        got = fn()
                    del got
                    peaks.append(track.peak - outs[name])
                self.assertLessEqual(peaks[0], most * f32, "fp32 temporaries beside the outputs")
                self.assertLess(peaks[0], peaks[1], "fewer than the textbook formula's")


def _reference(p: Dict[str, Any], counts: List[int]) -> List[Any]:
    """float64 per-expert grads of y = down(score * up * silu(gate)) for dy."""
    m = p["m"]
    x = p["x"].detach().double().requires_grad_(True)
    W = m.W.detach().double().requires_grad_(True)
    Wd = m.W_down.detach().double().requires_grad_(True)
    s = p["score"].detach().double().requires_grad_(True)
    I = m.intermediate  # noqa: E741
    ys, r = [], 0
    for e, n in enumerate(counts):
        h = x[r:r + n] @ W[e].t()
        ys.append((s[r:r + n, None] * h[:, :I] * torch.nn.functional.silu(h[:, I:])) @ Wd[e].t())
        r += n
    torch.cat(ys).backward(p["dy"].double())
    return [x.grad, W.grad, Wd.grad, s.grad]


if __name__ == "__main__":
    unittest.main()

"""bench/moe_perf.py on the CPU at a tiny shape: the grouped and swigen
peers read the problem's one [up ; gate] buffer (no copy) and still
match the fp32 per-expert reference (gradients mapped to the right
halves), and the grouped peer's memory model reproduces the H100's
measured peaks. Skipped without torch (CI)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import unittest
from typing import Any

import support  # noqa: F401

try:
    import torch
    import torch.nn.functional as F  # noqa: F401

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
    import moe_perf
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]


@unittest.skipIf(torch is None, "needs torch")
class MoePerfCpuTest(unittest.TestCase):
    def setUp(self) -> None:
        moe_perf.MODELS["tiny"] = (4, 32, 16, 2, (24,))
        self.addCleanup(moe_perf.MODELS.pop, "tiny")

    def test_peers_share_the_weights_and_match(self) -> None:
        # torch.compile needs a host compiler; the SwiGLU's halves are what is checked.
        real = moe_perf.torch.compile
        moe_perf.torch.compile = lambda f: f  # type: ignore[assignment]
        self.addCleanup(setattr, moe_perf.torch, "compile", real)
        moe_perf._swiglu_compiled.clear()
        for routing in ("uniform", "zipf"):
            p = moe_perf.make_problem("tiny", 24, routing, dev="cpu")
            refs = {e: moe_perf.ref_expert(p, e) for e in moe_perf.sample_experts(p)}
            for name in ("grouped", "swigen"):
                with self.subTest(routing=routing, peer=name):
                    peer = moe_perf.BUILDERS[name](p)
                    w = peer.params[1]
                    self.assertEqual(w.untyped_storage().data_ptr(), p.ug.untyped_storage().data_ptr(), "no copy")
                    y = peer.fwd()
                    y.backward(peer.dy)
                    err = moe_perf.check(p, peer, y, True, refs, {})
                    self.assertEqual(set(err), {"y", "dx", "dW_gate", "dW_up", "dW_down"} | ({"empty dW"} if 0 in p.counts else set()))
                    for k, v in err.items():
                        self.assertLess(v, moe_perf.TOL if k != "empty dW" else 1e-30, k)

    def test_grouped_saves_h_and_a(self) -> None:
        # What grouped_peak_bytes assumes the peer's autograd keeps: beyond
        # x and the weights, h [R, 2I] (the compiled SwiGLU's only saved
        # tensor under the min-cut partitioner inductor uses; this backend
        # partitions as inductor does, with no host compiler) and a = act(h)
        # [R, I] (the down projection's input).
        import torch._dynamo  # noqa: PLC0415

        real = moe_perf.torch.compile
        moe_perf.torch.compile = lambda f: real(f, backend="aot_eager_decomp_partition")  # type: ignore[assignment]
        self.addCleanup(setattr, moe_perf.torch, "compile", real)
        moe_perf._swiglu_compiled.clear()
        self.addCleanup(moe_perf._swiglu_compiled.clear)
        torch._dynamo.reset()
        p = moe_perf.make_problem("tiny", 24, "uniform", dev="cpu")
        peer = moe_perf.BUILDERS["grouped"](p)
        theirs = {t.untyped_storage().data_ptr() for t in peer.params + [p.offs]}
        saved = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
            y = peer.fwd()
        ours = sorted({(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes())
                       for t in saved if t.untyped_storage().data_ptr() not in theirs}, key=lambda v: v[1])
        R = p.rows
        self.assertEqual([n for _, n in ours], [2 * R * p.I, 2 * R * 2 * p.I], "a [R, I] and h [R, 2I]")
        y.backward(peer.dy)

    def test_grouped_model_is_the_measured_peak(self) -> None:
        # H100 2026-12-07 (bench/results/moe-h100-2026-12-07-night.json):
        # 1.81 and 3.88 GiB at Qwen3-30B-A3B T=8192 and 32768.
        got = [moe_perf.grouped_peak_bytes(T * 8, 2048, 768, 128) / 2 ** 30 for T in (8192, 32768)]
        self.assertEqual(got, [1.8125, 3.875])

    def test_mem_summary(self) -> None:
        rec: Any = {"model": "qwen3", "T": 8192, "routing": "uniform", "mode": "step"}
        rs = [dict(rec, peer="grouped", peak_mem_gib=1.81, pred_peak_gib=1.81),
              dict(rec, peer="swigen", peak_mem_gib=1.72, pred_peak_gib=1.72), dict(rec, peer="loop")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            moe_perf.mem_summary(rs)
        self.assertIn("1.81 [1.81] 1.00x", out.getvalue())
        self.assertIn("1.72 [1.72] 0.95x", out.getvalue())


if __name__ == "__main__":
    unittest.main()

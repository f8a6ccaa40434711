#!/usr/bin/env python3
"""The MoE expert layer (SwiGLU experts over tokens routed top-k) against its PyTorch peers (bench/moe_perf.sh).

Shapes (issue #moe): Qwen3-30B-A3B (E=128, H=2048, I=768, top-8; T = 8192
and 32768 tokens) and DeepSeek-V3 (E=256, H=7168, I=2048, top-8; T = 4096
and 16384), each with a uniform routing and a Zipf-skewed one (expert e's
share ~ 1/(e+1)^1.2, no expert above T rows: each token picks k distinct
experts). The expert layer's rows are the T*k (token, expert) pairs,
sorted by expert; offs [E] int32 are their cumulative ends.

Peers, each timed for the inference forward (torch.no_grad) and the
training step (forward, then backward of dy to x and every weight):
  loop eager     per-expert F.linear gate, up, down + silu * mul (host slices: the counts are known here)
  loop graph     the same captured in a CUDA graph (one graph per mode), replayed
  grouped        torch._grouped_mm (offs) for gate-up and down + a torch.compile'd SwiGLU; autograd through
                 torch's own _grouped_mm derivatives
  swigen         swigen_rt.SwiGLUExperts; with --package DIR (repeatable: packages of swigen emit
                 --py-package of moe_fwd_gateup, moe_fwd_gateup --store-out, moe_bwd_dswiglu
                 --store-out, and with MOE_ALL=1 moe_gemm and moe_wgrad) the inference gate-up, the
                 training forward and the backward's dout + dSwiGLU launch those kernels (the down
                 projection and the weight gradients too where moe_gemm and moe_wgrad packages are
                 given, else torch._grouped_mm); an op with no package runs the reference path (the
                 record's note says which path each op took)
  liger          Liger-Kernel 0.8.5's LigerFusedMoEFunction (Triton: routing metadata, fused gather +
                 gate-up + SwiGLU, down, weighted combine; its backward fuses dSwiGLU). Its input is the
                 unsorted x [T, H] with top-k indices and weights (all 1), its output the combined
                 y [T, H]: it does the routing's gather and combine too, which the other peers do not.
  quack          QuACK 0.6.5's varlen gated GEMMs (gemm_gated with cu_seqlens_m, concat [gate; up] B;
                 gemm for down; gemm_dgated, varlen-K gemms for the weight gradients), untuned.
Timing: after a warm-up call, --reps reps, each after an L2 flush (a 256 MB
write) between its own two CUDA events, no synchronize between reps;
median, p10, p90. Peak memory: torch's peak allocation during one call
beyond what was allocated before it (the step's against the model of
docs/PERFORMANCE.md#moe-layer-memory for grouped and swigen), and the
process's absolute peak (bench/moe_perf.sh runs each peer in a process
of its own, ISOLATE=1). The grouped and swigen peers read the problem's
one [up ; gate] weight buffer (no copy each). First call: the wall time of the very
first call (compiles and autotunes included). Checks: the output and
every gradient against an fp32 per-expert reference on sampled experts
(the largest, the smallest non-empty, two random, and an empty one, whose
weight gradients must be zero); Liger's y and dx on 8 sampled tokens.
One JSON record (--json): command, revision, GPU, torch, date, results.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from swigen_rt import moe_plan  # noqa: E402

MODELS = {  # name -> (E, H, I, top-k, token counts)
    "qwen3": (128, 2048, 768, 8, (8192, 32768)),
    "deepseek": (256, 7168, 2048, 8, (4096, 16384)),
}
ROUTINGS = ("uniform", "zipf")
PEERS = ("loop", "loopgraph", "grouped", "swigen", "liger", "quack")
TOL = 2e-2
BF = torch.bfloat16


@dataclass
class Problem:
    model: str
    E: int
    H: int
    I: int  # noqa: E741
    k: int
    T: int
    routing: str
    counts: List[int]
    offs: Tensor  # [E] int32 cumulative ends
    token: Tensor  # [T*k] long: the token of each sorted row
    topk: Tensor  # [T, k] int32 expert ids
    gate: Tensor  # [E, I, H]: ug's second half (a view)
    up: Tensor  # [E, I, H]: ug's first half
    down: Tensor  # [E, H, I]
    x: Tensor  # [T, H] tokens
    dy_tok: Tensor  # [T, H] the combined output's gradient
    ug: Tensor  # [E, 2I, H] = [up ; gate]: the grouped and swigen peers' W, shared (no copy per peer)
    xs: Tensor = field(init=False)  # [T*k, H] sorted rows
    dys: Tensor = field(init=False)  # [T*k, H]

    def __post_init__(self) -> None:
        self.xs = self.x[self.token].contiguous()
        self.dys = self.dy_tok[self.token].contiguous()

    @property
    def rows(self) -> int:
        return self.T * self.k


def make_problem(model: str, T: int, routing: str, seed: int = 0, dev: str = "cuda") -> Problem:
    """Weights and a routing whose per-expert counts are exactly the chosen
    law's: the expert-sorted list of T*k expert ids, row j to token
    perm[j % T] (each expert holds <= T rows, so a token's k experts are
    distinct). dev: "cpu" for the peers' CPU check (moe_perf_cpu_check)."""
    E, H, I, k, _ = MODELS[model]  # noqa: E741
    rows = T * k
    counts = moe_plan.uniform_counts(rows, E) if routing == "uniform" else moe_plan.zipf_counts(rows, E, cap=T)
    g = torch.Generator(device=dev).manual_seed(seed)
    expert = torch.repeat_interleave(torch.arange(E, device=dev), torch.tensor(counts, device=dev))
    perm = torch.randperm(T, device=dev, generator=g)
    j = torch.arange(rows, device=dev)
    token = perm[j % T]
    topk = torch.empty(T, k, dtype=torch.int32, device=dev)
    topk[token, j // T] = expert.to(torch.int32)
    w = lambda *s: (torch.randn(*s, device=dev, generator=g) / s[-1] ** 0.5).to(BF)  # noqa: E731
    gate, up, down = w(E, I, H), w(E, I, H), w(E, H, I)
    # One [up ; gate] buffer the peers that can read it share: at
    # DeepSeek-V3 a copy is 14 GiB, which the process would hold beside
    # the step's 21 GiB of weight gradients.
    ug = torch.cat([up, gate], 1)
    del gate, up
    x = torch.randn(T, H, device=dev, generator=g).to(BF)
    dy = torch.randn(T, H, device=dev, generator=g).to(BF)
    offs = torch.tensor(moe_plan.counts_to_offs(counts), device=dev, dtype=torch.int32)
    return Problem(model, E, H, I, k, T, routing, counts, offs, token, topk, ug[:, I:], ug[:, :I], down, x, dy, ug)


# --- peers ------------------------------------------------------------------
# Each builder returns (fwd, params, grads): fwd() -> y (sorted rows [T*k, H],
# or for liger the combined [T, H]); params the tensors to differentiate;
# grads(e) -> (dgate_e, dup_e, ddown_e) of expert e after a backward, and
# dx() the input's gradient (rows as y's).


@dataclass
class Peer:
    fwd: Callable[[], Tensor]
    params: List[Tensor]
    x: Tensor
    dy: Tensor
    wgrad: Callable[[int], Tuple[Tensor, Tensor, Tensor]]
    per_token: bool = False
    graph: bool = False
    note: str = ""


def _leaf(t: Tensor) -> Tensor:
    return t.detach().requires_grad_(True)


def loop_peer(p: Problem, graph: bool = False) -> Peer:
    """Per-expert leaf views of stacked weights: indexing one stacked
    parameter would make autograd add a full [E, ...] zero gradient per
    expert."""
    gs = [_leaf(p.gate[e]) for e in range(p.E)]
    us = [_leaf(p.up[e]) for e in range(p.E)]
    ds = [_leaf(p.down[e]) for e in range(p.E)]
    x = _leaf(p.xs)
    bounds = [(s - c, s) for s, c in zip(moe_plan.counts_to_offs(p.counts), p.counts)]

    def fwd() -> Tensor:
        y = torch.empty(p.rows, p.H, device="cuda", dtype=BF) if not torch.is_grad_enabled() else None
        outs = []
        for e, (a, b) in enumerate(bounds):
            if a == b:
                continue
            xe = x[a:b]
            ye = F.linear(F.silu(F.linear(xe, gs[e])) * F.linear(xe, us[e]), ds[e])
            if y is not None:
                y[a:b] = ye
            else:
                outs.append(ye)
        return y if y is not None else torch.cat(outs)

    def wgrad(e: int) -> Tuple[Tensor, Tensor, Tensor]:
        z = lambda t: t.grad if t.grad is not None else torch.zeros_like(t)  # noqa: E731
        return z(gs[e]), z(us[e]), z(ds[e])

    return Peer(fwd, [x] + gs + us + ds, x, p.dys, wgrad, graph=graph,
                note="per-expert F.linear x3 + silu*mul" + (", CUDA graph" if graph else ""))


_swiglu_compiled: Dict[int, Callable[[Tensor], Tensor]] = {}


def _swiglu_fn(I: int) -> Callable[[Tensor], Tensor]:  # noqa: E741
    """silu(gate) * up of h = [up | gate] (Problem.ug's order)."""
    if I not in _swiglu_compiled:
        _swiglu_compiled[I] = torch.compile(lambda h: F.silu(h[:, I:]) * h[:, :I])
    return _swiglu_compiled[I]


def grouped_peer(p: Problem) -> Peer:
    W1 = _leaf(p.ug)  # [E, 2I, H] = [up ; gate], shared with the problem
    W2 = _leaf(p.down)
    x = _leaf(p.xs)
    act = _swiglu_fn(p.I)

    def fwd() -> Tensor:
        h = torch._grouped_mm(x, W1.transpose(1, 2), offs=p.offs)
        return torch._grouped_mm(act(h), W2.transpose(1, 2), offs=p.offs)

    def wgrad(e: int) -> Tuple[Tensor, Tensor, Tensor]:
        return W1.grad[e, p.I:], W1.grad[e, :p.I], W2.grad[e]

    return Peer(fwd, [x, W1, W2], x, p.dys, wgrad, note="torch._grouped_mm + torch.compile'd SwiGLU")


def swigen_peer(p: Problem) -> Peer:
    from swigen_rt import moe  # noqa: PLC0415

    m = moe.SwiGLUExperts(p.E, p.H, p.I, device="meta")
    m.W = torch.nn.Parameter(p.ug)  # [up ; gate], the problem's buffer (no copy)
    m.W_down = torch.nn.Parameter(p.down)
    x = _leaf(p.xs)
    path = "; ".join("%s: %s" % (op, moe.moe_path(op, p.offs.device)[0]) for op in moe_plan.GROUPED_KINDS)

    def wgrad(e: int) -> Tuple[Tensor, Tensor, Tensor]:
        return m.W.grad[e, p.I:], m.W.grad[e, :p.I], m.W_down.grad[e]

    return Peer(lambda: m(x, p.offs), [x, m.W, m.W_down], x, p.dys, wgrad, graph=False,
                note="SwiGLUExperts (%s)" % path)


def liger_peer(p: Problem) -> Peer:
    try:
        from liger_kernel.ops.fused_moe import LigerFusedMoEFunction  # noqa: PLC0415
    except ImportError as e:
        raise Skip("liger: skipped: liger_kernel.ops.fused_moe does not import (%s)" % e) from None
    W1 = _leaf(torch.cat([p.gate, p.up], 1))  # (E, 2I, H) = [gate ; up], as its kernel reads
    W2 = _leaf(p.down)
    x = _leaf(p.x)
    ones = torch.ones(p.T, p.k, device="cuda", dtype=BF)

    def wgrad(e: int) -> Tuple[Tensor, Tensor, Tensor]:
        return W1.grad[e, :p.I], W1.grad[e, p.I:], W2.grad[e]

    return Peer(lambda: LigerFusedMoEFunction.apply(x, W1, W2, p.topk, ones), [x, W1, W2], x, p.dy_tok, wgrad,
                per_token=True, note="LigerFusedMoEFunction (routing, gather, combine included; host sync)")


def quack_peer(p: Problem) -> Peer:
    import importlib.util  # noqa: PLC0415

    if importlib.util.find_spec("quack") is None or importlib.util.find_spec("cutlass") is None:
        raise Skip("quack: skipped: quack / nvidia-cutlass-dsl not installed on this machine")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from py_peers import _patch_quack_identity  # noqa: PLC0415

    _patch_quack_identity()
    from quack.gemm_interface import gemm, gemm_dgated, gemm_gated  # noqa: PLC0415

    cu = torch.cat([torch.zeros(1, device="cuda", dtype=torch.int32), p.offs])  # (E+1) starts and ends

    class _QuackExperts(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Tensor, W1: Tensor, W2: Tensor) -> Tensor:  # type: ignore[override]
            pre, post = gemm_gated(x, W1.mT, activation="swiglu", cu_seqlens_m=cu, concat_layout=("B",),
                                   store_preact=True, tuned=False)
            y = gemm(post, W2.mT, cu_seqlens_m=cu, tuned=False)
            ctx.save_for_backward(x, W1, W2, pre)
            return y

        @staticmethod
        def backward(ctx: Any, dy: Tensor) -> Tuple[Tensor, Tensor, Tensor]:  # type: ignore[override]
            x, W1, W2, pre = ctx.saved_tensors
            dpre, post = gemm_dgated(dy, W2, pre, activation="swiglu", cu_seqlens_m=cu, tuned=False)
            dW2 = gemm(dy.T, post, cu_seqlens_k=cu, dynamic_scheduler=True, tuned=False)
            dx = gemm(dpre, W1, cu_seqlens_m=cu, concat_layout=("B",), dynamic_scheduler=True, tuned=False)
            dW1 = gemm(dpre.T, x, cu_seqlens_k=cu, concat_layout=("out",), dynamic_scheduler=True, tuned=False)
            return dx, dW1, dW2

    W1 = _leaf(torch.cat([p.gate, p.up], 1))  # [gate ; up] (concat_layout)
    W2 = _leaf(p.down)
    x = _leaf(p.xs)

    def fwd() -> Tensor:
        if torch.is_grad_enabled():
            return _QuackExperts.apply(x, W1, W2)
        _, post = gemm_gated(x, W1.mT, activation="swiglu", cu_seqlens_m=cu, concat_layout=("B",),
                             store_preact=False, tuned=False)
        return gemm(post, W2.mT, cu_seqlens_m=cu, tuned=False)

    def wgrad(e: int) -> Tuple[Tensor, Tensor, Tensor]:
        return W1.grad[e, :p.I], W1.grad[e, p.I:], W2.grad[e]

    return Peer(fwd, [x, W1, W2], x, p.dys, wgrad, note="quack gemm_gated/gemm_dgated varlen_m + varlen_k gemms, untuned")


class Skip(Exception):
    """A peer that cannot run here: the message says why."""


BUILDERS: Dict[str, Callable[[Problem], Peer]] = {
    "loop": loop_peer, "loopgraph": lambda p: loop_peer(p, graph=True), "grouped": grouped_peer,
    "swigen": swigen_peer, "liger": liger_peer, "quack": quack_peer,
}


# --- reference and checks ---------------------------------------------------

def sample_experts(p: Problem) -> List[int]:
    nz = [e for e, c in enumerate(p.counts) if c > 0]
    rng = random.Random(7)
    pick = {max(nz, key=lambda e: p.counts[e]), min(nz, key=lambda e: p.counts[e])} | set(rng.sample(nz, min(2, len(nz))))
    empty = [e for e, c in enumerate(p.counts) if c == 0]
    return sorted(pick) + empty[:1]


def ref_expert(p: Problem, e: int) -> Dict[str, Tensor]:
    """fp32 y, dx rows and weight gradients of expert e alone."""
    a = sum(p.counts[:e])
    b = a + p.counts[e]
    xe = p.xs[a:b].float().requires_grad_(True)
    g, u, d = (t[e].float().requires_grad_(True) for t in (p.gate, p.up, p.down))
    y = F.linear(F.silu(F.linear(xe, g)) * F.linear(xe, u), d)
    y.backward(p.dys[a:b].float())
    return {"y": y.detach(), "dx": xe.grad, "dgate": g.grad, "dup": u.grad, "ddown": d.grad, "a": a, "b": b}


def ref_token(p: Problem, t: int) -> Tuple[Tensor, Tensor]:
    """fp32 combined y_t and dx_t of token t over its k experts (weights 1)."""
    xt = p.x[t:t + 1].float().requires_grad_(True)
    y = sum(F.linear(F.silu(F.linear(xt, p.gate[e].float())) * F.linear(xt, p.up[e].float()), p.down[e].float())
            for e in p.topk[t].tolist())
    y.backward(p.dy_tok[t:t + 1].float())  # type: ignore[union-attr]
    return y.detach(), xt.grad  # type: ignore[union-attr,return-value]


def rel(a: Tensor, b: Tensor) -> float:
    return float((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30))


def check(p: Problem, peer: Peer, y: Tensor, step: bool, refs: Dict[int, Dict[str, Any]],
          tok_refs: Dict[int, Tuple[Tensor, Tensor]]) -> Dict[str, float]:
    err: Dict[str, float] = {}
    worst = lambda k, v: err.__setitem__(k, max(err.get(k, 0.0), v))  # noqa: E731
    if peer.per_token:
        for t, (yt, dxt) in tok_refs.items():
            worst("y", rel(y[t:t + 1], yt))
            if step:
                worst("dx", rel(peer.x.grad[t:t + 1], dxt))
    for e, r in refs.items():
        if r["b"] > r["a"] and not peer.per_token:
            worst("y", rel(y[r["a"]:r["b"]], r["y"]))
            if step:
                worst("dx", rel(peer.x.grad[r["a"]:r["b"]], r["dx"]))
        if not step:
            continue
        dg, du, dd = peer.wgrad(e)
        if r["b"] == r["a"]:
            worst("empty dW", float(dg.float().abs().max() + du.float().abs().max() + dd.float().abs().max()))
        else:
            worst("dW_gate", rel(dg, r["dgate"]))
            worst("dW_up", rel(du, r["dup"]))
            worst("dW_down", rel(dd, r["ddown"]))
    return err


# --- memory -----------------------------------------------------------------

def grouped_peak_bytes(rows: int, H: int, I: int, E: int) -> int:  # noqa: E741
    """The grouped peer's step peak above its inputs and weights, y held
    (docs/PERFORMANCE.md#moe-layer-memory): autograd saves h [rows, 2I]
    (the compiled SwiGLU's input, its only saved tensor) and a = act(h)
    [rows, I] (the down projection's input); the backward makes dout,
    dW_down, grad_h [rows, 2I], then dx and dW, as each node frees what
    it read."""
    y = dx = 2 * rows * H
    a = 2 * rows * I
    dW, dW_down = 2 * E * 2 * I * H, 2 * E * H * I
    return max(y + 3 * a, y + 5 * a + dW_down, y + dx + 2 * a + dW_down + dW)


def predicted_peak(p: Problem, peer: str) -> Optional[int]:
    """The step's modelled peak bytes for the peers with a model (grouped,
    swigen), None for the others."""
    if peer == "grouped":
        return grouped_peak_bytes(p.rows, p.H, p.I, p.E)
    if peer == "swigen":
        return moe_plan.step_bytes(p.rows, p.H, p.I, p.E).peak
    return None


# --- timing -----------------------------------------------------------------

def timed(run: Callable[[], Any], reps: int, flush: Tensor) -> Tuple[float, float, float]:
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()
        starts[i].record()
        run()
        ends[i].record()
    torch.cuda.synchronize()
    ts = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return statistics.median(ts), ts[len(ts) // 10], ts[(9 * len(ts)) // 10]


def measure(p: Problem, name: str, peer: Peer, step: bool, reps: int, flush: Tensor,
            refs: Dict[int, Dict[str, Any]], tok_refs: Dict[int, Tuple[Tensor, Tensor]]) -> Dict[str, Any]:
    def clear() -> None:
        for t in peer.params:
            t.grad = None

    def call() -> Tensor:
        if step:
            clear()
            y = peer.fwd()
            y.backward(peer.dy)
            return y
        with torch.no_grad():
            return peer.fwd()

    rec: Dict[str, Any] = {"peer": name, "mode": "step" if step else "fwd", "note": peer.note}
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    y = call()
    torch.cuda.synchronize()
    rec["first_call_s"] = round(time.perf_counter() - t0, 3)
    rec["peak_mem_gib"] = round((torch.cuda.max_memory_allocated() - base) / 2**30, 3)
    # The process's own: what it held before the call (the problem, the
    # peer's weights, anything earlier peers left) and its absolute peak.
    rec["base_mem_gib"] = round(base / 2**30, 3)
    rec["process_peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 3)
    pred = predicted_peak(p, name) if step else None
    if pred is not None:
        rec["pred_peak_gib"] = round(pred / 2**30, 3)
    rec["err"] = {k: float("%.3g" % v) for k, v in check(p, peer, y, step, refs, tok_refs).items()}
    rec["ok"] = all(v < TOL for k, v in rec["err"].items() if k != "empty dW") and rec["err"].get("empty dW", 0.0) == 0.0
    del y
    run: Callable[[], Any] = call
    if peer.graph:
        gr = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up on a side stream before capture, as torch's docs do
            for _ in range(3):
                call()
        torch.cuda.current_stream().wait_stream(s)
        clear()
        with torch.cuda.graph(gr):
            if step:
                gy = peer.fwd()
                gy.backward(peer.dy)
            else:
                with torch.no_grad():
                    gy = peer.fwd()
        gr.replay()
        torch.cuda.synchronize()
        rec["err"] = {k: float("%.3g" % v) for k, v in check(p, peer, gy, step, refs, tok_refs).items()}
        rec["ok"] = all(v < TOL for k, v in rec["err"].items() if k != "empty dW") and rec["err"].get("empty dW", 0.0) == 0.0
        run = gr.replay
    run()
    rec["median_ms"], rec["p10_ms"], rec["p90_ms"] = (round(v, 4) for v in timed(run, reps, flush))
    rec["reps"] = reps
    return rec


def run_problem(p: Problem, peers: List[str], reps: int, deadline: float, flush: Tensor) -> List[Dict[str, Any]]:
    head = {"model": p.model, "E": p.E, "H": p.H, "I": p.I, "k": p.k, "T": p.T, "rows": p.rows, "routing": p.routing,
            "max_rows": max(p.counts), "empty_experts": sum(1 for c in p.counts if c == 0)}
    refs = {e: ref_expert(p, e) for e in sample_experts(p)}
    tok_refs = {t: ref_token(p, t) for t in random.Random(3).sample(range(p.T), 8)}
    out = []
    for name in peers:
        for step in (False, True):
            rec = dict(head, peer=name, mode="step" if step else "fwd")
            if time.time() > deadline:
                rec["skipped"] = "past the deadline"
            else:
                try:
                    peer = BUILDERS[name](p)
                    rec.update(measure(p, name, peer, step, reps, flush, refs, tok_refs))
                    del peer
                except Skip as e:
                    rec["skipped"] = str(e)
                except Exception as e:  # noqa: BLE001  a peer's failure is recorded, the others still run
                    rec["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
                    traceback.print_exc()
            out.append(rec)
            print(line(rec), flush=True)
            gc.collect()
            torch.cuda.empty_cache()
    return out


def line(r: Dict[str, Any]) -> str:
    what = "%-8s T=%-5d %-7s %-9s %-4s" % (r["model"], r["T"], r["routing"], r["peer"], r["mode"])
    if "median_ms" in r:
        pred = " (model %.2f)" % r["pred_peak_gib"] if "pred_peak_gib" in r else ""
        return "%s %9.3f ms  p10 %8.3f  p90 %8.3f  mem %7.2f GiB%s  process %6.2f GiB  first %7.2f s  %s %s" % (
            what, r["median_ms"], r["p10_ms"], r["p90_ms"], r["peak_mem_gib"], pred, r["process_peak_gib"],
            r["first_call_s"], "ok" if r["ok"] else "ERR", " ".join("%s=%.2g" % kv for kv in r["err"].items()))
    return "%s %s" % (what, r.get("skipped") or r.get("error"))


def revision() -> str:
    if os.environ.get("SWIGEN_REV"):
        return os.environ["SWIGEN_REV"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__)), check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def summary(results: List[Dict[str, Any]]) -> None:
    """Per problem and mode: each peer's median and its ratio to grouped (b)."""
    print("\n%-8s %-6s %-7s %-4s %s" % ("model", "T", "routing", "mode", "  ".join("%-16s" % p for p in PEERS)))
    keys = sorted({(r["model"], r["T"], r["routing"], r["mode"]) for r in results}, key=str)
    for key in keys:
        rs = {r["peer"]: r for r in results if (r["model"], r["T"], r["routing"], r["mode"]) == key}
        base = rs.get("grouped", {}).get("median_ms")
        cells = []
        for name in PEERS:
            r = rs.get(name)
            if r is None or "median_ms" not in r:
                cells.append("%-16s" % ("-" if r is None else ("skip" if "skipped" in r else "FAIL")))
                continue
            ratio = " %.2fx" % (base / r["median_ms"]) if base else ""
            cells.append("%-16s" % ("%.2f%s%s" % (r["median_ms"], ratio, "" if r["ok"] else " ERR")))
        print("%-8s %-6d %-7s %-4s %s" % (key[0], key[1], key[2], key[3], "  ".join(cells)))
    mem_summary(results)
    bad = [r for r in results if "error" in r or ("ok" in r and not r["ok"])]
    print("\n%s: %d records, %d failed or over tolerance %g" % ("PASS" if not bad else "FAIL", len(results), len(bad), TOL))


def mem_summary(results: List[Dict[str, Any]]) -> None:
    """Per problem: each peer's step peak GiB above its inputs (the
    model's in brackets) and its ratio to grouped's."""
    print("\nstep peak GiB above the inputs [model], x grouped's")
    print("%-8s %-6s %-7s %s" % ("model", "T", "routing", "  ".join("%-21s" % p for p in PEERS)))
    keys = sorted({(r["model"], r["T"], r["routing"]) for r in results if r["mode"] == "step"}, key=str)
    for key in keys:
        rs = {r["peer"]: r for r in results if (r["model"], r["T"], r["routing"], r["mode"]) == key + ("step",)}
        base = rs.get("grouped", {}).get("peak_mem_gib")
        cells = []
        for name in PEERS:
            r = rs.get(name, {})
            if "peak_mem_gib" not in r:
                cells.append("%-21s" % "-")
                continue
            pred = " [%.2f]" % r["pred_peak_gib"] if "pred_peak_gib" in r else ""
            ratio = " %.2fx" % (r["peak_mem_gib"] / base) if base else ""
            cells.append("%-21s" % ("%.2f%s%s" % (r["peak_mem_gib"], pred, ratio)))
        print("%-8s %-6d %-7s %s" % (key[0], key[1], key[2], "  ".join(cells)))


def load_package(d: str, i: int) -> str:
    """Registers the emitted package in d (the i-th given); its kernels'
    names, for the record."""
    from swigen_rt import kinds_gen, package  # noqa: PLC0415

    mod = package.load_dir(d, "swigen_moe_bench%d" % i)
    pkg = mod.package  # type: ignore[attr-defined]
    names = sorted(pkg.kernels)
    if not any(e.kind in kinds_gen.GROUPED for e in pkg.kernels.values()):
        raise SystemExit("--package %s: no compiled grouped kernel (uncompiled: %s)"
                         % (d, ", ".join(pkg.uncompiled) or "none"))
    print("package %s: %s" % (d, ", ".join(names)), flush=True)
    return "%s (%s)" % (d, ", ".join(names))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="qwen3,deepseek")
    ap.add_argument("--tokens", default="", help="T values (comma-separated); default each model's two")
    ap.add_argument("--routings", default=",".join(ROUTINGS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--deadline", type=float, default=0, help="unix time after which peers are skipped")
    ap.add_argument("--json", default="")
    ap.add_argument("--package", action="append", default=[],
                    help="directory of a swigen emit --py-package package of a grouped kind (repeatable): the swigen "
                    "peer's ops run its kernels (moe_fwd_gateup: the gate-up; --store-out: the training forward; "
                    "moe_bwd_dswiglu --store-out: the backward's dout + dSwiGLU)")
    a = ap.parse_args()
    peers = [x for x in a.peers.split(",") if x]
    for x in peers:
        if x not in BUILDERS:
            ap.error("--peers: %r: want some of %s" % (x, ",".join(BUILDERS)))
    pkg = "; ".join(load_package(d, i) for i, d in enumerate(a.package))
    deadline = a.deadline or time.time() + 1e9
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # > the H200's L2
    results: List[Dict[str, Any]] = []
    for model in a.models.split(","):
        Ts = [int(t) for t in a.tokens.split(",")] if a.tokens else list(MODELS[model][4])
        for T in Ts:
            for routing in a.routings.split(","):
                if time.time() > deadline:  # no problem built (DeepSeek-V3's is 21 GiB and ~10 s)
                    results.extend({"model": model, "T": T, "routing": routing, "peer": n, "mode": m,
                                    "skipped": "past the deadline"} for n in peers for m in ("fwd", "step"))
                    continue
                p = make_problem(model, T, routing)
                results.extend(run_problem(p, peers, a.reps, deadline, flush))
                del p
                gc.collect()
                torch.cuda.empty_cache()
    rec = {"command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]), "revision": revision(),
           "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "tolerance": TOL,
           "package": pkg, "results": results}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rec, f, indent=1)
    summary(results)
    return 0 if all("error" not in r and r.get("ok", True) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

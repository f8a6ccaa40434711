#!/usr/bin/env python3
"""Performance of swigen's PyTorch ops on a GPU (the H200 run of bench/py_perf.sh).

Two measurements, each in this one process against a same-run baseline:

--overhead: the host cost of one eager op call at a tiny shape (M=K=I=256),
  where the GPU finishes each kernel sooner than Python issues the next:
  the wall time of N back-to-back calls over N, before the final
  synchronize (launches are asynchronous, so that is what the calling
  thread pays), for every registered op, through torch.ops.swigen.* (the
  dispatcher) and through swigen_rt.ops.* (which runs the kernel without
  the dispatcher in eager mode without grad); torch's own F.linear at the
  same shape is the reference. Each direct call is split into its
  outputs' allocations, the driver's launch (cuCtxGetCurrent and
  cuLaunchKernelEx of the prepared launch, each timed alone) and the
  rest, swigen_rt's Python; a cProfile of one op's calls says where that
  goes.

--shape M,K,I: the MLP training step (forward and backward:
  torch.autograd.grad of y with respect to x, W and W_down given dy) of
  y = down(left * silu(gate)), [left | gate] = x @ W^T, three ways:
  eager PyTorch (F.linear, chunk, silu, mul), torch.compile of that same
  function (mode max-autotune-no-cudagraphs) and swigen_rt.swiglu_mlp
  (its default down projection, swigen's fwd_down, and torch's matmul).
  Each is first checked against an fp32 computation of the same step (the
  output and the three gradients, relative Frobenius error), then timed
  with CUDA events: warm-up, then --reps rounds that run every variant
  once in rotated order on one of several rotating input sets (fresh
  random data, L2 cold for the activations), each step between two events
  with a synchronize after it; then --run-reps rounds of --run-steps
  back-to-back steps of each variant between two events, no synchronize
  in between (a training loop's steady state: the host issues a step
  while the GPU runs the one before, so a step's host time hides where it
  is shorter than its GPU time). Medians with p20-p80, both ways.

--compare "M,K,I;...": swigen's SwiGLUMLP against the PyTorch peers of
  bench/py_peers.py (the HF block eager and under torch.compile, Liger's
  LigerSwiGLUMLP and LigerMLP, QuACK's MLP; the tuned variants only at the
  --tune shapes), each in its own try block: the training step (forward
  and torch.autograd.grad of x and the weights) and the inference forward
  (torch.inference_mode), each rep alone after an L2 flush (as triton's
  do_bench), the peak memory of one call beyond weights and inputs, the
  first call's wall time, and every output and gradient against an fp32
  reference. One record per shape (--json-dir); --summarize prints the
  table of a directory of them (per shape: swigen, the best peer, their
  ratio, the memory of each, and the issue's targets PASS/FAIL).

Writes one JSON record (--json) with the command, revision, GPU, torch
version and date, and prints a short table.
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import datetime
import gc
import glob
import io
import json
import os
import pstats
import statistics
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Sequence, Tuple

import torch
import torch.nn.functional as F

# SWIGEN_RT_DIR: another swigen_rt tree to measure (py_perf.sh's BASE_PY
# A/B); by default the repository's.
RT_DIR = os.environ.get("SWIGEN_RT_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
sys.path.insert(0, RT_DIR)
from swigen_rt import load_dir, opspec, swiglu_mlp  # noqa: E402
from swigen_rt import mlp as smlp  # noqa: E402
from swigen_rt import driver as sdrv  # noqa: E402
from swigen_rt import ops as sops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import py_peers  # noqa: E402
from py_table import parse_shapes, quantiles, reps_for, summarize  # noqa: E402

DT = torch.bfloat16


def load(dirs: Sequence[str]) -> None:
    for i, d in enumerate(dirs):
        load_dir(d, "swigen_perf_pkg%d" % i)


def registered(op: str) -> bool:
    spec = opspec.OPS[op]
    return bool(opspec.REGISTRY.candidates(spec.kind, spec.variant, "sm_90a", "bfloat16"))


def rnd(*shape: int, scale: float = 0.5) -> torch.Tensor:
    return (torch.randn(*shape, device="cuda") * scale).to(DT)


# ---- host overhead ----------------------------------------------------------


def tiny_inputs(op: str, m: int, k: int, i: int) -> Tuple[torch.Tensor, ...]:
    e = opspec.REGISTRY.candidates(opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16")[0]
    mn = e.mn_major
    if op == "gemm":  # C [m, i] = A [m, k] @ B^T
        return rnd(m, k), (rnd(k, i) if mn else rnd(i, k))
    if op.startswith("fwd_gateup"):
        return rnd(m, k), (rnd(k, 2 * i) if mn else rnd(2 * i, k))
    if op.startswith("fwd_down"):
        w = rnd(i, k) if mn else rnd(k, i)
        return (rnd(m, i), w, rnd(m, k)) if op.endswith("residual") else (rnd(m, i), w)
    return rnd(m, k), (rnd(k, i) if mn else rnd(i, k)), rnd(m, 2 * i)  # bwd_dswiglu[_out]


def per_call_us(fn: Callable[[], Any], n: int) -> Tuple[float, float]:
    """Host us per call (wall of n calls before the synchronize) and wall
    us per call including it, the best of three loops (the host's own
    noise only ever adds)."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    best = (float("inf"), float("inf"))
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        best = min(best, ((t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6))
    return best


def split(op: str, args: Tuple[torch.Tensor, ...], n: int) -> Dict[str, float]:
    """Where a direct call's host time goes: its outputs' allocations
    (Tensor.new_empty of each, as the op allocates them) and the driver's
    launch of the op's prepared launch (cuCtxGetCurrent and
    cuLaunchKernelEx through ctypes); the rest is swigen_rt's Python.
    Empty where the runtime measured keeps its launches otherwise."""
    calls = [c for k, c in getattr(sops, "_calls", {}).items() if k and k[0] == op]
    state = getattr(calls[-1].launcher, "state", None) if calls else None
    if not state or not state[1]:
        return {}
    p = next(iter(state[1].values()))
    d = sdrv.driver()
    shapes, first = calls[-1].outputs, args[0]
    alloc, _ = per_call_us(lambda: [first.new_empty(s) for s in shapes], n)
    launch, _ = per_call_us(lambda: d.launch_prepared(p), n)
    return {"alloc_us": alloc, "launch_us": launch}


def ctx_get_us(n: int) -> float:
    """cuCtxGetCurrent alone, as launch_prepared calls it."""
    d, v = sdrv.driver(), ctypes.c_void_p()
    ref = ctypes.byref(v)
    return per_call_us(lambda: d._ctx_get_unchecked(ref), n)[0]


def overhead(n: int) -> Dict[str, Any]:
    m = k = i = 256
    rows: List[Dict[str, Any]] = []
    a, b = rnd(m, k), rnd(i, k)
    host, wall = per_call_us(lambda: F.linear(a, b), n)
    rows.append({"op": "torch F.linear (reference)", "host_us": host, "wall_us": wall})
    # What every op call pays for its output, whatever its runtime does.
    host, wall = per_call_us(lambda: torch.empty((m, 2 * i), dtype=DT, device="cuda"), n)
    rows.append({"op": "torch.empty [M,2I] (reference)", "host_us": host, "wall_us": wall})
    host, wall = per_call_us(lambda: a.new_empty((m, 2 * i)), n)
    rows.append({"op": "Tensor.new_empty [M,2I] (reference)", "host_us": host, "wall_us": wall})
    rows.append({"op": "cuCtxGetCurrent (reference)", "host_us": ctx_get_us(n), "wall_us": 0.0})
    profiled = ""
    for op in opspec.OPS:
        if opspec.OPS[op].grouped or not registered(op):  # the MoE ops: bench/moe_perf.py
            continue
        args = tiny_inputs(op, m, k, i)
        f = getattr(torch.ops.swigen, op)
        host, wall = per_call_us(lambda: f(*args), n)
        d = getattr(sops, op)
        dhost, dwall = per_call_us(lambda: d(*args), n)
        row = {"op": op, "host_us": host, "wall_us": wall, "direct_host_us": dhost, "direct_wall_us": dwall}
        row.update(split(op, args, n))
        rows.append(row)
        if not profiled:
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(500):
                d(*args)
            pr.disable()
            torch.cuda.synchronize()
            s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
            profiled = "cProfile of 500 calls of swigen_rt.ops.%s (sorted by own time):\n%s" % (op, s.getvalue())
    return {"shape": {"M": m, "K": k, "I": i}, "calls": n, "rows": rows, "profile": profiled}


# ---- the training step ------------------------------------------------------


def eager_block(x: torch.Tensor, W: torch.Tensor, W_down: torch.Tensor) -> torch.Tensor:
    left, gate = F.linear(x, W).chunk(2, dim=-1)
    return F.linear(left * F.silu(gate), W_down)


def step_fn(block: Callable[..., torch.Tensor]) -> Callable[..., Tuple[torch.Tensor, ...]]:
    def step(x: torch.Tensor, W: torch.Tensor, W_down: torch.Tensor, dy: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        y = block(x, W, W_down)
        return (y,) + torch.autograd.grad(y, (x, W, W_down), dy)
    return step


def fp32_reference(x: torch.Tensor, W: torch.Tensor, W_down: torch.Tensor, dy: torch.Tensor) -> Tuple[torch.Tensor, ...]:
    xf, Wf, Wdf = (t.detach().float().requires_grad_() for t in (x, W, W_down))
    y = eager_block(xf, Wf, Wdf)
    return (y,) + torch.autograd.grad(y, (xf, Wf, Wdf), dy.float())




def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b).norm() / b.norm().clamp_min(1e-30))


def timed(fn: Callable[[], Any]) -> Tuple[float, float]:
    """GPU us between events around fn, and the host us fn took to return
    (the launches are asynchronous: host >= GPU means host-bound)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    t0 = time.perf_counter()
    fn()
    t1 = time.perf_counter()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e3, (t1 - t0) * 1e6


def timed_run(fn: Callable[[int], Any], steps: int) -> float:
    """GPU us per step of steps back-to-back calls fn(j) between two events,
    with no synchronize between them (as a training loop runs: the host
    issues the next step while the GPU still runs this one). One untimed
    call first, so the window opens on a busy GPU, not on the first
    step's host time before its first launch."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    fn(steps)
    s.record()
    for j in range(steps):
        fn(j)
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e3 / steps


def kernel_table(fn: Callable[[], Any]) -> List[Tuple[str, float, int]]:
    """The GPU kernels of one call of fn: (name, total us, count), longest first."""
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    rows = [(e.key, e.device_time_total, e.count) for e in prof.key_averages() if e.device_time_total > 0]
    return sorted(rows, key=lambda r: -r[1])


def training_step(m: int, k: int, i: int, reps: int, sets: int, use_compile: bool, kernels: bool,
                  profile_host: bool, run_reps: int, run_steps: int) -> Dict[str, Any]:
    torch.manual_seed(m * 31 + k * 7 + i)
    W = (torch.randn(2 * i, k, device="cuda") / k ** 0.5).to(DT).requires_grad_()
    W_down = (torch.randn(k, i, device="cuda") / i ** 0.5).to(DT).requires_grad_()
    inputs = [(rnd(m, k, scale=1.0).requires_grad_(), rnd(m, k, scale=1.0)) for _ in range(sets)]
    variants: Dict[str, Callable[..., Tuple[torch.Tensor, ...]]] = {"eager": step_fn(eager_block)}
    if use_compile:
        variants["torch.compile"] = step_fn(torch.compile(eager_block, mode="max-autotune-no-cudagraphs", fullgraph=True))
    variants["swigen"] = step_fn(swiglu_mlp)
    variants["swigen, fwd_down"] = step_fn(lambda x, W, Wd: swiglu_mlp(x, W, Wd, down="swigen"))
    rec: Dict[str, Any] = {"shape": {"M": m, "K": k, "I": i}, "reps": reps, "rotated_sets": sets,
                           "run_reps": run_reps, "run_steps": run_steps, "variants": {}}
    x, dy = inputs[0]
    ref = fp32_reference(x, W, W_down, dy)
    for name, fn in variants.items():
        t0 = time.perf_counter()
        got = fn(x, W, W_down, dy)  # compiles torch.compile's graphs
        torch.cuda.synchronize()
        errs = [rel(g, r) for g, r in zip(got, ref)]
        rec["variants"][name] = {"first_call_s": time.perf_counter() - t0,
                                 "rel_err": dict(zip(["y", "dx", "dW", "dW_down"], errs)), "ok": max(errs) <= 1e-2}
        del got
    for name, fn in variants.items():  # warm-up
        for j in range(3):
            xx, dd = inputs[j % sets]
            fn(xx, W, W_down, dd)
    torch.cuda.synchronize()
    times: Dict[str, List[float]] = {n: [] for n in variants}
    host: Dict[str, List[float]] = {n: [] for n in variants}
    names = list(variants)
    for r in range(reps):
        xx, dd = inputs[r % sets]
        for j in range(len(names)):
            n = names[(r + j) % len(names)]
            g, h = timed(lambda: variants[n](xx, W, W_down, dd))
            times[n].append(g)
            host[n].append(h)
    runs: Dict[str, List[float]] = {n: [] for n in variants}
    for r in range(run_reps):
        for j in range(len(names)):
            n = names[(r + j) % len(names)]
            runs[n].append(timed_run(lambda q, f=variants[n]: f(inputs[q % sets][0], W, W_down, inputs[q % sets][1]),
                                     run_steps))
    for n, ts in times.items():
        v = rec["variants"][n]
        v["us"], v["p20_us"], v["p80_us"] = quantiles(ts)
        v["host_us"] = statistics.median(host[n])
        v["run_us"], v["run_p20_us"], v["run_p80_us"] = quantiles(runs[n])
    if profile_host:
        xx, dd = inputs[0]
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(20):
            variants["swigen"](xx, W, W_down, dd)
        pr.disable()
        torch.cuda.synchronize()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(25)
        rec["host_profile"] = out.getvalue()
        print("cProfile of 20 swigen steps:\n" + out.getvalue())
    baselines = [n for n in names if not n.startswith("swigen")]
    if kernels:
        xx, dd = inputs[0]
        for n in names:
            rows = kernel_table(lambda: variants[n](xx, W, W_down, dd))
            rec["variants"][n]["kernels"] = [{"kernel": r[0][:120], "us": r[1], "count": r[2]} for r in rows]
    vs = rec["variants"]
    for key, tag in (("us", ""), ("run_us", "run_")):  # one step synchronized; back-to-back steps
        rec[tag + "fastest_baseline"] = min(baselines, key=lambda n: vs[n][key])
        base = vs[rec[tag + "fastest_baseline"]][key]
        rec[tag + "speedup_swigen_down_vs_fastest_baseline"] = base / vs["swigen, fwd_down"][key]
        rec[tag + "speedup_vs_fastest_baseline"] = base / vs["swigen"][key]
        rec[tag + "speedup_vs_eager"] = vs["eager"][key] / vs["swigen"][key]
    wd = W_down if smlp.bwd_takes_w_down_kn("sm_90a", "bfloat16") else W_down.t().contiguous()
    rec["paths"] = {"fwd_gateup_train": sops.path_of("fwd_gateup_train", x, W)[1],
                    "bwd_dswiglu_out": sops.path_of("bwd_dswiglu_out", dy, wd, rnd(m, 2 * i))[1]}
    return rec


# ---- the comparison with the peers (--compare) -------------------------------


def _flush_buffer() -> torch.Tensor:
    return torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # > the H200's 60 MB L2


def bench_us(fn: Callable[[], Any], flush: torch.Tensor, budget_ms: float = 300.0) -> Dict[str, Any]:
    """GPU us of fn two ways, each rep after the same L2 flush (a memset of
    a buffer larger than L2), median of n reps (30-100, to fill budget_ms):
    "alone": each rep between two events with a synchronize after it, so
      the GPU waits for fn's first launch: a peer whose host time to its
      first kernel exceeds the flush's is charged for it.
    "b2b" (back-to-back, as triton's do_bench and a training loop): all n
      reps queued behind a GPU sleep that lets the host run ahead, events
      around each rep, no synchronize inside the loop: a rep's host time
      hides wherever it is shorter than its GPU time.
    The README quotes b2b."""
    fn()
    torch.cuda.synchronize()
    est = timed(fn)[0] / 1e3  # ms
    n = reps_for(est, budget_ms)
    alone = []
    for _ in range(n):
        flush.zero_()
        alone.append(timed(fn)[0])
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    torch.cuda.synchronize()
    torch.cuda._sleep(int(2e6))  # ~1 ms at the H200's clock: the host queues ahead
    for s, e in ev:
        flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    b2b = [s.elapsed_time(e) * 1e3 for s, e in ev]
    out: Dict[str, Any] = {"reps": n}
    out["us"], out["p20_us"], out["p80_us"] = quantiles(alone)
    out["b2b_us"], out["b2b_p20_us"], out["b2b_p80_us"] = quantiles(b2b)
    return out


def step_breakdown(fn: Callable[[], Any], flush: torch.Tensor, steps: int = 5) -> Dict[str, Any]:
    """torch.profiler's view of one call of fn among steps back-to-back
    ones (each after the L2 flush, all queued behind a GPU sleep so the
    host is ahead): its kernels in GPU order, each one's GPU us and the
    idle gap before it (the first's: after the flush). The call's span
    (first kernel's start to last's end) = busy + gaps. A call's kernel
    count comes from a profile of one call; a run whose count differs
    (a kernel more or less in some step) gives an error, not a guess."""
    from torch.autograd import DeviceType  # noqa: PLC0415
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

    def kernels(n: int) -> List[Tuple[float, float, str]]:
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            torch.cuda._sleep(int(2e6))
            for _ in range(n):
                flush.zero_()
                fn()
            torch.cuda.synchronize()
        ev = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
        return sorted((e.time_range.start, e.time_range.end, e.name) for e in ev)

    per = len(kernels(1)) - 1  # the sleep, then the flush and fn's kernels
    ev = kernels(steps)
    if per < 2 or len(ev) != 1 + per * steps:
        return {"error": "%d GPU events in %d calls, %d in one: the calls differ" % (len(ev), steps, per + 1)}
    mid = ev[1 + per * (steps // 2): 1 + per * (steps // 2 + 1)]  # [flush, fn's kernels...]
    rows, prev = [], mid[0][1]
    for st, en, name in mid[1:]:
        rows.append({"kernel": name[:160], "us": en - st, "gap_before_us": st - prev})
        prev = en
    busy = sum(r["us"] for r in rows)
    span = mid[-1][1] - mid[1][0]
    return {"kernels": rows, "span_us": span, "busy_us": busy, "gaps_us": span - busy,
            "after_flush_us": rows[0]["gap_before_us"]}


def print_breakdown(shape: str, name: str, b: Dict[str, Any]) -> None:
    if "error" in b:
        print("breakdown %s %s: %s" % (shape, name, b["error"]), flush=True)
        return
    print("breakdown %s %s: span %.1f us = kernels %.1f + gaps %.1f (then %.1f us from the flush's end to the "
          "first kernel)" % (shape, name, b["span_us"], b["busy_us"], b["gaps_us"], b["after_flush_us"]))
    for r in b["kernels"]:
        print("breakdown %s %s   gap %7.1f  kernel %8.1f us  %s" % (shape, name, r["gap_before_us"], r["us"],
                                                                   r["kernel"][:100]))
    sys.stdout.flush()


def peak_mib(fn: Callable[[], Any]) -> float:
    """MiB a call of fn allocates at its peak beyond what was allocated
    before it (weights and inputs), its results included."""
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out
    return peak / 2 ** 20


GRAD_NAMES = ("y", "dx", "dW_gate", "dW_up", "dW_down")


def fp32_ref(w: Any, x: torch.Tensor, dy: torch.Tensor) -> Dict[str, torch.Tensor]:
    xs = x.detach().float().requires_grad_()
    ps = [t.detach().float().requires_grad_() for t in (w.gate, w.up, w.down)]
    y = py_peers.hf_block(xs, *ps)
    gs = torch.autograd.grad(y, [xs] + ps, dy.float())
    return dict(zip(GRAD_NAMES, (y.detach(),) + tuple(gs)))


def run_peer(name: str, build: Callable[[Any], Any], w: Any, x: torch.Tensor, dy: torch.Tensor,
             ref: Dict[str, torch.Tensor], flush: torch.Tensor, breakdown: bool = False) -> Dict[str, Any]:
    """One peer at one shape: first calls, errors vs fp32, peak memory and
    GPU time of the training step and of the inference forward."""
    t0 = time.perf_counter()
    peer = build(w)
    xg = x.detach().clone().requires_grad_()

    def step() -> Tuple[torch.Tensor, ...]:
        y = peer.fwd(xg)
        return (y,) + torch.autograd.grad(y, [xg] + peer.params, dy)

    def infer() -> torch.Tensor:
        with torch.inference_mode():
            return peer.fwd(x)

    got = step()
    torch.cuda.synchronize()
    v: Dict[str, Any] = {"note": peer.note, "first_step_s": time.perf_counter() - t0}
    outs = dict(zip(GRAD_NAMES[:2], got[:2]))
    outs.update(zip(GRAD_NAMES[2:], peer.split(got[2:])))
    v["rel_err"] = {n: rel(outs[n], ref[n]) for n in GRAD_NAMES}
    if name.startswith("swigen"):
        v["grad_de"] = smlp.last_grad_de_path()
    del got, outs
    v["step_mib"] = peak_mib(step)
    v["step"] = bench_us(step, flush)
    if breakdown:
        try:  # the profile is extra: a failure costs only itself
            v["step_breakdown"] = step_breakdown(step, flush)
        except Exception as e:  # noqa: BLE001
            v["step_breakdown"] = {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
    try:  # the inference forward on its own: a peer that fails it keeps its step's figures
        t0 = time.perf_counter()
        yi = infer()
        torch.cuda.synchronize()
        v["first_infer_s"] = time.perf_counter() - t0
        v["rel_err"]["y (inference)"] = rel(yi, ref["y"])
        del yi
        v["infer_mib"] = peak_mib(infer)
        v["infer"] = bench_us(infer, flush)
    except Exception as e:  # noqa: BLE001
        v["infer_error"] = "%s: %s" % (type(e).__name__, str(e)[:800])
    v["ok"] = max(v["rel_err"].values()) <= 1e-2
    return v


def load_shape_packages(root: str, tag: str) -> List[str]:
    """Registers the packages py_perf.sh emitted for a shape (root/<tag>_*),
    alone: the registry is cleared first."""
    opspec.REGISTRY.clear()
    dirs = sorted(glob.glob(os.path.join(root, tag + "_*", "__init__.py")))
    for d in dirs:
        load_dir(os.path.dirname(d), "swigen_cmp_" + os.path.basename(os.path.dirname(d)))
    return [os.path.basename(os.path.dirname(d)) for d in dirs]


def swigen_paths(m: int, k: int, i: int) -> Dict[str, str]:
    """Which path (fused, unfused) each of SwiGLUMLP's kernels takes at
    this shape, and why: the registered kernel's dispatch plan."""
    out = {}
    for op in ("fwd_gateup_train", "fwd_gateup", "bwd_dswiglu_out"):
        spec = opspec.OPS[op]
        try:
            e = opspec.REGISTRY.candidates(spec.kind, spec.variant, "sm_90a", "bfloat16")[0]
        except IndexError:
            out[op] = "no kernel registered"
            continue
        out[op] = "%s: %s" % (e.name, "fused (no plan)" if e.dispatch is None else e.dispatch.plan.choose(m, k, i)[1])
    return out


def compare_shape(m: int, k: int, i: int, root: str, tuned_here: bool, families: Sequence[str], down_ab: bool,
                  deadline: float, flush: torch.Tensor, breakdown: bool = False) -> Dict[str, Any]:
    tag = "s%dx%dx%d" % (m, k, i)
    rec: Dict[str, Any] = {"shape": {"M": m, "K": k, "I": i}, "tuned_here": tuned_here, "peers": {}}
    ready = os.path.join(root, tag + ".ready")  # py_perf.sh emits in the background
    while not os.path.exists(ready) and time.time() < deadline:
        time.sleep(0.5)
    rec["packages"] = load_shape_packages(root, tag)
    rec["kernels"] = sorted(e.name for op in opspec.OPS for e in opspec.REGISTRY.candidates(
        opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16"))
    rec["swigen_paths"] = swigen_paths(m, k, i)
    torch.manual_seed(m * 31 + k * 7 + i)
    w = py_peers.Weights(gate=(torch.randn(i, k, device="cuda") / k ** 0.5).to(DT),
                         up=(torch.randn(i, k, device="cuda") / k ** 0.5).to(DT),
                         down=(torch.randn(k, i, device="cuda") / i ** 0.5).to(DT))
    x, dy = rnd(m, k, scale=1.0), rnd(m, k, scale=1.0)
    ref = fp32_ref(w, x, dy)
    for name, (fam, build) in py_peers.builders(tuned_here, down_ab).items():
        left = deadline - time.time()
        need = 150 if "tuned" in name or "autotune" in name else 20
        if fam not in families:
            continue
        if left < need:
            rec["peers"][name] = {"skipped": "%s: skipped: %.0f s left of the run's time, this one needs ~%d" % (name, left, need)}
            print(rec["peers"][name]["skipped"], flush=True)
            continue
        try:
            rec["peers"][name] = run_peer(name, build, w, x, dy, ref, flush, breakdown)
            v = rec["peers"][name]
            if "step_breakdown" in v:
                print_breakdown("%d,%d,%d" % (m, k, i), name, v["step_breakdown"])
            print("%s,%s,%s  %-42s step %9.1f us (alone %9.1f)  infer %9.1f us (alone %8.1f)  step %8.1f MiB  "
                  "infer %8.1f MiB  first %6.1f s  max rel err %.2e%s%s"
                  % (m, k, i, name, v["step"]["b2b_us"], v["step"]["us"],
                     v.get("infer", {}).get("b2b_us", float("nan")), v.get("infer", {}).get("us", float("nan")),
                     v["step_mib"], v.get("infer_mib", float("nan")), v["first_step_s"],
                     max(v["rel_err"].values()), "" if v["ok"] else "  WRONG",
                     "  inference FAILED: " + v["infer_error"][:200] if "infer_error" in v else ""),
                  flush=True)
        except py_peers.Skip as e:
            rec["peers"][name] = {"skipped": str(e)}
            print(str(e), flush=True)
        except Exception as e:  # noqa: BLE001  (each peer in its own try: one failing peer never stops the run)
            rec["peers"][name] = {"error": "%s: %s" % (type(e).__name__, str(e)[:800]),
                                  "traceback": traceback.format_exc()[-3000:]}
            print("%s,%s,%s  %s: FAILED: %s: %s" % (m, k, i, name, type(e).__name__, str(e)[:300]), flush=True)
        gc.collect()
        torch.cuda.empty_cache()
    del ref
    return rec


def peer_versions() -> Dict[str, str]:
    """The installed version of each peer's distribution ("" where absent)."""
    from importlib import metadata  # noqa: PLC0415

    out = {}
    for d in ("liger-kernel", "quack-kernels", "nvidia-cutlass-dsl", "nvidia-cutlass-dsl-libs-cu13", "triton",
              "apache-tvm-ffi", "torch-c-dlpack-ext", "einops"):
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = ""
    return out


def compare(a: argparse.Namespace, meta: Dict[str, Any]) -> int:
    import torch._dynamo  # noqa: PLC0415

    # One compiled HF block per shape and mode in one process: more than
    # dynamo's default 8 recompiles of one function.
    for knob in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 512)
    tune = set(parse_shapes(a.tune or ""))
    breakdown = set(parse_shapes(a.breakdown or ""))
    families = ["swigen"] + [f for f in a.families.split(",") if f and f != "swigen"]  # swigen always: the table's subject
    flush = _flush_buffer()
    bad = 0
    os.makedirs(a.json_dir, exist_ok=True)
    for m, k, i in parse_shapes(a.compare):
        if time.time() > a.deadline - 30:
            print("%d,%d,%d: skipped: the run's time is spent" % (m, k, i), flush=True)
            continue
        rec = dict(meta)
        rec.update(compare_shape(m, k, i, a.packages, (m, k, i) in tune, families, a.down_ab, a.deadline, flush,
                                 (m, k, i) in breakdown))
        sw = rec["peers"].get("swigen", {})
        bad += 0 if sw.get("ok") else 1
        with open(os.path.join(a.json_dir, "peers-%dx%dx%d.json" % (m, k, i)), "w") as f:
            json.dump(rec, f, indent=1)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--packages", default="", help="package directories of swigen emit --py-package, %s-separated "
                    "(--compare: the directory holding each shape's <tag>_* packages)" % os.pathsep)
    ap.add_argument("--overhead", action="store_true", help="measure the host cost per op call at a tiny shape")
    ap.add_argument("--calls", type=int, default=2000, help="calls per op for --overhead")
    ap.add_argument("--shape", help="M,K,I of the training step")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--run-reps", type=int, default=15, help="rounds of back-to-back steps")
    ap.add_argument("--run-steps", type=int, default=10, help="back-to-back steps a round")
    ap.add_argument("--sets", type=int, default=3, help="rotating input sets")
    ap.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    ap.add_argument("--kernels", action="store_true", help="also profile one step of each variant: its GPU kernels")
    ap.add_argument("--host-profile", action="store_true", help="also cProfile 20 swigen steps on the host")
    ap.add_argument("--compare", help="';'-separated M,K,I: SwiGLUMLP against the peers (bench/py_peers.py) at each")
    ap.add_argument("--tune", default="", help="';'-separated M,K,I where --compare also runs the tuned peers")
    ap.add_argument("--families", default="swigen,eager,compile,liger,quack", help="the peer families --compare runs")
    ap.add_argument("--breakdown", default="", help="';'-separated M,K,I where --compare also profiles one step of "
                    "each variant: its kernels in GPU order, their us and the gaps between them")
    ap.add_argument("--down-ab", action="store_true", help="--compare: also SwiGLUMLP(down='swigen')")
    ap.add_argument("--deadline", type=float, default=float("inf"), help="--compare: unix time by which to stop")
    ap.add_argument("--json-dir", help="--compare: one record per shape here")
    ap.add_argument("--summarize", help="print the table of the --compare records in this directory")
    ap.add_argument("--seed-shape", default="16384,768,4608", help="--summarize: the shape whose speed target is 1.10x")
    ap.add_argument("--json", help="write the record here (--summarize: all records in one file)")
    a = ap.parse_args()
    if a.summarize:
        if not a.json:
            ap.error("--summarize needs --json")
        return summarize(a.summarize, a.json, parse_shapes(a.seed_shape)[0])
    if a.reps < 20:
        ap.error("--reps %d: at least 20" % a.reps)
    if a.run_reps < 5 or a.run_steps < 2:
        ap.error("--run-reps %d --run-steps %d: at least 5 rounds of 2 steps" % (a.run_reps, a.run_steps))
    if a.compare and not (a.json_dir and a.packages):
        ap.error("--compare needs --json-dir and --packages")
    if not a.compare and not (a.json and a.packages):
        ap.error("--overhead and --shape need --json and --packages")
    rec: Dict[str, Any] = {
        "command": " ".join(["python3", "bench/py_perf.py"] + sys.argv[1:]),
        "revision": os.environ.get("SWIGEN_REV", ""),
        "runtime": os.path.relpath(os.path.abspath(RT_DIR)),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if a.compare:
        rec["versions"] = peer_versions()
        return compare(a, rec)
    load([d for d in a.packages.split(os.pathsep) if d])
    rec["kernels"] = sorted(e.name for op in opspec.OPS for e in opspec.REGISTRY.candidates(
        opspec.OPS[op].kind, opspec.OPS[op].variant, "sm_90a", "bfloat16"))
    if a.overhead:
        rec["overhead"] = overhead(a.calls)
        print(rec["overhead"]["profile"])
        for r in rec["overhead"]["rows"]:
            op = "direct_host_us" in r
            extra = "  swigen_rt.ops: host %5.1f us/call" % r["direct_host_us"] if op else ""
            if "launch_us" in r:
                extra += " = outputs %4.1f + launch %4.1f + python %4.1f" % (
                    r["alloc_us"], r["launch_us"], r["direct_host_us"] - r["alloc_us"] - r["launch_us"])
            print("overhead %-30s %shost %5.1f us/call (wall %5.1f)%s"
                  % (r["op"], "torch.ops: " if op else "", r["host_us"], r["wall_us"], extra))
    if a.shape:
        m, k, i = (int(v) for v in a.shape.split(","))
        rec["step"] = training_step(m, k, i, a.reps, a.sets, not a.no_compile, a.kernels, a.host_profile,
                                    a.run_reps, a.run_steps)
        s = rec["step"]
        for n, v in s["variants"].items():
            for r in v.get("kernels", [])[:8]:
                print("%-20s %9.1f us x%-3d %s" % (n, r["us"], r["count"], r["kernel"][:90]))
        for n, v in s["variants"].items():
            print("%s  %-20s %9.1f us (p20 %.1f, p80 %.1f)  back-to-back %9.1f us (p20 %.1f, p80 %.1f)  host %7.1f us"
                  "  max rel err %.2e  first call %.1f s"
                  % (a.shape, n, v["us"], v["p20_us"], v["p80_us"], v["run_us"], v["run_p20_us"], v["run_p80_us"],
                     v["host_us"], max(v["rel_err"].values()), v["first_call_s"]))
        for tag, how in (("", "one step, synchronized"), ("run_", "back-to-back steps")):
            print("%s  %-22s swigen vs fastest baseline (%s): %.3fx; vs eager %.3fx; with swigen's fwd_down %.3fx"
                  % (a.shape, how + ":", s[tag + "fastest_baseline"], s[tag + "speedup_vs_fastest_baseline"],
                     s[tag + "speedup_vs_eager"], s[tag + "speedup_swigen_down_vs_fastest_baseline"]))
    with open(a.json, "w") as f:
        json.dump(rec, f, indent=1)
    ok = all(v["ok"] for v in rec.get("step", {}).get("variants", {}).values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

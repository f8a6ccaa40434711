#!/usr/bin/env python3
"""The installed swigen_kernels wheel on a GPU (bench/wheel_check.sh runs it in a fresh venv).

1. Correctness at every --shapes M,K,I: SwiGLUMLP forward and backward
   (y, and the gradients of x, W and W_down given dy) on the wheel's
   kernels alone (nothing registered: swigen_rt.select picks per shape),
   each against an fp32 computation of the same step (relative Frobenius
   error <= 1e-2), with the kernels the selection took and the first
   call's wall time (cubins load then).
2. Timing at each --emitted M,K,I=NAME:DIRS;NAME:DIRS...: the training
   step on the wheel's kernels against the same step on each named set of
   packages emitted for that shape (`swigen emit --py-package`, which take
   precedence once registered), in rotated order within one process:
   rounds of --run-steps back-to-back steps between two CUDA events,
   medians with p20-p80.

Also a layout row: with the wheel alone, SwiGLUMLP's backward must read
W_down [K, I] as held (the wheel's bwd_dswiglu out kernels are MN-major).

Must run with swigen_rt installed from the wheel (it checks), not the
repository's python/. Writes --json and prints a PASS/FAIL table last.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Sequence, Tuple

import torch
import torch.nn.functional as F

import swigen_rt
from swigen_rt import SwiGLUMLP, load_dir, mlp, opspec, select
from swigen_rt import ops as sops
from swigen_rt.package import REGISTRY, Package

DT = torch.bfloat16


def ref_step(x: torch.Tensor, W: torch.Tensor, W_down: torch.Tensor, dy: torch.Tensor) -> Tuple[torch.Tensor, ...]:
    xf, Wf, Wdf = (t.detach().float().requires_grad_() for t in (x, W, W_down))
    left, gate = F.linear(xf, Wf).chunk(2, dim=-1)
    y = F.linear(left * F.silu(gate), Wdf)
    return (y,) + torch.autograd.grad(y, (xf, Wf, Wdf), dy.float())


def make(m: int, k: int, i: int) -> Tuple[SwiGLUMLP, torch.Tensor, torch.Tensor]:
    torch.manual_seed(m * 31 + k * 7 + i)
    mod = SwiGLUMLP(k, i, device="cuda", dtype=DT)
    with torch.no_grad():
        mod.W.copy_(torch.randn(2 * i, k, device="cuda") / k ** 0.5)
        mod.W_down.copy_(torch.randn(k, i, device="cuda") / i ** 0.5)
    x = (torch.randn(m, k, device="cuda") * 0.5).to(DT).requires_grad_()
    dy = (torch.randn(m, k, device="cuda") * 0.5).to(DT)
    return mod, x, dy


def step(mod: SwiGLUMLP, x: torch.Tensor, dy: torch.Tensor) -> Tuple[torch.Tensor, ...]:
    y = mod(x)
    return (y,) + torch.autograd.grad(y, (x, mod.W, mod.W_down), dy)


def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b).norm() / b.norm().clamp_min(1e-30))


def kernels_of(mod: SwiGLUMLP, x: torch.Tensor, dy: torch.Tensor) -> Dict[str, str]:
    """The kernel each op of the step runs at this shape, and its path."""
    m, k, i = x.shape[0], mod.hidden, mod.intermediate
    de = torch.empty(m, 2 * i, device="cuda", dtype=DT)
    arch = sops.arch_of(x.device)
    # W_down as the backward passes it: [K, I] as held where the kernel is
    # MN-major (the wheel's), else a transposed copy.
    wd = mod.W_down.detach() if mlp.bwd_takes_w_down_kn(arch, "bfloat16") else mod.W_down.detach().t().contiguous()
    calls = {"fwd_gateup_train": (x.detach(), mod.W.detach()),
             "fwd_down": (torch.empty(m, i, device="cuda", dtype=DT), mod.W_down.detach()),
             "bwd_dswiglu_out": (dy, wd, de)}
    out = {}
    for op, args in calls.items():
        spec = opspec.OPS[op]
        e, _ = opspec.select(op, arch, "bfloat16", {n: tuple(t.shape) for n, t in zip(spec.inputs, args)})
        out[op] = "%s %s" % (sops.path_of(op, *args)[0], e.name)
    return out


def check(m: int, k: int, i: int) -> Dict[str, Any]:
    mod, x, dy = make(m, k, i)
    ref = ref_step(x, mod.W, mod.W_down, dy)
    t0 = time.perf_counter()
    got = step(mod, x, dy)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    errs = dict(zip(("y", "dx", "dW", "dW_down"), (rel(g, r) for g, r in zip(got, ref))))
    rec = {"shape": [m, k, i], "rel_err": errs, "ok": max(errs.values()) <= 1e-2, "first_call_s": first,
           "kernels": kernels_of(mod, x, dy)}
    del mod, x, dy, ref, got
    torch.cuda.empty_cache()
    return rec


def timed_run(fn: Callable[[], Any], steps: int) -> float:
    """GPU us per step over steps back-to-back calls between two events."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    s.record()
    for _ in range(steps):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e3 / steps


def time_shape(m: int, k: int, i: int, sets: Dict[str, List[Package]], reps: int, steps: int) -> Dict[str, Any]:
    mod, x, dy = make(m, k, i)
    names = ["wheel"] + sorted(sets)

    def use(n: str) -> None:
        REGISTRY.clear()
        for p in sets.get(n, []):
            REGISTRY.add_package(p)

    times: Dict[str, List[float]] = {n: [] for n in names}
    errs: Dict[str, float] = {}
    ref = ref_step(x, mod.W, mod.W_down, dy)
    for n in names:
        use(n)
        errs[n] = max(rel(g, r) for g, r in zip(step(mod, x, dy), ref))
    for r in range(reps):
        for j in range(len(names)):
            n = names[(r + j) % len(names)]
            use(n)
            times[n].append(timed_run(lambda: step(mod, x, dy), steps))
    REGISTRY.clear()
    out: Dict[str, Any] = {"shape": [m, k, i], "variants": {}}
    for n, ts in times.items():
        ts = sorted(ts)
        out["variants"][n] = {"us": statistics.median(ts), "p20_us": ts[len(ts) // 5], "p80_us": ts[(4 * len(ts)) // 5],
                              "max_rel_err": errs[n], "ok": errs[n] <= 1e-2}
    del mod, x, dy, ref
    torch.cuda.empty_cache()
    return out


def parse_shape(s: str) -> Tuple[int, int, int]:
    m, k, i = (int(v) for v in s.split(","))
    return m, k, i


def load_sets(spec: str, tag: str) -> Dict[str, List[Package]]:
    """NAME:DIR:DIR;NAME:DIR... as registered packages, registered once and then cleared."""
    sets: Dict[str, List[Package]] = {}
    for part in filter(None, spec.split(";")):
        name, *dirs = part.split(":")
        pkgs = []
        for j, d in enumerate(dirs):
            load_dir(d, "wheel_cmp_%s_%s_%d" % (tag, name.replace("-", "_"), j))
        for p in list(REGISTRY.packages.values()):
            pkgs.append(p)
        REGISTRY.clear()
        sets[name] = pkgs
    return sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", required=True, help="';'-separated M,K,I to check")
    ap.add_argument("--emitted", action="append", default=[], help="M,K,I=NAME:DIR:DIR;NAME:DIR...: time against these packages")
    ap.add_argument("--reps", type=int, default=12)
    ap.add_argument("--run-steps", type=int, default=8)
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    rt = os.path.dirname(os.path.abspath(swigen_rt.__file__))
    b = select.bundle()
    print("swigen_rt %s from %s; swigen_kernels: %s" % (swigen_rt.__version__, rt, b.dir if b else None))
    table: List[str] = []
    if b is None or "site-packages" not in rt:
        table.append("FAIL install: swigen_rt from %s, bundle %s" % (rt, b))
    # The wheel alone: SwiGLUMLP's backward reads W_down as held (issue 40).
    arch = sops.arch_of(torch.device("cuda"))
    kn = mlp.bwd_takes_w_down_kn(arch, "bfloat16")
    table.append("%-4s layout bwd_dswiglu_out reads W_down %s on %s" % (
        "PASS" if kn else "FAIL", "[K, I] as held (MN-major): no per-call transpose" if kn else "[I, K]: a transposed copy each backward", arch))
    rec: Dict[str, Any] = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "bwd_takes_w_down_kn": kn,
                           "checks": [], "timings": []}
    for s in filter(None, a.shapes.split(";")):
        try:
            c = check(*parse_shape(s))
        except Exception as e:  # a failing shape is a FAIL row, the others still run
            c = {"shape": list(parse_shape(s)), "ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        rec["checks"].append(c)
        print(json.dumps(c))
        worst = max(c["rel_err"].values()) if "rel_err" in c else float("nan")
        table.append("%-4s check %-18s max rel err %.2e  first call %.2fs  %s" % (
            "PASS" if c["ok"] else "FAIL", s, worst, c.get("first_call_s", 0.0),
            c.get("error") or " | ".join(v.split(" ", 1)[1][:60] for v in c["kernels"].values())))
    for spec in a.emitted:
        s, sets_spec = spec.split("=", 1)
        try:
            t = time_shape(*parse_shape(s), load_sets(sets_spec, s.replace(",", "x")), a.reps, a.run_steps)
        except Exception as e:
            table.append("FAIL time  %-18s %s: %s" % (s, type(e).__name__, e))
            continue
        rec["timings"].append(t)
        v = t["variants"]
        w = v["wheel"]["us"]
        cells = ["%s %.0f us (%.0f-%.0f)" % (n, x["us"], x["p20_us"], x["p80_us"]) for n, x in v.items()]
        ratio = ", ".join("wheel/%s %.3f" % (n, w / x["us"]) for n, x in v.items() if n != "wheel")
        ok = all(x["ok"] for x in v.values())
        table.append("%-4s time  %-18s %s; %s" % ("PASS" if ok else "FAIL", s, "; ".join(cells), ratio))
    with open(a.json, "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1)
    print()
    print("\n".join(table))
    return 0 if all(r.startswith("PASS") for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())

"""swigen_rt on a GPU: the examples' kernels, and optionally a whole emit.

Skipped without libcuda and an sm_90a device (the committed cubins are
sm_90a); the torch tests also without torch. SWIGEN_PY_KERNELS may name an
emit's output directory (swigen emit --catalog --arch sm_90a --out DIR):
every kernel of it is then launched with torch and compared with torch's
own math.
"""

from __future__ import annotations

import json
import math
import os
import random
import struct
import threading
import unittest
from typing import Any, Dict, List, Optional, Tuple

import support
from swigen_rt import Kernel, Manifest, driver as drv

EXAMPLES = os.path.join(support.REPO_DIR, "examples")
GEMM = os.path.join(EXAMPLES, "matmul", "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative.json")
BWD = os.path.join(EXAMPLES, "kernels", "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k.json")


def sm90a_driver() -> Optional[drv.Driver]:
    try:
        d = drv.driver()
        dev = d.device(0)
    except (drv.DriverError, drv.CudaError):
        return None
    if (d.device_attribute(drv.ATTR_CC_MAJOR, dev), d.device_attribute(drv.ATTR_CC_MINOR, dev)) != (9, 0):
        return None
    return d


def torch_cuda() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() and torch.cuda.get_device_capability(0) == (9, 0) else None


# ---- bf16 on the standard library ------------------------------------------

def to_bf16(x: float) -> int:
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even


def from_bf16(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def bf16_bytes(xs: List[float]) -> bytes:
    return struct.pack("<%dH" % len(xs), *[to_bf16(x) for x in xs])


def bf16_floats(raw: bytes) -> List[float]:
    return [from_bf16(b) for b in struct.unpack("<%dH" % (len(raw) // 2), raw)]


def rel_error(got: List[float], want: List[float]) -> float:
    num = sum((g - w) ** 2 for g, w in zip(got, want))
    den = sum(w * w for w in want) or 1.0
    return math.sqrt(num / den)


@unittest.skipIf(sm90a_driver() is None, "needs libcuda and an sm_90a GPU")
class DriverOnlyTest(unittest.TestCase):
    """Kernel.launch_raw on memory from the driver: no torch at all."""

    def test_gemm_ragged(self) -> None:
        d = sm90a_driver()
        assert d is not None
        M, N, K = 200, 136, 72
        rng = random.Random(5)
        a = [from_bf16(to_bf16(rng.uniform(-1, 1))) for _ in range(M * K)]  # [M,K]
        b = [from_bf16(to_bf16(rng.uniform(-1, 1))) for _ in range(N * K)]  # [N,K]
        dev = d.device(0)
        ctx = d.primary_context_retain(dev)
        k = Kernel.from_files(GEMM)
        try:
            with d.current(ctx):
                pa, pb, pc = d.mem_alloc(M * K * 2), d.mem_alloc(N * K * 2), d.mem_alloc((M + 1) * N * 2)
                d.copy_to_device(pa, bf16_bytes(a))
                d.copy_to_device(pb, bf16_bytes(b))
                d.memset(pc, 0xFF, (M + 1) * N * 2)  # NaN poison, and one guard row
            # From this thread, and from one that never touched CUDA (push path).
            k.launch_raw({"A": pa, "B": pb, "C": pc}, {"M": M, "N": N, "K": K})
            errs: List[BaseException] = []

            def other() -> None:
                try:
                    k.launch_raw({"A": pa, "B": pb, "C": pc}, {"M": M, "N": N, "K": K})
                except BaseException as e:  # noqa: BLE001
                    errs.append(e)

            th = threading.Thread(target=other)
            th.start()
            th.join()
            self.assertEqual(errs, [])
            with d.current(ctx):
                d.synchronize()
                got = bf16_floats(d.copy_from_device(pc, (M + 1) * N * 2))
                for p in (pa, pb, pc):
                    d.mem_free(p)
            want = [sum(a[m * K + kk] * b[n * K + kk] for kk in range(K)) for m in range(M) for n in range(N)]
            self.assertLess(rel_error(got[:M * N], want), 1e-2)
            self.assertTrue(all(math.isnan(x) for x in got[M * N:]), "a store past C's last row")
            with self.assertRaises(ValueError):
                k.launch_raw({"A": pa, "B": pb, "C": pc}, {"M": M, "N": 12, "K": K})
        finally:
            k.close()
            d.primary_context_release(dev)


# ---- torch -----------------------------------------------------------------

def silu_parts(gate: Any) -> Tuple[Any, Any]:
    s = gate.sigmoid()
    return s, gate * s


def reference(torch: Any, m: Manifest, t: Dict[str, Any]) -> Dict[str, Any]:
    """What each kind computes, by the layouts its buffers' shapes say, in float32."""
    f = {n: x.float() for n, x in t.items()}
    shapes = {b.name: b.shape for b in m.buffers}
    if m.kernel == "gemm":
        a = f["A"] if shapes["A"] == ("M", "K") else f["A"].T
        b = f["B"].T if shapes["B"] == ("N", "K") else f["B"]
        return {"C": a @ b}
    if m.kernel == "bwd_dswiglu":
        w = f["W_down"].T if shapes["W_down"] == ("I", "K") else f["W_down"]  # as [K,I]
        dout = f["dy"] @ w
        i = dout.shape[1]
        left, gate = f["de"][:, :i], f["de"][:, i:]
        s, silu = silu_parts(gate)
        out = {"grad_de": torch.cat([dout * silu, dout * left * s * (1 + gate * (1 - s))], dim=1)}
        if "out" in t:
            out["out"] = left * silu
        return out
    if m.kernel == "fwd_gateup":
        w = f["W"].T if shapes["W"] == ("2*I", "K") else f["W"]  # as [K,2I]
        de = f["x"] @ w
        i = de.shape[1] // 2
        out = {"out": de[:, :i] * silu_parts(de[:, i:])[1]}
        if "de" in t:
            out["de"] = de
        return out
    if m.kernel == "fwd_down":
        w = f["W_down"].T if shapes["W_down"] == ("K", "I") else f["W_down"]  # as [I,K]
        y = f["out"] @ w
        if "residual" in t:
            y = y + f["residual"]
        return {"y": y}
    raise AssertionError("no reference for kind %s" % m.kernel)


OUTPUTS = {"gemm": {"C"}, "bwd_dswiglu": {"grad_de", "out"}, "fwd_gateup": {"out", "de"}, "fwd_down": {"y"}}


def sizes_for(m: Manifest, M: int, K: int, I: int) -> Dict[str, int]:  # noqa: E741
    return {"M": M, "N": I, "K": K} if m.kernel == "gemm" else {"M": M, "K": K, "I": I}


def make_tensors(torch: Any, k: Kernel, sizes: Dict[str, int]) -> Dict[str, Any]:
    """The kernel's buffers at sizes: outputs NaN, inputs random."""
    from swigen_rt import eval_expr
    from swigen_rt.tensors import buffer_dtypes

    m = k.manifest
    gen = torch.Generator(device="cuda").manual_seed(3)
    dts = buffer_dtypes(m)
    t: Dict[str, Any] = {}
    for b in m.buffers:
        shape = [eval_expr(e, sizes) for e in b.shape]
        dt = getattr(torch, dts[b.name])
        if b.name in OUTPUTS[m.kernel]:
            t[b.name] = torch.full(shape, float("nan"), dtype=dt, device="cuda")
        else:
            t[b.name] = (torch.randn(shape, generator=gen, device="cuda") / math.sqrt(shape[-1])).to(dt)
    return t


class SKHeader:
    """A stream-K workspace (tiling.StreamKWorkspace) on a grid of one CTA
    per SM, at most 256: calling it reads the header's epoch; poison()
    fills the partial slots with NaN."""

    def __init__(self, torch: Any, ws: Any) -> None:
        self.ws = ws
        self.grid = min(torch.cuda.get_device_properties(ws.device).multi_processor_count, 256)
        self.slots = (self.grid * 8 + 8 + 127) // 128 * 128

    def __call__(self) -> int:
        return int.from_bytes(bytes(self.ws[self.grid * 8:self.grid * 8 + 4].cpu().tolist()), "little")

    def poison(self) -> None:
        self.ws[self.slots:].fill_(255)


def run_torch(tc: unittest.TestCase, torch: Any, k: Kernel, sizes: Dict[str, int], stream: Any = None) -> None:
    m = k.manifest
    t = make_tensors(torch, k, sizes)
    want = reference(torch, m, t)
    k.launch(t, stream=stream)
    torch.cuda.synchronize()
    for name, w in want.items():
        got = t[name].float()
        tc.assertFalse(torch.isnan(got).any().item(), "%s %s: unwritten elements" % (m.name, name))
        err = ((got - w).norm() / w.norm().clamp_min(1e-30)).item()
        tc.assertLess(err, 1e-2, "%s %s at %s: rel. error %.3g" % (m.name, name, sizes, err))


@unittest.skipIf(torch_cuda() is None, "needs torch with CUDA on an sm_90a GPU")
class TorchTest(unittest.TestCase):
    def test_gemm_against_matmul(self) -> None:
        torch = torch_cuda()
        k = Kernel.from_files(GEMM)
        for M, K, I in [(200, 72, 136), (1, 8, 8), (333, 200, 264)]:  # noqa: E741
            with self.subTest(M=M, K=K, N=I):
                run_torch(self, torch, k, sizes_for(k.manifest, M, K, I))

    def test_bwd(self) -> None:
        torch = torch_cuda()
        k = Kernel.from_files(BWD)
        run_torch(self, torch, k, {"M": 333, "K": 256, "I": 264})

    def test_stream_thread_and_context(self) -> None:
        torch = torch_cuda()
        d = drv.driver()
        k = Kernel.from_files(GEMM)
        torch.zeros(1, device="cuda")
        before = d.current_context()
        self.assertNotEqual(before, 0, "torch made no context current")
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            run_torch(self, torch, k, {"M": 128, "N": 256, "K": 64})
        run_torch(self, torch, k, {"M": 128, "N": 256, "K": 64}, stream=s)
        errs: List[BaseException] = []

        def other() -> None:
            try:
                run_torch(self, torch, k, {"M": 64, "N": 64, "K": 64})
            except BaseException as e:  # noqa: BLE001
                errs.append(e)

        th = threading.Thread(target=other)
        th.start()
        th.join()
        self.assertEqual(errs, [])
        self.assertEqual(d.current_context(), before, "the launch changed this thread's context")
        # The kernel runs in torch's (primary) context: the one current here.
        self.assertEqual(k._devices[0].ctx, before)

    def test_cuda_graph_capture(self) -> None:
        torch = torch_cuda()
        k = Kernel.from_files(GEMM)
        M, N, K = 256, 256, 128
        a = torch.randn(M, K, device="cuda").bfloat16()
        b = torch.randn(N, K, device="cuda").bfloat16()
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        k.launch({"A": a, "B": b, "C": c})  # load and encode outside the capture
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            k.launch({"A": a, "B": b, "C": c})
        c.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        w = a.float() @ b.float().T
        self.assertLess(((c.float() - w).norm() / w.norm()).item(), 1e-2)

    @unittest.skipUnless(os.environ.get("SWIGEN_PY_KERNELS"), "set SWIGEN_PY_KERNELS to an emit directory")
    def test_emitted_streamk_graph(self) -> None:
        """Every emitted kernel with a workspace (stream-K), launched on one
        stream eagerly and then from a CUDA graph captured on that stream,
        replayed with eager launches between: the kernel keeps the epoch in
        the workspace's header and advances it at every launch, replays
        included (a parameter would repeat), and every launch gives the
        first one's output bit for bit, its partial slots NaN-filled before
        it (a flag passed too early would sum NaN)."""
        torch = torch_cuda()
        root = os.environ["SWIGEN_PY_KERNELS"]
        with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
            index = json.load(f)
        ran = 0
        for e in index["kernels"]:
            if e["arch"] != "sm_90a" or not e.get("cubin"):
                continue
            k = Kernel.from_files(os.path.join(root, e["manifest"]), os.path.join(root, e["cubin"]))
            if not any(p.kind == "workspace" for p in k.manifest.params):
                k.close()
                continue
            s = sizes_for(k.manifest, 1000, 4096, 4096)
            try:
                k.manifest.check_sizes(s)
            except ValueError:
                k.close()
                continue
            with self.subTest(kernel=e["name"], sizes=s):
                self.graph_replays(torch, k, s)
                ran += 1
            k.close()
        self.assertGreater(ran, 0)

    def graph_replays(self, torch: Any, k: Kernel, sizes: Dict[str, int]) -> None:
        t = make_tensors(torch, k, sizes)
        outs = sorted(n for n in OUTPUTS[k.manifest.kernel] if n in t)
        st = torch.cuda.Stream()
        with torch.cuda.stream(st):
            k.launch(t)
        torch.cuda.synchronize()
        first = {n: t[n].clone() for n in outs}
        ws = [w for key, w in k._workspaces.items() if key[1] == st.cuda_stream][0]
        header = SKHeader(torch, ws)
        self.assertEqual(header(), 1)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=st):
            k.launch(t)
        launches = 1
        for i in range(6):
            torch.cuda.synchronize()
            for n in outs:
                t[n].fill_(float("nan"))
            header.poison()
            torch.cuda.synchronize()
            if i % 3 == 2:
                with torch.cuda.stream(st):
                    k.launch(t)
            else:
                g.replay()
            torch.cuda.synchronize()
            launches += 1
            for n in outs:
                self.assertTrue(torch.equal(t[n].view(torch.int16), first[n].view(torch.int16)),
                                "%s %s: launch %d (%s) differs from the first" % (k.name, n, launches, "eager" if i % 3 == 2 else "replay"))
            self.assertEqual(header(), launches, "%s: the header's epoch after %d launches" % (k.name, launches))

    @unittest.skipUnless(os.environ.get("SWIGEN_PY_KERNELS"), "set SWIGEN_PY_KERNELS to an emit directory")
    def test_emitted_kernels(self) -> None:
        torch = torch_cuda()
        root = os.environ["SWIGEN_PY_KERNELS"]
        with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
            index = json.load(f)
        ran = 0
        for e in index["kernels"]:
            if e["arch"] != "sm_90a" or not e.get("cubin"):
                continue
            k = Kernel.from_files(os.path.join(root, e["manifest"]), os.path.join(root, e["cubin"]))
            for M, K, I in [(1, 64, 64), (777, 520, 1000), (2048, 768, 1536)]:  # noqa: E741
                s = sizes_for(k.manifest, M, K, I)
                try:
                    k.manifest.check_sizes(s)
                except ValueError:
                    continue
                with self.subTest(kernel=e["name"], sizes=s):
                    run_torch(self, torch, k, s)
                    ran += 1
            k.close()
        self.assertGreater(ran, 0)


if __name__ == "__main__":
    unittest.main()

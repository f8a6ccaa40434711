"""The SwiGLU MLPs a PyTorch user compares swigen's SwiGLUMLP with (bench/py_perf.py --compare).

Each peer is a builder: given the block's bf16 weights (gate and up
[I, K], down [K, I], nn.Linear's layout) it returns a Peer whose fwd maps
x [M, K] to y [M, K] and whose params are the tensors autograd
differentiates, with a function that turns their gradients into (dW_gate,
dW_up, dW_down). A peer whose package is missing raises Skip with a line
saying so; every other failure is the caller's to record.
"""

from __future__ import annotations

import contextvars
import importlib.util
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

Grads = Tuple[Tensor, Tensor, Tensor]


class Skip(Exception):
    """The peer cannot run here (its package is not installed): the message says why."""


@dataclass
class Peer:
    """One runnable MLP: y = fwd(x); params get gradients; split maps
    their gradients to (dW_gate, dW_up, dW_down)."""

    fwd: Callable[[Tensor], Tensor]
    params: List[Tensor]
    split: Callable[[Sequence[Tensor]], Grads]
    note: str = ""


@dataclass(frozen=True)
class Weights:
    gate: Tensor  # [I, K]
    up: Tensor  # [I, K]
    down: Tensor  # [K, I]


def _param(t: Tensor) -> torch.nn.Parameter:
    return torch.nn.Parameter(t.detach().clone().contiguous())


def _need(module: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise Skip("%s: skipped: module %s is not installed on this machine" % (what, module))


def hf_block(x: Tensor, gate: Tensor, up: Tensor, down: Tensor) -> Tensor:
    """The Hugging Face Llama MLP: down_proj(silu(gate_proj(x)) * up_proj(x)), bias-free."""
    return F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down)


def _three(w: Weights, fn: Callable[..., Tensor], note: str = "") -> Peer:
    ps = [_param(w.gate), _param(w.up), _param(w.down)]
    return Peer(fwd=lambda x: fn(x, *ps), params=ps, split=lambda g: (g[0], g[1], g[2]), note=note)


def eager(w: Weights) -> Peer:
    return _three(w, hf_block, "three nn.Linear products, F.silu, mul")


def compiled(mode: Optional[str]) -> Callable[[Weights], Peer]:
    def build(w: Weights) -> Peer:
        import torch._dynamo  # noqa: PLC0415

        torch._dynamo.reset()  # each shape and mode compiles afresh, not into the last one's cache
        fn = torch.compile(hf_block, mode=mode, dynamic=False)
        return _three(w, fn, "torch.compile(mode=%s) of the HF block" % (mode or "default"))
    return build


@dataclass
class _Config:
    hidden_size: int
    intermediate_size: int
    hidden_act: str = "silu"


def _load_linears(m: Any, w: Weights) -> None:
    with torch.no_grad():
        m.gate_proj.weight.copy_(w.gate)
        m.up_proj.weight.copy_(w.up)
        m.down_proj.weight.copy_(w.down)


def _linears(m: Any) -> List[Tensor]:
    return [m.gate_proj.weight, m.up_proj.weight, m.down_proj.weight]


def liger_swiglu(w: Weights) -> Peer:
    _need("liger_kernel", "Liger-Kernel LigerSwiGLUMLP")
    from liger_kernel.transformers.swiglu import LigerSwiGLUMLP  # noqa: PLC0415

    i, k = w.gate.shape
    m = LigerSwiGLUMLP(_Config(k, i)).to(device=w.gate.device, dtype=w.gate.dtype)
    _load_linears(m, w)
    return Peer(fwd=m, params=_linears(m), split=lambda g: (g[0], g[1], g[2]), note="cuBLAS GEMMs + Triton SiLU*mul")


def liger_mlp(w: Weights) -> Peer:
    _need("liger_kernel", "Liger-Kernel LigerMLP")
    from liger_kernel.transformers.mlp import LigerMLP  # noqa: PLC0415

    i, k = w.gate.shape
    m = LigerMLP(_Config(k, i)).to(device=w.gate.device, dtype=w.gate.dtype)
    _load_linears(m, w)
    # LigerMLP takes [B, S, H] input.
    return Peer(fwd=lambda x: m(x.view(1, *x.shape)).view(x.shape[0], -1), params=_linears(m),
                split=lambda g: (g[0], g[1], g[2]), note="Triton gate/up GEMM + SwiGLU epilogue, fused dSwiGLU backward")


_quack_patched = False


def _patch_quack_identity() -> None:
    """quack 0.6.5 with cutlass-dsl 4.8.1: the compile-cache fingerprint
    (quack.gemm_runtime.identity.semantic_value_key) raises TypeError on a
    DSL ContextVar an epilogue closure captures. Such values only name
    the cache entry, so key them by type and name; the kernels compile and
    run unchanged. The recursion goes through the module's global, so
    nested values get the wrapper too."""
    global _quack_patched
    if _quack_patched:
        return
    from quack.gemm_runtime import identity  # noqa: PLC0415

    orig = identity.semantic_value_key

    def key(value: Any, seen: Any) -> Any:
        if isinstance(value, contextvars.ContextVar):
            return ("contextvar", type(value).__module__, type(value).__qualname__, value.name)
        try:
            return orig(value, seen)
        except TypeError:
            return ("opaque", type(value).__module__, type(value).__qualname__, getattr(value, "name", None))

    identity.semantic_value_key = key
    _quack_patched = True


def quack(tuned: bool) -> Callable[[Weights], Peer]:
    def build(w: Weights) -> Peer:
        _need("quack", "QuACK MLP")
        _need("cutlass", "QuACK MLP (nvidia-cutlass-dsl)")
        _patch_quack_identity()
        from quack.mlp import MLP  # noqa: PLC0415

        i, k = w.gate.shape
        m = MLP(k, i, activation="swiglu", concat_layout=True, tuned=tuned, device=w.gate.device, dtype=w.gate.dtype)
        with torch.no_grad():
            m.fc1.weight.copy_(torch.cat([w.gate, w.up], 0))  # concat_layout: [gate ; up]
            m.fc2.weight.copy_(w.down)
        ps = [m.fc1.weight, m.fc2.weight]
        return Peer(fwd=m, params=ps, split=lambda g: (g[0][:i], g[0][i:], g[1]),
                    note="MLP(activation=swiglu, concat_layout=True, tuned=%s)" % tuned)
    return build


def swigen(down: str = "torch", dx: str = "one") -> Callable[[Weights], Peer]:
    def build(w: Weights) -> Peer:
        from swigen_rt import SwiGLUMLP  # noqa: PLC0415

        i, k = w.gate.shape
        m = SwiGLUMLP(k, i, device=w.gate.device, dtype=w.gate.dtype, down=down, dx=dx)
        m.load_gate_up(w.gate, w.up, w.down)
        return Peer(fwd=m, params=[m.W, m.W_down], split=lambda g: (g[0][i:], g[0][:i], g[1]),
                    note="SwiGLUMLP(down=%s, dx=%s)" % (down, dx))
    return build


def builders(tuned_here: bool, down_ab: bool) -> Dict[str, Tuple[str, Callable[[Weights], Peer]]]:
    """name -> (family, builder), in the order they run. tuned_here: this
    shape also runs the tuned variants (QuACK tuned, max-autotune)."""
    b: Dict[str, Tuple[str, Callable[[Weights], Peer]]] = {
        "swigen": ("swigen", swigen()),
        "swigen dx=halves": ("swigen", swigen(dx="halves")),
    }
    if down_ab:
        b["swigen down=swigen"] = ("swigen", swigen(down="swigen"))
    b.update({
        "eager (HF block)": ("eager", eager),
        "torch.compile": ("compile", compiled(None)),
        "Liger LigerSwiGLUMLP": ("liger", liger_swiglu),
        "Liger LigerMLP": ("liger", liger_mlp),
        "QuACK untuned": ("quack", quack(False)),
    })
    if tuned_here:
        b["torch.compile max-autotune-no-cudagraphs"] = ("compile", compiled("max-autotune-no-cudagraphs"))
        b["QuACK tuned"] = ("quack", quack(True))
    return b

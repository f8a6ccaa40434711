"""SwiGLUMLP: the usual down(silu(gate(x)) * up(x)) block on swigen's kernels (needs torch).

Forward: fwd_gateup (training: de stored) then the down projection (+
residual): swigen's fwd_down by default, torch's matmul (cuBLAS; one
addmm with the residual) with down="torch". On the H200 the two GEMMs
take the same GPU time at every shape measured (docs/PERFORMANCE.md#pytorch):
the down projection has no elementwise work to fuse.
Backward: bwd_dswiglu with StoreOut (out recomputed for dW_down), then
torch matmuls: dx = grad_de @ W, dW = grad_de^T @ x, dW_down = dy^T @ out.
Weights: W [2I, K] = [W_up ; W_gate] (swigen's [left | gate]: left is the
up projection, silu applies to gate), W_down [K, I] (nn.Linear's layout).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Tuple

import torch
from torch import Tensor, nn

from . import ops as _ops  # noqa: F401  (registers torch.ops.swigen.*)
from . import opspec

__all__ = ["SwiGLUMLP", "swiglu_mlp", "convert_gate_up", "convert_state_dict", "bwd_takes_w_down_kn",
           "fwd_down_reads_w_down_ik", "DOWN_PATHS"]

DOWN_PATHS = ("swigen", "torch")
"""What computes the down projection: swigen's fwd_down or torch's matmul (cuBLAS)."""


def convert_gate_up(gate_weight: Tensor, up_weight: Tensor) -> Tensor:
    """swigen's W [2I, K] from a checkpoint's gate_proj and up_proj weights
    ([I, K] each, nn.Linear's [out, in]): [up ; gate], contiguous."""
    if gate_weight.shape != up_weight.shape or gate_weight.dim() != 2:
        raise ValueError("convert_gate_up: gate %s and up %s: want two [I, K] weights of one shape"
                         % (list(gate_weight.shape), list(up_weight.shape)))
    return torch.cat([up_weight, gate_weight], dim=0).contiguous()


def convert_state_dict(sd: Mapping[str, Tensor], prefix: str = "") -> Dict[str, Tensor]:
    """A SwiGLUMLP state dict (W, W_down) from a Llama-style MLP's
    (<prefix>gate_proj.weight, <prefix>up_proj.weight, <prefix>down_proj.weight)."""
    try:
        g, u, d = sd[prefix + "gate_proj.weight"], sd[prefix + "up_proj.weight"], sd[prefix + "down_proj.weight"]
    except KeyError as e:
        raise ValueError("convert_state_dict: %s missing (have %s)" % (e, ", ".join(sorted(sd)))) from None
    return {"W": convert_gate_up(g, u), "W_down": d.contiguous()}


def bwd_takes_w_down_kn(arch: str, dtype: str) -> bool:
    """Whether the backward's bwd_dswiglu_out kernel reads W_down as [K, I]
    (an MN-major _bmn kernel) rather than [I, K]."""
    cands = opspec.REGISTRY.candidates("bwd_dswiglu", "out", arch, dtype)
    return bool(cands) and cands[0].mn_major


def fwd_down_reads_w_down_ik(arch: str, dtype: str, residual: bool) -> bool:
    """Whether the fwd_down kernel (residual: fwd_down_residual's) reads
    W_down as [I, K] (an MN-major _bmn kernel) rather than [K, I]."""
    cands = opspec.REGISTRY.candidates("fwd_down", "residual" if residual else "", arch, dtype)
    return bool(cands) and cands[0].mn_major


@torch.compiler.assume_constant_result
def _w_down_ik(device_index: int, dtype: str, residual: bool) -> bool:
    """fwd_down_reads_w_down_ik for a CUDA device by index (one constant to
    torch.compile, as _w_down_kn)."""
    return fwd_down_reads_w_down_ik(_ops.arch_of(torch.device("cuda", device_index)), dtype, residual)


def _dtype_name(t: Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def _index(t: Tensor) -> int:
    return t.device.index if t.device.index is not None else torch.cuda.current_device()


@torch.compiler.assume_constant_result
def _w_down_kn(device_index: int, dtype: str) -> bool:
    """bwd_takes_w_down_kn for a CUDA device by index. One constant to
    torch.compile: it is evaluated when the graph is traced, not traced
    itself (the arch cache behind it takes a lock, which Dynamo cannot
    enter)."""
    return bwd_takes_w_down_kn(_ops.arch_of(torch.device("cuda", device_index)), dtype)


class _SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x2: Tensor, W: Tensor, W_down: Tensor, residual: Optional[Tensor], train: bool,  # type: ignore[override]
                down: str) -> Tensor:
        if train:
            out, de = _ops.fwd_gateup_train(x2, W)
        else:
            out, de = _ops.fwd_gateup(x2, W), None
        if down == "torch":
            y = out @ W_down.t() if residual is None else torch.addmm(residual, out, W_down.t())
        else:
            # An MN-major (_bmn) fwd_down kernel reads W_down as [I, K].
            wd = W_down.t().contiguous() if _w_down_ik(_index(out), _dtype_name(out), residual is not None) else W_down
            y = _ops.fwd_down(out, wd) if residual is None else _ops.fwd_down_residual(out, wd, residual)
        if train:
            ctx.save_for_backward(x2, W, W_down, de)
        ctx.has_residual = residual is not None
        return y

    @staticmethod
    def backward(ctx: Any, dy: Tensor) -> Tuple[Optional[Tensor], ...]:  # type: ignore[override]
        x2, W, W_down, de = ctx.saved_tensors
        dy = dy.contiguous()
        wd = W_down if _w_down_kn(_index(dy), _dtype_name(dy)) else W_down.t().contiguous()
        grad_de, out = _ops.bwd_dswiglu_out(dy, wd, de)
        dx = grad_de @ W
        dW = grad_de.t() @ x2
        dW_down = dy.t() @ out
        return dx, dW, dW_down, (dy if ctx.has_residual else None), None, None


def swiglu_mlp(x: Tensor, W: Tensor, W_down: Tensor, residual: Optional[Tensor] = None, *,
               down: str = "swigen") -> Tensor:
    """y = (up(x) * silu(gate(x))) @ W_down^T (+ residual), x [..., K],
    W [2I, K] = [up ; gate], W_down [K, I]; differentiable in x, W, W_down
    and residual. down picks the down projection's GEMM (DOWN_PATHS)."""
    if down not in DOWN_PATHS:
        raise ValueError("swiglu_mlp: down=%r: want one of %s" % (down, ", ".join(DOWN_PATHS)))
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    r2 = None if residual is None else residual.reshape(-1, residual.shape[-1])
    train = torch.is_grad_enabled() and (x.requires_grad or W.requires_grad or W_down.requires_grad
                                         or (residual is not None and residual.requires_grad))
    y = _SwiGLUFunction.apply(x2, W, W_down, r2, train, down)
    return y.reshape(*lead, y.shape[-1])


class SwiGLUMLP(nn.Module):
    """down(silu(gate(x)) * up(x)) with swigen's kernels.

    hidden K, intermediate I; W [2I, K] holds [up ; gate] (load a checkpoint
    with load_gate_up or convert_state_dict), W_down [K, I]. K and I must
    be multiples of 8 (TMA); bf16 or fp16 as the registered kernels. down:
    the down projection's GEMM, "swigen" (fwd_down, the default) or "torch".
    """

    def __init__(self, hidden: int, intermediate: int, *, device: Any = None, dtype: Any = torch.bfloat16,
                 down: str = "swigen") -> None:
        super().__init__()
        if down not in DOWN_PATHS:
            raise ValueError("SwiGLUMLP: down=%r: want one of %s" % (down, ", ".join(DOWN_PATHS)))
        self.hidden, self.intermediate, self.down = hidden, intermediate, down
        self.W = nn.Parameter(torch.empty(2 * intermediate, hidden, device=device, dtype=dtype))
        self.W_down = nn.Parameter(torch.empty(hidden, intermediate, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """nn.Linear's default initialisation of each projection."""
        nn.init.kaiming_uniform_(self.W, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_down, a=math.sqrt(5))

    @torch.no_grad()
    def load_gate_up(self, gate_weight: Tensor, up_weight: Tensor, down_weight: Tensor) -> None:
        """Copies a standard block's gate/up/down nn.Linear weights in."""
        self.W.copy_(convert_gate_up(gate_weight, up_weight))
        self.W_down.copy_(down_weight)

    def forward(self, x: Tensor, residual: Optional[Tensor] = None) -> Tensor:
        return swiglu_mlp(x, self.W, self.W_down, residual, down=self.down)

    def extra_repr(self) -> str:
        return "hidden=%d, intermediate=%d, down=%s" % (self.hidden, self.intermediate, self.down)

"""SwiGLUMLP: the usual down(silu(gate(x)) * up(x)) block on swigen's kernels (needs torch).

Forward: fwd_gateup (training: de stored) then the down projection (+
residual): torch's matmul by default (cuBLAS; one addmm with the
residual), swigen's fwd_down with down="swigen". The forward saves x, the
weights and de, nothing else. What runs in each mode (grad, no_grad,
inference_mode, autocast) is modes.forward_kernel's rule.
Backward: bwd_dswiglu with StoreOut (out recomputed for dW_down) writing
grad_de over de when autograd alone holds de (modes.grad_de_in_place; out
of place under retain_graph, saved-tensor hooks or torch.compile), then
torch matmuls: dx = grad_de @ W (one GEMM or two halves, dx="halves"),
dW = grad_de^T @ x and dW_down = dy^T @ out, dW_down first (out freed
before dx and dW are allocated) or, where M < K, last: into grad_de's
storage where grad_de is de (autograd holds it to the end) and it fits,
after freeing grad_de where it is its own buffer (modes.dw_down_order).
Double backward is refused.
Weights: W [2I, K] = [W_up ; W_gate] (swigen's [left | gate]: left is the
up projection, silu applies to gate), W_down [K, I] (nn.Linear's layout).
The backward's kernel reads W_down as it is where that kernel is MN-major
(_bmn: the wheel's, or a package emitted with --major-b mn), else a
transposed copy of it each call (bwd_takes_w_down_kn).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Tuple

import torch
from torch import Tensor, nn

from . import ops as _ops  # noqa: F401  (registers torch.ops.swigen.*)
from . import modes, opspec
from . import select as _select

__all__ = ["SwiGLUMLP", "swiglu_mlp", "convert_gate_up", "convert_state_dict", "bwd_takes_w_down_kn",
           "fwd_down_reads_w_down_ik", "registered_kernels", "last_grad_de_path", "DOWN_PATHS"]

DOWN_PATHS = ("torch", "swigen")
"""What computes the down projection: torch's matmul (cuBLAS, the default:
its GEMM measured ~5% faster than fwd_down at 8192,4096,14336 on the H200)
or swigen's fwd_down."""


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
    (an MN-major _bmn kernel: the wheel's, where its selection says so)
    rather than [I, K], which the backward then copies W_down into."""
    return _select.weight_mn_major("bwd_dswiglu", "out", arch, dtype)


def fwd_down_reads_w_down_ik(arch: str, dtype: str, residual: bool) -> bool:
    """Whether the fwd_down kernel (residual: fwd_down_residual's) reads
    W_down as [I, K] (an MN-major _bmn kernel) rather than [K, I]."""
    return _select.weight_mn_major("fwd_down", "residual" if residual else "", arch, dtype)


# The block's decisions that depend on the kernel registry (which kernels
# run, their weight layouts) are each one constant to torch.compile
# (assume_constant_result: evaluated when the graph is traced, not traced
# itself: the arch cache and the registry take locks, which Dynamo cannot
# enter). Each takes the generations of the block's kinds as an argument,
# read by its traced caller (_generation): Dynamo then guards the compiled
# graph on the values it read (one dict item each), so a package of those
# kinds registered or removed after the trace fails the guard and the next
# call retraces with the registry's decisions; a package of other kinds
# (gemm, the grouped kinds) retraces nothing. In eager mode the generations
# key the decisions' cache (_decided).

_decided = modes.Memo()


_Generation = Tuple[int, int, int]


def _generation() -> _Generation:
    """The registry's generations of the block's kinds
    (package.Registry.kind_generation), read where Dynamo traces them: the
    guard of a compiled graph."""
    g = opspec.REGISTRY.kind_generation
    return g.get("fwd_gateup", 0), g.get("fwd_down", 0), g.get("bwd_dswiglu", 0)


def _arch(device_index: int) -> str:
    return _ops.arch_of(torch.device("cuda", device_index))


@torch.compiler.assume_constant_result
def _w_down_ik(device_index: int, dtype: str, residual: bool, generation: _Generation) -> bool:
    """fwd_down_reads_w_down_ik for a CUDA device by index (one constant to
    torch.compile, as _w_down_kn)."""
    return _decided.call(_ik, generation, device_index, dtype, residual)


def _ik(device_index: int, dtype: str, residual: bool) -> bool:
    return fwd_down_reads_w_down_ik(_arch(device_index), dtype, residual)


def _dtype_name(t: Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def _index(t: Tensor) -> int:
    return t.device.index if t.device.index is not None else torch.cuda.current_device()


@torch.compiler.assume_constant_result
def _w_down_kn(device_index: int, dtype: str, generation: _Generation) -> bool:
    """bwd_takes_w_down_kn for a CUDA device by index, at the block's kinds'
    generations (one constant to torch.compile)."""
    return _decided.call(_kn, generation, device_index, dtype)


def _kn(device_index: int, dtype: str) -> bool:
    return bwd_takes_w_down_kn(_arch(device_index), dtype)


def _can_run(kind: str, variant: str, arch: str, dtype: str) -> bool:
    """Whether an op of kind and variant has a kernel for arch and dtype:
    a registered package's, or else the installed wheel's (opspec.select's
    order)."""
    return bool(opspec.REGISTRY.candidates(kind, variant, arch, dtype)) or dtype in _select.bundled_dtypes(kind, variant, arch)


def registered_kernels(arch: str, dtype: str) -> modes.Kernels:
    """Which of the block's kernels can run for arch and dtype (registered
    or in the installed wheel)."""
    return modes.Kernels(train=_can_run("fwd_gateup", "train", arch, dtype),
                         infer=_can_run("fwd_gateup", "", arch, dtype),
                         bwd=_can_run("bwd_dswiglu", "out", arch, dtype))


_FWD_MODES = (modes.FWD_TRAIN, modes.FWD_INFER, modes.FWD_TRAIN_DROP_DE)


@torch.compiler.assume_constant_result
def _fwd_mode(device_index: int, dtype: str, grad: bool, generation: _Generation) -> int:
    """modes.forward_kernel for a CUDA device by index, as an index into
    _FWD_MODES (one constant to torch.compile, as _w_down_kn)."""
    return _decided.call(_mode, generation, device_index, dtype, grad)


def _mode(device_index: int, dtype: str, grad: bool) -> int:
    arch = _arch(device_index)
    others = tuple(d for d in _registered_dtypes(arch) if d != dtype)
    return _FWD_MODES.index(modes.forward_kernel(grad, registered_kernels(arch, dtype), arch, dtype, others))


def _registered_dtypes(arch: str) -> Tuple[str, ...]:
    """The dtypes the block's forward kernels are registered for on arch."""
    return tuple(sorted({e.dtype for v in ("train", "") for e in opspec.REGISTRY.candidates("fwd_gateup", v, arch)}
                        | {d for v in ("train", "") for d in _select.bundled_dtypes("fwd_gateup", v, arch)}))


@torch.compiler.assume_constant_result
def _kernel_dtypes(device_index: int, generation: _Generation) -> Tuple[str, ...]:
    """_registered_dtypes for a CUDA device by index (one constant to torch.compile)."""
    return _decided.call(_dtypes, generation, device_index)


def _dtypes(device_index: int) -> Tuple[str, ...]:
    return _registered_dtypes(_arch(device_index))


def _down(out: Tensor, W_down: Tensor, residual: Optional[Tensor], down: str) -> Tensor:
    """y = out @ W_down^T (+ residual) on the chosen GEMM."""
    if down == "torch":
        return out @ W_down.t() if residual is None else torch.addmm(residual, out, W_down.t())
    # An MN-major (_bmn) fwd_down kernel reads W_down as [I, K]: a transpose
    # each call, so emit fwd_down K-major (the default) for this path.
    ik = _w_down_ik(_index(out), _dtype_name(out), residual is not None, _generation())
    wd = W_down.t().contiguous() if ik else W_down
    return _ops.fwd_down(out, wd) if residual is None else _ops.fwd_down_residual(out, wd, residual)


_keep_graph = getattr(torch._C._autograd, "_get_current_graph_task_keep_graph", lambda: True)
_top_hooks = getattr(torch._C._autograd, "_top_saved_tensors_default_hooks", None)
_use_count = getattr(torch._C, "_storage_Use_Count", None)


def _hooks_active() -> bool:
    """Whether saved-tensor default hooks (checkpointing, offloading) are
    active; True where torch cannot say."""
    if _top_hooks is None:
        return True
    try:
        return _top_hooks(False) is not None
    except (TypeError, RuntimeError):  # another signature, or hooks disabled: assume a holder
        return True


def _storage_refs(t: Tensor) -> int:
    """References to t's storage (tensors sharing it, e.g. views), or -1
    where torch cannot say."""
    if _use_count is None:
        return -1
    return int(_use_count(t.untyped_storage()._cdata))


_last_path = {"grad_de": ""}  # not thread-local: autograd runs CUDA backwards on its own thread


def last_grad_de_path() -> str:
    """Where the last SwiGLUMLP backward (any thread) wrote grad_de, and
    why (modes.grad_de_in_place's reason; "" before any)."""
    return _last_path["grad_de"]


def _grad_de(ctx: Any, dy: Tensor, wd: Tensor, de: Tensor) -> Tuple[Tensor, Tensor]:
    """grad_de and the recomputed out: over de where modes.grad_de_in_place
    allows it and the kernel runs directly, else in a new buffer."""
    if torch.compiler.is_compiling():
        return _ops.bwd_dswiglu_out(dy, wd, de)
    refs = _storage_refs(de)
    inplace, why = modes.grad_de_in_place(
        keep_graph=_keep_graph(), compiling=False, hooks=ctx.hooks,
        de_refs=(refs - ctx.de_refs) if refs >= 0 and ctx.de_refs >= 0 else 1,
        de_version=de._version, saved_version=ctx.de_version)
    out = _ops.bwd_dswiglu_out_over_de(dy, wd, de) if inplace else None
    if inplace and out is None:
        why = "out of place: the call cannot run the kernel directly (a mode, a subclass or tracing)"
    _last_path["grad_de"] = why
    if out is not None:
        return de, out  # de now holds grad_de; autograd frees it after this backward
    return _ops.bwd_dswiglu_out(dy, wd, de)


class _SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x2: Tensor, W: Tensor, W_down: Tensor, residual: Optional[Tensor],  # type: ignore[override]
                down: str, halves: bool) -> Tensor:
        out, de = _ops.fwd_gateup_train(x2, W)
        y = _down(out, W_down, residual, down)
        del out  # recomputed by the backward's StoreOut: the step never holds it
        ctx.save_for_backward(x2, W, W_down, de)
        ctx.has_residual, ctx.halves = residual is not None, halves
        if torch.compiler.is_compiling():  # the backward stays functional (grad_de_in_place)
            ctx.hooks, ctx.de_version, ctx.de_refs = True, 0, -1
        else:
            ctx.hooks, ctx.de_version, ctx.de_refs = _hooks_active(), de._version, _storage_refs(de)
        return y

    @staticmethod
    def backward(ctx: Any, dy: Tensor) -> Tuple[Optional[Tensor], ...]:  # type: ignore[override]
        if torch.is_grad_enabled() and not torch.compiler.is_compiling():
            raise RuntimeError(modes.DOUBLE_BACKWARD)  # create_graph=True
        x2, W, W_down, de = ctx.saved_tensors
        dy = dy.contiguous()
        wd = W_down if _w_down_kn(_index(dy), _dtype_name(dy), _generation()) else W_down.t().contiguous()
        grad_de, out = _grad_de(ctx, dy, wd, de)
        in_place = grad_de is de
        del de
        i = W.shape[0] // 2
        order = modes.dw_down_order(x2.shape[0], x2.shape[1], i, in_place)  # the lowest peak's
        if order == modes.DW_DOWN_FIRST:
            dW_down = dy.t() @ out
            del out
        if ctx.halves:
            dx = grad_de[:, :i] @ W[:i]
            dx.addmm_(grad_de[:, i:], W[i:])
        else:
            dx = grad_de @ W
        dW = grad_de.t() @ x2
        if order == modes.DW_DOWN_OVER_GRAD_DE:  # grad_de is read: its storage takes dW_down
            dW_down = torch.mm(dy.t(), out, out=grad_de.view(-1)[:W_down.numel()].view(W_down.shape))
            del out
        elif order == modes.DW_DOWN_LAST:
            del grad_de
            dW_down = dy.t() @ out
            del out
        return dx, dW, dW_down, (dy if ctx.has_residual else None), None, None


def _check_paths(what: str, down: str, dx: str) -> bool:
    if down not in DOWN_PATHS:
        raise ValueError("%s: down=%r: want one of %s" % (what, down, ", ".join(DOWN_PATHS)))
    return modes.dx_halves(dx)


def swiglu_mlp(x: Tensor, W: Tensor, W_down: Tensor, residual: Optional[Tensor] = None, *,
               down: str = "torch", dx: str = "one") -> Tensor:
    """y = (up(x) * silu(gate(x))) @ W_down^T (+ residual), x [..., K],
    W [2I, K] = [up ; gate], W_down [K, I]; differentiable in x, W, W_down
    and residual. down picks the down projection's GEMM (DOWN_PATHS), dx
    how the backward's dx = grad_de @ W runs (modes.DX_PATHS).

    Modes (modes.forward_kernel): with a gradient to compute, the training
    kernels; otherwise (no_grad, inference_mode, nothing requiring grad)
    the inference fwd_gateup where registered, else the training one with
    de dropped. Under CUDA autocast the inputs are cast to autocast's
    dtype where a registered kernel reads it."""
    halves = _check_paths("swiglu_mlp", down, dx)
    if torch.is_autocast_enabled("cuda") and x.is_cuda:
        dt = torch.get_autocast_dtype("cuda")
        to = modes.autocast_dtype(True, _dtype_name_of(dt), _kernel_dtypes(_index(x), _generation()), _dtype_name(x))
        if to is not None:
            x, W, W_down = x.to(dt), W.to(dt), W_down.to(dt)
            residual = None if residual is None else residual.to(dt)
        with torch.autocast("cuda", enabled=False):
            return _swiglu(x, W, W_down, residual, down, halves)
    return _swiglu(x, W, W_down, residual, down, halves)


def _dtype_name_of(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def _swiglu(x: Tensor, W: Tensor, W_down: Tensor, residual: Optional[Tensor], down: str, halves: bool) -> Tensor:
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    r2 = None if residual is None else residual.reshape(-1, residual.shape[-1])
    if not x2.is_cuda:
        opspec.check_input("fwd_gateup", "x", x2)  # raises: the op's device rule
    grad = torch.is_grad_enabled() and (x.requires_grad or W.requires_grad or W_down.requires_grad
                                        or (residual is not None and residual.requires_grad))
    mode = _FWD_MODES[_fwd_mode(_index(x2), _dtype_name(x2), grad, _generation())]
    if mode == modes.FWD_TRAIN:
        y = _SwiGLUFunction.apply(x2, W, W_down, r2, down, halves)
    else:
        out = _ops.fwd_gateup(x2, W) if mode == modes.FWD_INFER else _ops.fwd_gateup_train(x2, W)[0]
        y = _down(out, W_down, r2, down)
    return y.reshape(*lead, y.shape[-1])


class SwiGLUMLP(nn.Module):
    """down(silu(gate(x)) * up(x)) with swigen's kernels.

    hidden K, intermediate I; W [2I, K] holds [up ; gate] (load a checkpoint
    with load_gate_up or convert_state_dict), W_down [K, I]. K and I must
    be multiples of 8 (TMA); bf16 or fp16 as the registered kernels. down:
    the down projection's GEMM, "torch" (cuBLAS, the default) or "swigen"
    (fwd_down); dx: the backward's dx GEMM, "one" or "halves" (modes.DX_PATHS).
    """

    def __init__(self, hidden: int, intermediate: int, *, device: Any = None, dtype: Any = torch.bfloat16,
                 down: str = "torch", dx: str = "one") -> None:
        super().__init__()
        _check_paths("SwiGLUMLP", down, dx)
        self.hidden, self.intermediate, self.down, self.dx = hidden, intermediate, down, dx
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
        return swiglu_mlp(x, self.W, self.W_down, residual, down=self.down, dx=self.dx)

    def extra_repr(self) -> str:
        return "hidden=%d, intermediate=%d, down=%s, dx=%s" % (self.hidden, self.intermediate, self.down, self.dx)

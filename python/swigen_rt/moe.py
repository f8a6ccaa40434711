"""SwiGLUExperts: a mixture-of-experts layer's SwiGLU experts over tokens sorted by expert (needs torch).

Layout (moe_plan's docstring owns it): x [T, H] sorted by expert, offs [E]
int32 cumulative ends (torch._grouped_mm's convention), W [E, 2I, H] each
expert's [up ; gate], W_down [E, H, I]. The ops:

    torch.ops.swigen.moe_gateup(x, W, offs, score=None) -> out [T, I]
    torch.ops.swigen.moe_gateup_train(x, W, offs, score=None) -> (out [T, I], de [T, 2I])
    torch.ops.swigen.moe_dswiglu_out(dy, W_down, de, offs) -> (grad_de [T, 2I], out [T, I])
    torch.ops.swigen.moe_dswiglu_out_score(dy, W_down, de, offs, score) -> (grad_de, out, dscore [T])
    torch.ops.swigen.moe_down(out, W_down, offs) -> y [T, H]
    torch.ops.swigen.moe_wgrad(A, B, offs) -> dW [E, N, K]

score [T] float32 is each routed row's router weight: out = score[t] *
up * silu(gate) (de unscaled); the backward takes score*dout into the
dSwiGLU, recomputes the scaled out and returns dscore[t] = sum_i h[t,i] *
dout[t,i] (h unscaled), so the layer's y is the router-weighted expert
output and autograd reaches the router. With a score an op launches the
_score kernel of its kind and variant (swigen emit --score; the op
moe_plan.SCORE_OP names: moe_gateup_score, moe_gateup_train_score,
moe_dswiglu_out_score), never one without a score; the backward's kernel
writes dscore as per-tile row partials [T, cdiv(I, TileN)], summed here
on the device in column order (_sum_score_partials:
moe_plan.sum_score_partials' order and rounding, so the same partials
give the same dscore bits). No wheel ships a _score kernel.

moe_wgrad is a weight gradient, dW[e] = A_e^T @ B_e over expert e's rows
(A [T, N], B [T, K]), in nn.Linear(K, N).weight's layout per expert:
W_down's gradient is moe_wgrad(dy, out, offs), W's moe_wgrad(grad_de, x,
offs); an expert with no rows gets zeros.

All are the grouped kinds of moe_plan.GROUPED_KINDS
(moe_down: moe_gemm, W_down its K-major B; moe_wgrad: moe_wgrad, both
operands MN-major); the _score ops run those kinds' _score kernels. Where a
package of the op's kind, variant, arch and dtype is registered (swigen
emit --kernel moe_fwd_gateup --py-package NAME, imported; --store-out
for moe_gateup_train; --kernel moe_bwd_dswiglu --store-out for
moe_dswiglu_out; --kernel moe_gemm for moe_down; --kernel moe_wgrad for moe_wgrad), or else the installed swigen wheel ships one (its
one config per op, sm_90a), the op launches that kernel (swigen_rt.ops' launch
path: offs [E] int32 passed by its device address); otherwise it runs
the reference path: torch._grouped_mm for the GEMMs and torch
elementwise ops in fp32 for SwiGLU and its derivative. moe_path says
which, and why. With no inference package registered, moe_gateup (so
the layer under no_grad) runs the training kernel and drops de
(moe_plan.TRAIN_FOR: SwiGLUMLP's rule, modes.forward_kernel); the
inference package keeps priority. An op launches a kernel where
kinds_gen.OPS (SCORE_OPS, with a score) has its row (every one has). A
registered package an op cannot launch is refused with
NotImplementedError rather than ignored.
The layer's weight gradients (and the down projection's) run
swigen::moe_wgrad: its kernel where a moe_wgrad package is registered
(not yet run on a GPU; no wheel ships one), else torch._grouped_mm; dx
and the down projection's input gradient are torch._grouped_mm. No
op reads offs on the host: they capture in CUDA graphs. Each op has a
fake kernel (shapes from x and W alone) and the gate-up and down ops an
autograd formula (the reference's, whichever path ran forward); the
layer's own autograd.Function runs moe_dswiglu_out in its backward.
torch._grouped_mm reads bf16 on sm_90 (other dtypes go to a fallback that
copies offs to the host), so the ops take bf16 only.
"""

# No `from __future__ import annotations`: torch.library.custom_op reads the
# ops' type hints to build their schemas, so they stay evaluated objects.
import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from . import moe_plan, opspec
from . import ops as _ops

__all__ = ["SwiGLUExperts", "swiglu_experts", "moe_path", "convert_experts", "convert_experts_state_dict"]

_DTYPES = (torch.bfloat16,)


def _check(op: str, x_shape: Tuple[int, ...], W_shape: Tuple[int, ...], offs: Tensor, tensors: Dict[str, Tensor],
           W_down: Optional[Tensor] = None) -> moe_plan.MoeShape:
    """Sizes (moe_plan.check_shapes on x's and W's shapes), dtypes and
    devices (tensors' first is x's place) of one call; ValueError naming
    the tensor and the rule."""
    s = moe_plan.check_shapes(op, x_shape, W_shape, tuple(offs.shape), None if W_down is None else tuple(W_down.shape))
    _check_tensors(op, offs, tensors)
    return s


def _check_tensors(op: str, offs: Tensor, tensors: Dict[str, Tensor]) -> None:
    """offs int32 and every tensor bf16, all on tensors' first's device;
    ValueError naming the tensor and the rule."""
    x = next(iter(tensors.values()))
    if offs.dtype != torch.int32:
        raise ValueError("swigen::%s: offs is %s: want int32 (cumulative ends, torch._grouped_mm's)" % (op, offs.dtype))
    if offs.device != x.device:
        raise ValueError("swigen::%s: offs on %s, x on %s: want one device" % (op, offs.device, x.device))
    for n, t in tensors.items():
        if t.dtype not in _DTYPES:
            raise ValueError("swigen::%s: %s is %s: want bfloat16 (torch._grouped_mm's fast path reads bf16)"
                             % (op, n, t.dtype))
        if t.device != x.device:
            raise ValueError("swigen::%s: %s on %s, x on %s: want one device" % (op, n, t.device, x.device))


def _check_gateup(op: str, x: Tensor, W: Tensor, offs: Tensor) -> moe_plan.MoeShape:
    return _check(op, tuple(x.shape), tuple(W.shape), offs, {"x": x, "W": W})


_paths: Dict[Tuple[str, str, str, int], Tuple[str, str, str]] = {}
_PATHS_LIMIT = 256


def _plan(op: str, device: torch.device, dtype: torch.dtype) -> Tuple[str, str, str]:
    """moe_plan.registered_plan of op on device and dtype: (path, why, the
    op whose kernel runs). Cached per registry generation: a call pays
    one dict lookup."""
    arch = _ops.arch_of(device) if device.type == "cuda" else "cpu"
    dt = str(dtype).replace("torch.", "")
    key = (op, arch, dt, opspec.REGISTRY.generation)
    got = _paths.get(key)
    if got is None:
        got = moe_plan.registered_plan(op, arch, dt)
        if len(_paths) >= _PATHS_LIMIT:
            _paths.clear()
        _paths[key] = got
    return got


def moe_path(op: str, device: torch.device, dtype: torch.dtype = torch.bfloat16) -> Tuple[str, str]:
    """(path, why) of a grouped op (moe_plan.GROUPED_KINDS; an op with a
    score: moe_plan.SCORE_OP's, e.g. moe_gateup_score) on device:
    moe_plan.KERNEL naming the package whose kernel it launches (for
    moe_gateup with no inference package, the training one's, de dropped:
    why starts with moe_plan.TRAIN_DROP_DE), moe_plan.REFUSED where a
    package it would launch cannot be launched (the op raises), or
    moe_plan.REFERENCE naming the kind it would run."""
    path, why, _ = _plan(op, device, dtype)
    return path, why


def _kernel(op: str, T: int, args: Tuple[Tensor, ...]) -> Optional[List[Tensor]]:
    """The op's outputs from a registered (or the wheel's) kernel (moe_path
    KERNEL: its own, or its moe_plan.TRAIN_FOR op's with the extra outputs
    dropped), or None where the reference runs: no package of its kind is
    registered and no wheel ships one,
    the inputs are not on a GPU, or T = 0 (nothing to launch: the
    reference's empty outputs). Raises NotImplementedError where a
    registered package cannot be launched: running the reference then
    would hide that the kernel never ran. The launch is swigen_rt.ops'
    (its checks, its cache of prepared launches, torch's current
    stream): offs is passed by address, never read on the host."""
    x = args[0]
    if not x.is_cuda:
        return None
    path, why, run = _plan(op, x.device, x.dtype)
    if path == moe_plan.REFUSED:
        raise NotImplementedError("swigen::%s: %s (unregister the package to run the torch._grouped_mm reference)"
                                  % (op, why))
    if path != moe_plan.KERNEL or T == 0:
        return None
    outs = _ops._run(run, args)
    # run is op or its moe_plan.TRAIN_FOR op (its outputs op's, then de):
    # the extras are dropped here, freed as the op returns.
    return outs[:len(opspec.OPS[op].outputs)]


def _gmm(a: Tensor, b: Tensor, offs: Tensor, shape: Tuple[int, ...]) -> Tensor:
    """torch._grouped_mm(a, b, offs); zeros of shape where the contraction
    or the rows are empty (T = 0: torch._grouped_mm rejects a zero-length
    operand)."""
    if a.numel() == 0 or b.numel() == 0:
        return a.new_zeros(shape)
    return torch._grouped_mm(a, b, offs=offs)


def _gateup(x: Tensor, W: Tensor, offs: Tensor) -> Tensor:
    """de = [x_e @ up_e^T | x_e @ gate_e^T] per expert: [T, 2I]."""
    return _gmm(x, W.transpose(1, 2), offs, (x.shape[0], W.shape[1]))


def _f32(t: Tensor) -> Tensor:
    """A new fp32 copy of t (t.float() returns t itself where t is fp32),
    for the reference's in-place arithmetic."""
    return t.to(torch.float32, copy=True)


def _swiglu(de: Tensor, score: Optional[Tensor] = None) -> Tensor:
    """out = left * silu(gate) in fp32 (times each row's score where
    given), cast to de's dtype. In place on its own fp32 copies (at most
    two [T, I] fp32 live): the same operations, so the same bits."""
    i = de.shape[1] // 2
    g = F.silu(_f32(de[:, i:]), inplace=True)
    h = _f32(de[:, :i]).mul_(g)
    del g
    if score is not None:
        h.mul_(score[:, None])
    return h.to(de.dtype)


def _dswiglu(dout: Tensor, de: Tensor) -> Tuple[Tensor, Tensor]:
    """(grad_de, out) of out = left * silu(gate), in fp32, cast to de's
    dtype: grad_de = [d*f | d*left*s*(1 + gate*(1 - s))], s = sigmoid(gate),
    f = gate*s. Each half is written into grad_de as it is done and the
    fp32 temporaries are reused in place (at most five [T, I] fp32 live);
    every product and sum is the textbook formula's, operands commuted at
    most, so the bits are its."""
    i = de.shape[1] // 2
    grad = torch.empty_like(de)
    gate = de[:, i:].float()
    s = torch.sigmoid(gate)
    f = gate * s
    d = _f32(dout)
    grad[:, :i] = d * f
    t = (1 - s).mul_(gate).add_(1)  # 1 + gate * (1 - s)
    del gate
    left = _f32(de[:, :i])
    grad[:, i:] = d.mul_(left).mul_(s).mul_(t)  # ((d * left) * s) * t
    del d, s, t
    return grad, left.mul_(f).to(de.dtype)


def _dswiglu_score(dout: Tensor, de: Tensor, score: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """(grad_de, out, dscore) of out = score * left * silu(gate): the
    dSwiGLU of score*dout, the scaled out (de's dtype) and dscore [T] =
    sum_i h*dout (h unscaled), fp32 throughout; in place as _dswiglu (at
    most seven [T, I] fp32 live), the same bits as the textbook formula."""
    i = de.shape[1] // 2
    grad = torch.empty_like(de)
    gate = de[:, i:].float()
    s = torch.sigmoid(gate)
    f = gate * s
    left = de[:, :i].float()
    h = left * f
    d = _f32(dout)
    dscore = (h * d).sum(1)
    sc = score.float()[:, None]
    out = h.mul_(sc).to(de.dtype)
    del h
    ds = d.mul_(sc)
    grad[:, :i] = ds * f
    del f
    t = (1 - s).mul_(gate).add_(1)  # 1 + gate * (1 - s)
    del gate
    grad[:, i:] = ds.mul_(left).mul_(s).mul_(t)  # ((ds * left) * s) * t
    return grad, out, dscore


def _check_score(op: str, score: Optional[Tensor], x: Tensor, T: int) -> None:
    """moe_plan.check_score on score's shape, dtype and device (None: no score)."""
    if score is not None:
        moe_plan.check_score(op, T, tuple(score.shape), str(score.dtype).replace("torch.", ""),
                             str(score.device), str(x.device))


def _sum_score_partials(part: Tensor) -> Tensor:
    """dscore [T] float32 from a _score backward kernel's dscore_part [T,
    cols] float32: each row's partials added in column order from +0.0,
    one float32 add per column on the device (moe_plan.sum_score_partials
    and Go's launch.SumScorePartials: the same order and rounding, so the
    same bits; no host read of part, so it captures in CUDA graphs)."""
    out = part.new_zeros((part.shape[0],))
    for j in range(part.shape[1]):
        out.add_(part[:, j])
    return out


def _gateup_kernel(op: str, T: int, x: Tensor, W: Tensor, offs: Tensor,
                   score: Optional[Tensor]) -> Optional[List[Tensor]]:
    """_kernel of op, or with a score of its moe_plan.SCORE_OP op (the
    _score kernel, score its last input)."""
    if score is None:
        return _kernel(op, T, (x, W, offs))
    return _kernel(moe_plan.SCORE_OP[op], T, (x, W, offs, score))


@torch.library.custom_op("swigen::moe_gateup", mutates_args=())
def moe_gateup(x: Tensor, W: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tensor:
    """out = up(x) * silu(gate(x)) per expert (times each row's score where given), [T, I]."""
    s = _check_gateup("moe_gateup", x, W, offs)
    _check_score("moe_gateup", score, x, s.T)
    got = _gateup_kernel("moe_gateup", s.T, x, W, offs, score)
    if got is not None:
        return got[0]
    return _swiglu(_gateup(x, W, offs), score)


@torch.library.custom_op("swigen::moe_gateup_train", mutates_args=())
def moe_gateup_train(x: Tensor, W: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """(out [T, I], de [T, 2I]): de the pre-activations [up | gate] the
    backward reads (unscaled); out times each row's score where given."""
    s = _check_gateup("moe_gateup_train", x, W, offs)
    _check_score("moe_gateup_train", score, x, s.T)
    got = _gateup_kernel("moe_gateup_train", s.T, x, W, offs, score)
    if got is not None:
        return got[0], got[1]
    de = _gateup(x, W, offs)
    return _swiglu(de, score), de


@torch.library.custom_op("swigen::moe_dswiglu_out", mutates_args=())
def moe_dswiglu_out(dy: Tensor, W_down: Tensor, de: Tensor, offs: Tensor) -> Tuple[Tensor, Tensor]:
    """(grad_de [T, 2I], out [T, I]): dout = dy_e @ W_down_e per expert,
    then dSwiGLU against de; out recomputed (for dW_down)."""
    s = _check_bwd("moe_dswiglu_out", dy, W_down, de, offs)
    got = _kernel("moe_dswiglu_out", s.T, (dy, W_down, de, offs))
    if got is not None:
        return got[0], got[1]
    dout = _gmm(dy, W_down, offs, (dy.shape[0], W_down.shape[2]))
    return _dswiglu(dout, de)


@torch.library.custom_op("swigen::moe_dswiglu_out_score", mutates_args=())
def moe_dswiglu_out_score(dy: Tensor, W_down: Tensor, de: Tensor, offs: Tensor,
                          score: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """(grad_de [T, 2I], out [T, I], dscore [T] float32) of the layer
    with a router score: dout = dy_e @ W_down_e per expert, grad_de the
    dSwiGLU of score*dout, out = score*h recomputed (for dW_down), dscore
    = sum_i h*dout: a registered moe_bwd_dswiglu --store-out --score
    kernel (its partials summed by _sum_score_partials), else the
    reference."""
    s = _check_bwd("moe_dswiglu_out_score", dy, W_down, de, offs)
    _check_score("moe_dswiglu_out_score", score, dy, s.T)
    got = _kernel("moe_dswiglu_out_score", s.T, (dy, W_down, de, offs, score))
    if got is not None:
        return got[0], got[1], _sum_score_partials(got[2])
    dout = _gmm(dy, W_down, offs, (dy.shape[0], W_down.shape[2]))
    return _dswiglu_score(dout, de, score)


@torch.library.custom_op("swigen::moe_down", mutates_args=())
def moe_down(out: Tensor, W_down: Tensor, offs: Tensor) -> Tensor:
    """y = out_e @ W_down_e^T per expert, [T, H]: a registered moe_gemm
    kernel (W_down [E, H, I] its K-major B, offs by address), else
    torch._grouped_mm."""
    T = _check_down("moe_down", out, W_down, offs)
    got = _kernel("moe_down", T, (out, W_down, offs))
    if got is not None:
        return got[0]
    return _gmm(out, W_down.transpose(1, 2), offs, (out.shape[0], W_down.shape[1]))


@torch.library.custom_op("swigen::moe_wgrad", mutates_args=())
def moe_wgrad(A: Tensor, B: Tensor, offs: Tensor) -> Tensor:
    """dW [E, N, K] = A_e^T @ B_e per expert over its rows (A [T, N], B
    [T, K]), zeros for an expert with no rows: a registered moe_wgrad
    kernel (offs by address), else torch._grouped_mm."""
    T = _check_wgrad("moe_wgrad", A, B, offs)
    got = _kernel("moe_wgrad", T, (A, B, offs))
    if got is not None:
        return got[0]
    return _wgrad(A, B, offs)


def _check_wgrad(op: str, A: Tensor, B: Tensor, offs: Tensor) -> int:
    """T of one moe_wgrad call (moe_plan.check_wgrad_shapes, then dtypes and devices)."""
    T, _, _, _ = moe_plan.check_wgrad_shapes(op, tuple(A.shape), tuple(B.shape), tuple(offs.shape))
    _check_tensors(op, offs, {"A": A, "B": B})
    return T


def _w_of(op: str, W_down: Tensor) -> Tuple[int, ...]:
    """The gate-up weight's shape [E, 2I, H] that W_down [E, H, I] pairs with."""
    if W_down.dim() != 3:
        raise ValueError("swigen::%s: W_down is %s: want [E, H, I]" % (op, list(W_down.shape)))
    E, H, I = W_down.shape  # noqa: E741
    return (E, 2 * I, H)


def _check_bwd(op: str, dy: Tensor, W_down: Tensor, de: Tensor, offs: Tensor) -> moe_plan.MoeShape:
    s = _check(op, tuple(dy.shape), _w_of(op, W_down), offs, {"dy": dy, "W_down": W_down, "de": de}, W_down)
    if list(de.shape) != [s.T, 2 * s.I]:
        raise ValueError("swigen::%s: de is %s: want [T, 2I] = %s" % (op, list(de.shape), [s.T, 2 * s.I]))
    return s


def _check_down(op: str, out: Tensor, W_down: Tensor, offs: Tensor) -> int:
    w = _w_of(op, W_down)
    if out.dim() != 2 or out.shape[1] != w[1] // 2:
        raise ValueError("swigen::%s: out is %s, W_down %s: want out [T, I] with W_down [E, H, I]"
                         % (op, list(out.shape), list(W_down.shape)))
    # out [T, I] stands where x [T, H] does in the shared rule: its T, W_down's H.
    return _check(op, (out.shape[0], w[2]), w, offs, {"out": out, "W_down": W_down}, W_down).T


@moe_gateup.register_fake
def _(x: Tensor, W: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tensor:
    s = _check_gateup("moe_gateup", x, W, offs)
    _check_score("moe_gateup", score, x, s.T)
    return x.new_empty((s.T, s.I))


@moe_gateup_train.register_fake
def _(x: Tensor, W: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    s = _check_gateup("moe_gateup_train", x, W, offs)
    _check_score("moe_gateup_train", score, x, s.T)
    return x.new_empty((s.T, s.I)), x.new_empty((s.T, 2 * s.I))


@moe_dswiglu_out_score.register_fake
def _(dy: Tensor, W_down: Tensor, de: Tensor, offs: Tensor, score: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    s = _check_bwd("moe_dswiglu_out_score", dy, W_down, de, offs)
    _check_score("moe_dswiglu_out_score", score, dy, s.T)
    return de.new_empty(de.shape), de.new_empty((s.T, s.I)), score.new_empty((s.T,))


@moe_dswiglu_out.register_fake
def _(dy: Tensor, W_down: Tensor, de: Tensor, offs: Tensor) -> Tuple[Tensor, Tensor]:
    _check_bwd("moe_dswiglu_out", dy, W_down, de, offs)
    return de.new_empty(de.shape), de.new_empty((de.shape[0], de.shape[1] // 2))


@moe_down.register_fake
def _(out: Tensor, W_down: Tensor, offs: Tensor) -> Tensor:
    _check_down("moe_down", out, W_down, offs)
    return out.new_empty((out.shape[0], W_down.shape[1]))


@moe_wgrad.register_fake
def _(A: Tensor, B: Tensor, offs: Tensor) -> Tensor:
    _check_wgrad("moe_wgrad", A, B, offs)
    return A.new_empty((offs.shape[0], A.shape[1], B.shape[1]))


def _wgrad(g: Tensor, a: Tensor, offs: Tensor) -> Tensor:
    """Per expert g_e^T @ a_e: [E, g's N, a's N] (torch._grouped_mm with
    the groups along the contraction; an empty expert's slice is zero)."""
    return _gmm(g.t(), a, offs, (offs.shape[0], g.shape[1], a.shape[1]))


def _gateup_grads(x: Tensor, W: Tensor, offs: Tensor, grad_de: Tensor) -> Tuple[Tensor, Tensor]:
    """(dx, dW) of de = x_e @ W_e^T (dW on a registered moe_wgrad kernel,
    else torch._grouped_mm: swigen::moe_wgrad)."""
    return _gmm(grad_de, W, offs, tuple(x.shape)), moe_wgrad(grad_de, x, offs)


def _gateup_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    ctx.save_for_backward(*inputs)


def _dswiglu_graph(dout: Tensor, de: Tensor, score: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
    """(grad_de, dscore) of _dswiglu[_score] out of place: for a backward
    that is itself differentiated (create_graph), where autograd saves the
    fp32 temporaries that _dswiglu[_score] write over. The same operations
    in the same order, so the same bits."""
    i = de.shape[1] // 2
    left, gate, d = de[:, :i].float(), de[:, i:].float(), dout.float()
    s = torch.sigmoid(gate)
    f = gate * s
    ds = d if score is None else d * score.float()[:, None]
    grad = torch.cat([ds * f, ds * left * s * (1 + gate * (1 - s))], 1).to(de.dtype)
    return grad, None if score is None else (left * f * d).sum(1).to(score.dtype)


def _score_grads(g_out: Optional[Tensor], de: Tensor, score: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
    """(grad_de, dscore) of out = [score *] left * silu(gate) for g_out
    (None: no gradient reached out); dscore None without a score."""
    if g_out is None:
        return torch.zeros_like(de), None if score is None else torch.zeros_like(score)
    if torch.is_grad_enabled():  # create_graph: this backward is recorded
        return _dswiglu_graph(g_out.contiguous(), de, score)
    if score is None:
        return _dswiglu(g_out.contiguous(), de)[0], None
    grad_de, _, dscore = _dswiglu_score(g_out.contiguous(), de, score)
    return grad_de, dscore.to(score.dtype)


def _gateup_bwd(ctx: Any, g_out: Tensor) -> Tuple[Optional[Tensor], ...]:
    # The inference op keeps no de: recomputed here (the layer trains with moe_gateup_train).
    x, W, offs, score = ctx.saved_tensors
    grad_de, dscore = _score_grads(g_out, _gateup(x, W, offs), score)
    return _gateup_grads(x, W, offs, grad_de) + (None, dscore)


def _gateup_train_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    ctx.save_for_backward(inputs[0], inputs[1], inputs[2], output[1], inputs[3])


def _gateup_train_bwd(ctx: Any, g_out: Optional[Tensor], g_de: Optional[Tensor]) -> Tuple[Optional[Tensor], ...]:
    x, W, offs, de, score = ctx.saved_tensors
    _release_saved(ctx)
    grad_de, dscore = _score_grads(g_out, de, score)
    del de  # autograd's reference released: freed here unless the caller holds de
    if g_de is not None:
        grad_de.add_(g_de)  # grad_de is _score_grads' own buffer
    return _gateup_grads(x, W, offs, grad_de) + (None, dscore)


def _down_bwd(ctx: Any, dy: Tensor) -> Tuple[Optional[Tensor], ...]:
    out, W_down, offs = ctx.saved_tensors
    # Autograd may hand in an expanded gradient (stride 0, e.g. of a sum);
    # torch._grouped_mm needs real strides.
    dy = dy.contiguous()
    return _gmm(dy, W_down, offs, tuple(out.shape)), moe_wgrad(dy, out, offs), None


torch.library.register_autograd("swigen::moe_gateup", _gateup_bwd, setup_context=_gateup_setup)
torch.library.register_autograd("swigen::moe_gateup_train", _gateup_train_bwd, setup_context=_gateup_train_setup)
torch.library.register_autograd("swigen::moe_down", _down_bwd, setup_context=_gateup_setup)


def _release_saved(ctx: Any) -> None:
    """Drops autograd's references to ctx's saved tensors now instead of
    when the backward returns (ctx.maybe_clear_saved_tensors, a no-op where
    autograd keeps the graph: retain_graph, which create_graph implies
    unless retain_graph=False is passed), so a saved intermediate goes with
    the backward's last local reference to it: de is not held beside the
    gate-up gradients. A backward that raises after this (an out-of-memory
    in a weight gradient) cannot be run again on the same graph without
    retain_graph: torch reports a second backward, as it does for every
    node that ran before the failing one. Left to torch where it has no
    such method, and under torch.compile (AOT autograd frees its own saved
    tensors)."""
    if torch.compiler.is_compiling():
        return
    clear = getattr(ctx, "maybe_clear_saved_tensors", None)
    if clear is not None:
        clear()


class _ExpertsFunction(torch.autograd.Function):
    """The layer's step: the forward keeps x, the weights, offs, de and
    the score (not out: moe_dswiglu_out[_score] recomputes it for
    dW_down). The backward frees de once the dSwiGLU has read it and runs
    dW_down before or after dx and dW, whichever peak is lower
    (moe_plan.dw_down_order; the bytes: moe_plan.step_bytes)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, W: Tensor, W_down: Tensor, offs: Tensor,  # type: ignore[override]
                score: Optional[Tensor]) -> Tensor:
        out, de = moe_gateup_train(x, W, offs, score)
        y = moe_down(out, W_down, offs)
        ctx.save_for_backward(x, W, W_down, offs, de, score)
        return y

    @staticmethod
    def backward(ctx: Any, dy: Tensor) -> Tuple[Optional[Tensor], ...]:  # type: ignore[override]
        x, W, W_down, offs, de, score = ctx.saved_tensors
        _release_saved(ctx)
        dy = dy.contiguous()
        dscore: Optional[Tensor] = None
        if score is None:
            grad_de, out = moe_dswiglu_out(dy, W_down, de, offs)
        else:
            grad_de, out, dscore = moe_dswiglu_out_score(dy, W_down, de, offs, score)
        del de  # its last reference where autograd keeps no graph: freed here
        E, H, I = W_down.shape  # noqa: E741
        if moe_plan.dw_down_order(x.shape[0], H, I, E) == moe_plan.DW_DOWN_LAST:
            dx, dW = _gateup_grads(x, W, offs, grad_de)
            del grad_de
            dW_down = moe_wgrad(dy, out, offs)
        else:
            dW_down = moe_wgrad(dy, out, offs)
            del out
            dx, dW = _gateup_grads(x, W, offs, grad_de)
        return dx, dW, dW_down, None, dscore


def swiglu_experts(x: Tensor, W: Tensor, W_down: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tensor:
    """y [T, H] = per expert e, down_e(score * up_e(x_e) * silu(gate_e(x_e)))
    for x [T, H] sorted by expert, W [E, 2I, H] ([up ; gate]), W_down
    [E, H, I], offs [E] int32 cumulative ends and score [T] float32 (each
    row's router weight; None: 1); differentiable in x, W, W_down and
    score. With a gradient to compute, the training ops (de kept, out
    recomputed in the backward); otherwise the inference op."""
    if not x.is_contiguous():
        x = x.contiguous()
    if score is not None and not score.is_contiguous():
        score = score.contiguous()
    grad = torch.is_grad_enabled() and (x.requires_grad or W.requires_grad or W_down.requires_grad
                                        or (score is not None and score.requires_grad))
    if grad:
        y: Tensor = _ExpertsFunction.apply(x, W, W_down, offs, score)
        return y
    return moe_down(moe_gateup(x, W, offs, score), W_down, offs)


def convert_experts(gates: List[Tensor], ups: List[Tensor], downs: List[Tensor]) -> Tuple[Tensor, Tensor]:
    """(W [E, 2I, H], W_down [E, H, I]) from per-expert gate_proj, up_proj
    ([I, H] each) and down_proj ([H, I]) weights; each expert's rows as
    moe_plan.gate_up_rows says ([up ; gate])."""
    if not (len(gates) == len(ups) == len(downs)) or not gates:
        raise ValueError("convert_experts: %d gate, %d up, %d down weights: want one of each per expert, E >= 1"
                         % (len(gates), len(ups), len(downs)))
    i, h = gates[0].shape
    for e, (g, u, d) in enumerate(zip(gates, ups, downs)):
        if list(g.shape) != [i, h] or list(u.shape) != [i, h] or list(d.shape) != [h, i]:
            raise ValueError("convert_experts: expert %d: gate %s, up %s, down %s: want [I, H], [I, H], [H, I] = "
                             "[%d, %d], [%d, %d], [%d, %d] (expert 0's)" % (e, list(g.shape), list(u.shape),
                                                                            list(d.shape), i, h, i, h, h, i))
    W = torch.stack([torch.cat([u, g], 0) for g, u in zip(gates, ups)]).contiguous()
    return W, torch.stack(list(downs)).contiguous()


def convert_experts_state_dict(sd: Mapping[str, Tensor], num_experts: int, prefix: str = "") -> Dict[str, Tensor]:
    """A SwiGLUExperts state dict (W, W_down) from a Hugging Face MoE
    block's per-expert weights (moe_plan.hf_expert_keys)."""
    keys = [moe_plan.hf_expert_keys(prefix, e) for e in range(num_experts)]
    missing = [k for ks in keys for k in ks if k not in sd]
    if missing:
        raise ValueError("convert_experts_state_dict: %d keys missing, first %s (prefix %r, E=%d)"
                         % (len(missing), missing[0], prefix, num_experts))
    W, W_down = convert_experts([sd[g] for g, _, _ in keys], [sd[u] for _, u, _ in keys], [sd[d] for _, _, d in keys])
    return {"W": W, "W_down": W_down}


class SwiGLUExperts(nn.Module):
    """E SwiGLU experts of hidden H and intermediate I over tokens sorted
    by expert: forward(x_sorted [T, H], offs [E] int32 cumulative ends).

    W [E, 2I, H] holds each expert's [up ; gate], W_down [E, H, I] (load a
    checkpoint with load_hf_experts or convert_experts_state_dict). H and
    I must be multiples of 8; bf16. Runs torch._grouped_mm until a grouped
    kernel package is registered or the swigen wheel is installed
    (moe_path says which path runs); without a gradient the inference
    kernel, else the training one, de dropped."""

    def __init__(self, num_experts: int, hidden: int, intermediate: int, *, device: Any = None,
                 dtype: Any = torch.bfloat16) -> None:
        super().__init__()
        self.num_experts, self.hidden, self.intermediate = num_experts, hidden, intermediate
        self.W = nn.Parameter(torch.empty(num_experts, 2 * intermediate, hidden, device=device, dtype=dtype))
        self.W_down = nn.Parameter(torch.empty(num_experts, hidden, intermediate, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """nn.Linear's default initialisation of each expert's projections."""
        with torch.no_grad():
            for w in (self.W, self.W_down):
                bound = 1.0 / math.sqrt(w.shape[2])  # kaiming_uniform(a=sqrt(5)) of a [out, in] weight
                w.uniform_(-bound, bound)

    @torch.no_grad()
    def load_hf_experts(self, sd: Mapping[str, Tensor], prefix: str = "") -> None:
        """Copies a Hugging Face MoE block's per-expert weights in."""
        got = convert_experts_state_dict(sd, self.num_experts, prefix)
        self.W.copy_(got["W"])
        self.W_down.copy_(got["W_down"])

    def forward(self, x_sorted: Tensor, offs: Tensor, score: Optional[Tensor] = None) -> Tensor:
        """y [T, H] for x_sorted [T, H], offs [E] and, optionally, score [T]
        float32: each row's router weight, applied before the down
        projection (its gradient flows back to the router)."""
        return swiglu_experts(x_sorted, self.W, self.W_down, offs, score)

    def extra_repr(self) -> str:
        return "num_experts=%d, hidden=%d, intermediate=%d" % (self.num_experts, self.hidden, self.intermediate)

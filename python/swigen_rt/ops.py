"""torch.ops.swigen.*: the registered kernels as PyTorch custom ops (needs torch).

Importing this module defines one op (torch.library.Library) per opspec.OPS
entry but the grouped kinds' (swigen_rt.moe defines those), each with a register_fake that computes the outputs' shapes from
the manifest (so torch.compile sees no graph break). The op's kernel is
opspec.select's; fwd_gateup and bwd_dswiglu follow the kernel's dispatch
plan where its package has one (the unfused path: torch's matmul, cuBLAS,
into a torch-allocated intermediate, then the elementwise kernel). Every launch
is on torch's current stream, allocates only through torch and never
synchronizes, so the ops work on side streams, from other threads and in
CUDA graphs. Bad inputs raise ValueError naming the tensor and the rule.
Every op registers its backward (torch.library.register_autograd) in fp32
torch ops, so each one differentiates on its own; SwiGLUMLP keeps its own
autograd.Function, which runs swigen's bwd kernel instead.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch
from torch import Tensor

from . import opspec
from .dispatch import UNFUSED
from .elementwise import DSWIGLU, SWIGLU
from .kernel import Launcher
from .manifest import ShapeError
from .package import Entry
from .tensors import TMA_ALIGN, check_tensors

__all__ = ["arch_of", "path_of", "gemm", "fwd_gateup", "fwd_gateup_train", "fwd_down", "fwd_down_residual",
           "bwd_dswiglu", "bwd_dswiglu_out", "bwd_dswiglu_out_over_de"]

_arch_lock = threading.Lock()
_arch_cache: Dict[int, str] = {}


def arch_of(device: torch.device) -> str:
    """The swigen arch of a CUDA device (sm_90a for compute capability 9.0)."""
    idx = device.index if device.index is not None else torch.cuda.current_device()
    with _arch_lock:
        a = _arch_cache.get(idx)
        if a is None:
            major, minor = torch.cuda.get_device_capability(idx)
            a = opspec.ARCH_OF_CC.get((major, minor), "sm_%d%d" % (major, minor))
            _arch_cache[idx] = a
    return a


def _select(op: str, inputs: Dict[str, Tensor]) -> Tuple[Entry, Dict[str, int]]:
    for n, t in inputs.items():
        if not isinstance(t, Tensor):
            raise ValueError("swigen::%s: %s is a %s: want a tensor" % (op, n, type(t).__name__))
        opspec.check_input(op, n, t)
    first = inputs[opspec.OPS[op].inputs[0]]
    dtype = str(first.dtype).replace("torch.", "")
    return opspec.select(op, arch_of(first.device), dtype, {n: tuple(t.shape) for n, t in inputs.items()})


def path_of(op: str, *args: Tensor) -> Tuple[str, str]:
    """The path (fused or unfused) and why, that op takes on these inputs."""
    spec = opspec.OPS[op]
    e, sizes = _select(op, dict(zip(spec.inputs, args)))
    if e.dispatch is None:
        return "fused", "fused: the package has no unfused path for this kernel"
    return e.dispatch.plan.choose(sizes["M"], sizes["K"], sizes["I"])


@dataclass(frozen=True)
class _Call:
    """What a call with given input shapes, dtypes and devices resolved to:
    its kernel, sizes, output shapes, dtype and device, whether the
    dispatch plan takes the fused kernel there, the fused kernel's
    Launcher for the op's buffers (inputs then outputs), and each output's
    dtype where it is not the first input's (opspec.OpSpec.fp32: None
    elsewhere). Inputs of another
    stride or address still get every check (the fast path checks
    contiguity and alignment, and leaves any failure to check_tensors to
    name)."""

    entry: Entry
    sizes: Dict[str, int]
    outputs: Tuple[Tuple[int, ...], ...]
    dtype: torch.dtype
    device: torch.device
    index: int
    fused: bool
    launcher: Launcher
    out_dtypes: Tuple[Optional[torch.dtype], ...]


_calls_lock = threading.Lock()
_calls: Dict[Tuple[object, ...], _Call] = {}
_calls_generation = -1
_CALLS_LIMIT = 4096

# A scan of a call's inputs: its cache key and the inputs' addresses.
_Scan = Tuple[Optional[Tuple[object, ...]], Optional[List[int]]]


def _scan(op: str, args: Tuple[Tensor, ...], grad: Optional[bool]) -> Optional[_Scan]:
    """One pass over the inputs: the call's cache key (op, then each input's
    shape, dtype and device; None when an input is not a tensor) and the
    inputs' addresses (None where one is not contiguous or not 16-byte
    aligned: check_tensors then names it). grad is None from the
    dispatcher's kernel; on the direct path it is whether grad mode is on,
    and the scan is None where the call must take the dispatcher instead:
    an input that is not a plain tensor (a subclass such as FakeTensor or
    DTensor, or not a tensor) or one that needs grad."""
    key: List[object] = [op]
    ptrs: Optional[List[int]] = []
    for t in args:
        if grad is not None:
            if type(t) not in _PLAIN or (grad and t.requires_grad):
                return None
        elif not isinstance(t, Tensor):
            return None, None
        key += (t.shape, t.dtype, t.device)
        if ptrs is not None:
            try:
                p = t.data_ptr()
            except RuntimeError:  # no storage (sparse, meta): check_input names it
                ptrs = None
                continue
            if p % TMA_ALIGN or not t.is_contiguous():
                ptrs = None
            else:
                ptrs.append(p)
    return tuple(key), ptrs


def _check_fp32(spec: opspec.OpSpec, inputs: Dict[str, Tensor]) -> None:
    """Refuses an input the kernel reads as float32 (OpSpec.fp32: the
    router score) in another dtype: no tensor map names its dtype, so
    check_tensors cannot."""
    for n in spec.fp32:
        t = inputs.get(n)
        if t is not None and t.dtype != torch.float32:
            raise ShapeError("swigen::%s: tensor %s is %s: the kernel reads float32" % (spec.name, n, t.dtype))


def _resolve(op: str, inputs: Dict[str, Tensor]) -> _Call:
    e, sizes = _select(op, inputs)
    m = e.kernel.manifest
    spec = opspec.OPS[op]
    _check_fp32(spec, inputs)
    first = inputs[spec.inputs[0]]
    outputs = opspec.output_shapes(m, spec.outputs, sizes)
    out_dtypes = tuple(torch.float32 if n in spec.fp32 else None for n in spec.outputs)
    # Every rule on these inputs once (device, dtype, shape, strides,
    # alignment); calls with the same key then check only what the key
    # leaves open: strides and addresses.
    tensors = dict(inputs)
    tensors.update((n, torch.empty(s, dtype=dt or first.dtype, device=first.device))
                   for n, s, dt in zip(spec.outputs, outputs, out_dtypes))
    _, idx = check_tensors(m, tensors, sizes)
    assert idx is not None
    u = e.dispatch
    fused = u is None or u.plan.choose(sizes["M"], sizes["K"], sizes["I"])[0] != UNFUSED
    launcher = e.kernel.launcher(idx, tuple(sorted(sizes.items())), spec.inputs + spec.outputs)
    return _Call(entry=e, sizes=sizes, outputs=outputs, dtype=first.dtype, device=first.device, index=idx,
                 fused=fused, launcher=launcher, out_dtypes=out_dtypes)


def _cached_call(op: str, args: Tuple[Tensor, ...], key: Optional[Tuple[object, ...]]) -> _Call:
    global _calls_generation
    gen = opspec.REGISTRY.generation
    c = _calls.get(key) if key is not None and _calls_generation == gen else None
    if c is None:
        c = _resolve(op, dict(zip(opspec.OPS[op].inputs, args)))
        if key is not None:
            with _calls_lock:
                if _calls_generation != gen:
                    _calls.clear()
                    _calls_generation = gen
                if len(_calls) >= _CALLS_LIMIT:
                    del _calls[next(iter(_calls))]
                _calls[key] = c
    return c


def _run(op: str, args: Tuple[Tensor, ...], scan: Optional[_Scan] = None,
         given: Optional[Dict[int, Tensor]] = None) -> List[Tensor]:
    """The op on its inputs (in the spec's order): its outputs. scan is
    the direct path's _scan of args (None: scan them here). given: outputs
    the caller supplies by index (bwd_dswiglu_out_over_de's grad_de = de),
    checked like the op's own; the rest are allocated here."""
    if scan is None:
        scan = _scan(op, args, None)
        assert scan is not None  # only the direct path's scan is None
    key, ptrs = scan
    c = _cached_call(op, args, key)
    # new_empty on the first input: its dtype and device are the call's (the
    # key holds them), and it costs ~1 us less a tensor than torch.empty
    # with keyword arguments (2.5 vs 3.4 us on the H200's host).
    first = args[0]
    outs = []
    for j, (s, dt) in enumerate(zip(c.outputs, c.out_dtypes)):
        if given is not None and j in given:
            t = given[j]
        else:
            t = first.new_empty(s) if dt is None else first.new_empty(s, dtype=dt)  # contiguous
        outs.append(t)
        if ptrs is not None:
            p = t.data_ptr()
            if p % TMA_ALIGN or not t.is_contiguous() or tuple(t.shape) != s:
                ptrs = None
            else:
                ptrs.append(p)
    spec = opspec.OPS[op]
    if ptrs is None:
        tensors = dict(zip(spec.inputs, args))
        tensors.update(zip(spec.outputs, outs))
        checked, _ = check_tensors(c.entry.kernel.manifest, tensors, c.sizes)  # raises naming the tensor and rule
        ptrs = [checked.get(n, 0) for n in c.launcher.names]
    stream = _current_stream(c.index)
    if c.fused:
        c.launcher.launch(stream, ptrs)
        return outs
    named = dict(zip(spec.inputs, args))
    named.update(zip(spec.outputs, outs))
    _run_unfused(spec, c, named, dict(zip(spec.inputs + spec.outputs, ptrs)), stream)
    return outs


def _run_unfused(spec: opspec.OpSpec, c: _Call, t: Dict[str, Tensor], ptrs: Dict[str, int], stream: int) -> None:
    """The dispatch plan's unfused path: torch's matmul (cuBLAS, on the
    current stream) into a torch-allocated intermediate (or the op's own
    de), then the package's elementwise kernel. The operands have the
    fused kernel's layouts (an _bmn kernel's weight is [K, N], else
    [N, K]); ptrs are the checked buffers' addresses."""
    e, sizes, dev = c.entry, c.sizes, c.index
    u = e.dispatch
    assert u is not None
    M, I = sizes["M"], sizes["I"]
    mn = e.mn_major
    if spec.kind == "bwd_dswiglu":
        w = t["W_down"]
        dout = torch.mm(t["dy"], w if mn else w.t())
        # Each element of grad_de is written by the thread that read it from
        # de, after reading it (templates/kernelsrc/dswiglu.cu): grad_de may
        # be de itself (bwd_dswiglu_out_over_de).
        ew = [dout.data_ptr(), ptrs["de"], ptrs["grad_de"], ptrs.get("out", 0)]
        u.elementwise.launch_raw(DSWIGLU, e.dtype, M, I, ew, dev, stream)
        return
    # fwd_gateup: the inference op has no de output; the matmul writes one of torch's
    w = t["W"]
    wt = w if mn else w.t()
    de_t = t.get("de")
    if de_t is None:
        de_t = torch.mm(t["x"], wt)
    else:
        torch.mm(t["x"], wt, out=de_t)
    u.elementwise.launch_raw(SWIGLU, e.dtype, M, I, [de_t.data_ptr(), ptrs["out"]], dev, stream)


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _current_stream(device: int) -> int:
    """torch's current stream on device, as a raw handle (through torch's
    raw accessor where it has one: no Stream object per call)."""
    if _raw_stream is not None:
        return int(_raw_stream(device))
    return int(torch.cuda.current_stream(device).cuda_stream)


def _fake(op: str, inputs: Dict[str, Tensor]) -> List[Tensor]:
    spec = opspec.OPS[op]
    e, sizes = _select(op, inputs)
    first = inputs[spec.inputs[0]]
    return [first.new_empty(s, dtype=torch.float32 if n in spec.fp32 else first.dtype)
            for n, s in zip(spec.outputs, opspec.output_shapes(e.kernel.manifest, spec.outputs, sizes))]


# ---- the ops ----------------------------------------------------------------


# The ops are defined through torch.library.Library rather than
# torch.library.custom_op, whose Python wrappers (input flattening, the
# output-aliasing check) add to every eager call (about 2x the Library
# definition's dispatch in a CPU microbenchmark on torch 2.15; about 9 us
# a call either way on the H200's torch 2.11: docs/PERFORMANCE.md#pytorch).
# The schema, the CUDA kernel and the fake come from opspec.OPS, so each
# op is one entry there.

_lib = torch.library.Library("swigen", "FRAGMENT")


def _schema(spec: opspec.OpSpec) -> str:
    outs = "Tensor" if len(spec.outputs) == 1 else "(%s)" % ", ".join("Tensor" for _ in spec.outputs)
    return "%s(%s) -> %s" % (spec.name, ", ".join("Tensor " + n for n in spec.inputs), outs)


def _define(spec: opspec.OpSpec) -> "torch._ops.OpOverload":
    op, names, single = spec.name, spec.inputs, len(spec.outputs) == 1

    def impl(*args: Tensor) -> object:
        o = _run(op, args)
        return o[0] if single else tuple(o)

    def fake(*args: Tensor) -> object:
        o = _fake(op, dict(zip(names, args)))
        return o[0] if single else tuple(o)

    _lib.define(_schema(spec))
    _lib.impl(op, impl, "CUDA")
    _lib.impl(op, impl, "CPU")  # so CPU inputs get check_input's ValueError, not the dispatcher's
    torch.library.register_fake("swigen::" + op, fake, lib=_lib)
    return getattr(torch.ops.swigen, op).default


# The grouped kinds' ops are swigen_rt.moe's (their reference path and
# autograd); moe launches their kernels through _run.
_OP = {name: _define(spec) for name, spec in opspec.OPS.items() if not spec.grouped}


_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)
_modes_active = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 1)  # unknown: take the dispatcher
_function_mode = getattr(torch._C, "_is_torch_function_mode_enabled", lambda: True)
_tracing = getattr(torch._C, "_get_tracing_state", lambda: True)
_PLAIN = (Tensor, torch.nn.Parameter)


def _direct_scan(op: str, args: Tuple[Tensor, ...]) -> Optional[_Scan]:
    """The inputs' _scan where a call may skip the dispatcher and run the
    kernel itself, else None: eager (not traced by torch.compile or
    torch.jit.trace), no functorch transform, Python dispatch mode or torch
    function mode active, plain tensors, none needing autograd. The
    dispatcher's Python kernels (the CUDA impl and the autograd one) add
    6-9 us to a call on the H200's host (docs/PERFORMANCE.md#pytorch).
    The type and grad checks ride on the key's scan: a second pass over
    the inputs cost ~1 us more (3 inputs, a CPU microbenchmark)."""
    if torch.compiler.is_compiling() or _functorch_active() or _modes_active() > 0:
        return None
    if _function_mode() or _tracing() is not None:
        return None
    return _scan(op, args, torch.is_grad_enabled())


def _call(op: str, *args: Tensor) -> object:
    """The op on args: its kernel directly where _direct_scan allows, else
    through torch.ops.swigen (autograd, tracing, subclasses)."""
    scan = _direct_scan(op, args)
    if scan is None:
        return _OP[op](*args)
    o = _run(op, args, scan)
    return o[0] if len(o) == 1 else tuple(o)


def gemm(A: Tensor, B: Tensor) -> Tensor:
    """C [M,N] = A [M,K] @ B^T (B [N,K]; [K,N] for a _bmn kernel)."""
    return _call("gemm", A, B)  # type: ignore[return-value]


def fwd_gateup(x: Tensor, W: Tensor) -> Tensor:
    """out [M,I] = left * silu(gate), [left | gate] = x [M,K] @ W^T (W [2I,K])."""
    return _call("fwd_gateup", x, W)  # type: ignore[return-value]


def fwd_gateup_train(x: Tensor, W: Tensor) -> Tuple[Tensor, Tensor]:
    """(out [M,I], de [M,2I]): fwd_gateup that also stores de (training)."""
    return _call("fwd_gateup_train", x, W)  # type: ignore[return-value]


def fwd_down(out: Tensor, W_down: Tensor) -> Tensor:
    """y [M,K] = out [M,I] @ W_down^T (W_down [K,I])."""
    return _call("fwd_down", out, W_down)  # type: ignore[return-value]


def fwd_down_residual(out: Tensor, W_down: Tensor, residual: Tensor) -> Tensor:
    """y [M,K] = out @ W_down^T + residual [M,K]."""
    return _call("fwd_down_residual", out, W_down, residual)  # type: ignore[return-value]


def bwd_dswiglu(dy: Tensor, W_down: Tensor, de: Tensor) -> Tensor:
    """grad_de [M,2I] from dout = dy [M,K] @ W_down^T (W_down [I,K]; [K,I] for _bmn) and de."""
    return _call("bwd_dswiglu", dy, W_down, de)  # type: ignore[return-value]


def bwd_dswiglu_out(dy: Tensor, W_down: Tensor, de: Tensor) -> Tuple[Tensor, Tensor]:
    """(grad_de [M,2I], out [M,I]): bwd_dswiglu that also stores the recomputed out (StoreOut)."""
    return _call("bwd_dswiglu_out", dy, W_down, de)  # type: ignore[return-value]


def bwd_dswiglu_out_over_de(dy: Tensor, W_down: Tensor, de: Tensor) -> Optional[Tensor]:
    """bwd_dswiglu_out writing grad_de over de (de then holds grad_de):
    out [M,I], or None where the call cannot run the kernel directly
    (traced, a mode or subclass, grad needed; the caller then takes the
    functional op). The caller must own de: nothing may read it after.

    Aliasing grad_de with de is safe in both paths. Fused
    (templates/cuda/bwd_dswiglu_sm90a.cu.tmpl): the epilogue of output
    sub-tile (rr, cc) TMA-loads de's left and gate sub-tiles at (cc, 0, rr)
    and (cc, 1, rr) into a shared-memory slot, the consumers compute in that
    slot only after its EFull barrier says the load landed, and the
    producer TMA-stores grad_de's sub-tiles from the slot at the same
    coordinates only after the consumers' EEmpty arrivals: each element is
    read before the same CTA writes it. Each output tile (and so each
    sub-tile) belongs to exactly one CTA of the static persistent
    schedule (sm90a_kernel.cuh.tmpl: tile t = unit0 + j * num_ctas, the
    loader warp walking the consumers' tiles), and an epilogue reads only
    de at its own tile's coordinates, so no CTA reads what another
    writes; the slot's next load (a later sub-tile of the same CTA, at
    other coordinates) waits for the store to have read the slot
    (sw_bulk_wait_read0). Unfused (templates/kernelsrc/dswiglu.cu): each
    thread loads its left/gate chunks of de before it stores the same
    chunks of grad_de, and no other thread touches them."""
    scan = _direct_scan("bwd_dswiglu_out", (dy, W_down, de))
    if scan is None:
        return None
    return _run("bwd_dswiglu_out", (dy, W_down, de), scan, given={0: de})[1]


# ---- autograd -----------------------------------------------------------------
# Every backward is torch ops in fp32 (cast back to the input's dtype): the
# matmuls of the op's own GEMM and the dswiglu chain rule. The weights'
# layout (K-major [N, K] or an _bmn kernel's [K, N]) is the selected
# kernel's, recorded in setup_context.


def _mn(op: str, inputs: Dict[str, Tensor]) -> bool:
    return _select(op, inputs)[0].mn_major


def _w(B: Tensor, mn: bool) -> Tensor:
    """The operand the kernel multiplies by: B itself (_bmn) or B^T."""
    return B if mn else B.t()


def _matmul_grads(dC: Tensor, A: Tensor, B: Tensor, mn: bool) -> Tuple[Tensor, Tensor]:
    """dA, dB of C = A @ _w(B, mn), in fp32."""
    dA = dC @ _w(B, mn).t()
    dB = A.t() @ dC if mn else dC.t() @ A
    return dA, dB


def _silu_parts(gate: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """silu(g), silu'(g), silu''(g)."""
    s = torch.sigmoid(gate)
    return gate * s, s * (1 + gate * (1 - s)), s * (1 - s) * (2 + gate * (1 - 2 * s))


def _dswiglu(dout: Tensor, de: Tensor) -> Tensor:
    """grad_de = [dout * silu(gate), dout * left * silu'(gate)] (the bwd kernel's math)."""
    i = de.shape[1] // 2
    left, gate = de[:, :i], de[:, i:]
    f, f1, _ = _silu_parts(gate)
    return torch.cat([dout * f, dout * left * f1], 1)


def _cast(*ts: Optional[Tensor], like: Tensor) -> Tuple[Optional[Tensor], ...]:
    return tuple(None if t is None else t.to(like.dtype) for t in ts)


def _ctx_save(op: str, names: Tuple[str, ...]):  # type: ignore[no-untyped-def]
    def setup(ctx, inputs, output):  # type: ignore[no-untyped-def]
        d = dict(zip(names, inputs))
        ctx.mn = _mn(op, d)
        ctx.save_for_backward(*inputs)
    return setup


def _gemm_bwd(ctx, dC):  # type: ignore[no-untyped-def]
    A, B = ctx.saved_tensors
    dA, dB = _matmul_grads(dC.float(), A.float(), B.float(), ctx.mn)
    return _cast(dA, dB, like=A)


def _down_bwd(ctx, dy):  # type: ignore[no-untyped-def]
    out, W_down = ctx.saved_tensors[:2]
    d_out, dW = _matmul_grads(dy.float(), out.float(), W_down.float(), ctx.mn)
    return _cast(d_out, dW, like=out)


def _down_res_bwd(ctx, dy):  # type: ignore[no-untyped-def]
    return _down_bwd(ctx, dy) + (dy,)


def _gateup_grads(ctx, x: Tensor, W: Tensor, de: Tensor, g_out: Optional[Tensor],  # type: ignore[no-untyped-def]
                  g_de: Optional[Tensor]) -> Tuple[Optional[Tensor], ...]:
    d_de = torch.zeros_like(de) if g_out is None else _dswiglu(g_out.float(), de)
    if g_de is not None:
        d_de = d_de + g_de.float()
    dx, dW = _matmul_grads(d_de, x.float(), W.float(), ctx.mn)
    return _cast(dx, dW, like=x)


def _gateup_train_bwd(ctx, g_out, g_de):  # type: ignore[no-untyped-def]
    x, W, de = ctx.saved_tensors
    return _gateup_grads(ctx, x, W, de.float(), g_out, g_de)


def _gateup_train_setup(ctx, inputs, output):  # type: ignore[no-untyped-def]
    x, W = inputs
    ctx.mn = _mn("fwd_gateup_train", {"x": x, "W": W})
    ctx.save_for_backward(x, W, output[1])  # the stored de: no recompute


def _gateup_bwd(ctx, g_out):  # type: ignore[no-untyped-def]
    # The inference op stores no de: its backward recomputes it with one
    # torch matmul (SwiGLUMLP trains with fwd_gateup_train instead).
    x, W = ctx.saved_tensors
    de = x.float() @ _w(W.float(), ctx.mn)
    return _gateup_grads(ctx, x, W, de, g_out, None)


def _dswiglu_double(ctx, g_gd: Optional[Tensor], g_out: Optional[Tensor]) -> Tuple[Optional[Tensor], ...]:
    """The backward of grad_de = dswiglu(dy @ _w(W_down), de) (and out =
    left * silu(gate)): double backward through the MLP, in fp32."""
    dy, W_down, de = ctx.saved_tensors
    mn = ctx.mn
    f32 = de.float()
    i = f32.shape[1] // 2
    left, gate = f32[:, :i], f32[:, i:]
    f, f1, f2 = _silu_parts(gate)
    dout = dy.float() @ _w(W_down.float(), mn)
    d_dout = torch.zeros_like(dout)
    d_left = torch.zeros_like(left)
    d_gate = torch.zeros_like(gate)
    if g_gd is not None:
        gl, gg = g_gd.float()[:, :i], g_gd.float()[:, i:]
        d_dout = gl * f + gg * left * f1
        d_left = gg * dout * f1
        d_gate = gl * dout * f1 + gg * dout * left * f2
    if g_out is not None:
        go = g_out.float()
        d_left = d_left + go * f
        d_gate = d_gate + go * left * f1
    d_dy, dW = _matmul_grads(d_dout, dy.float(), W_down.float(), mn)
    return _cast(d_dy, dW, torch.cat([d_left, d_gate], 1), like=dy)


def _bwd_dswiglu_bwd(ctx, g_gd):  # type: ignore[no-untyped-def]
    return _dswiglu_double(ctx, g_gd, None)


def _bwd_dswiglu_out_bwd(ctx, g_gd, g_out):  # type: ignore[no-untyped-def]
    return _dswiglu_double(ctx, g_gd, g_out)


torch.library.register_autograd("swigen::gemm", _gemm_bwd, setup_context=_ctx_save("gemm", ("A", "B")))
torch.library.register_autograd("swigen::fwd_gateup", _gateup_bwd, setup_context=_ctx_save("fwd_gateup", ("x", "W")))
torch.library.register_autograd("swigen::fwd_gateup_train", _gateup_train_bwd, setup_context=_gateup_train_setup)
torch.library.register_autograd("swigen::fwd_down", _down_bwd, setup_context=_ctx_save("fwd_down", ("out", "W_down")))
torch.library.register_autograd("swigen::fwd_down_residual", _down_res_bwd,
                                setup_context=_ctx_save("fwd_down_residual", ("out", "W_down", "residual")))
torch.library.register_autograd("swigen::bwd_dswiglu", _bwd_dswiglu_bwd,
                                setup_context=_ctx_save("bwd_dswiglu", ("dy", "W_down", "de")))
torch.library.register_autograd("swigen::bwd_dswiglu_out", _bwd_dswiglu_out_bwd,
                                setup_context=_ctx_save("bwd_dswiglu_out", ("dy", "W_down", "de")))

"""The pure parts of SwiGLUExperts (moe.py): shape rules, the checkpoint
converter's index math, routing helpers and which path each op runs.

No torch here, so the rules are tested without torch or a GPU
(tests/test_moe_plan.py). Layout (one owner: this module's docstring):
tokens sorted by expert, x [T, H]; offs [E] int32, the cumulative end of
each expert's rows (torch._grouped_mm's convention: expert e holds rows
offs[e-1] .. offs[e], offs[-1] == T); W [E, 2I, H], each expert's
[up ; gate] as the fused fwd_gateup kind reads it (left = up, silu on
gate); W_down [E, H, I], each expert's nn.Linear [out, in].
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from . import kinds_gen, modes, opspec, package, select
from .manifest import Buffer
from .package import Registry

__all__ = ["MoeShape", "check_shapes", "GROUPED_KINDS", "SCORE_OP", "check_score", "sum_score_partials", "grouped_path",
           "REFERENCE", "KERNEL", "REFUSED", "registered_path", "launchable", "TRAIN_FOR", "TRAIN_DROP_DE", "WEIGHT_LAYOUT", "layout_why", "choose_path", "registered_plan",
           "gate_up_rows", "hf_expert_keys", "counts_to_offs", "offs_to_counts", "zipf_counts",
           "uniform_counts", "sort_by_expert", "DW_DOWN_FIRST", "DW_DOWN_LAST", "StepBytes", "step_bytes",
           "dw_down_order"]

REFERENCE = "reference"
"""The path that runs torch._grouped_mm and torch elementwise ops."""
KERNEL = "kernel"
"""The path that runs a registered grouped swigen kernel."""
REFUSED = "refused"
"""A registered grouped package that the op cannot launch (swigen_rt has
no op spec of its variant yet, or its kernel's buffers are another
variant's): the op raises rather than run the reference and hide that
the kernel never ran."""

GROUPED_KINDS: Dict[str, Tuple[str, str]] = {
    "moe_gateup": ("moe_fwd_gateup", ""),
    "moe_gateup_train": ("moe_fwd_gateup", "train"),
    "moe_dswiglu_out": ("moe_bwd_dswiglu", "out"),
    "moe_down": ("moe_gemm", ""),
    "moe_wgrad": ("moe_wgrad", ""),
}
"""op -> (kind, variant) of the grouped kernel package the op would run:
the kernel kinds' names (a package's manifests name them), so a registered
package of the kind is found. An op launches its kernel where kinds_gen.OPS
has its row (the kind registry's Ops: its inputs and outputs, buffers of
the kernel's manifest, listed in the torch op's argument and result
order, as swigen_rt.ops launches them); a new grouped kernel is one Ops
entry there (and, for a variant, its Marker). The ops of the _score
kernels (kinds_gen.SCORE_OPS, SCORE_OP) are here too."""

GROUPED_KINDS.update((r[0], (r[1], r[2])) for r in kinds_gen.SCORE_OPS)

SCORE_OP: Dict[str, str] = {p[0]: r[0] for r in kinds_gen.SCORE_OPS for p in kinds_gen.OPS
                            if (p[1], p[2] + kinds_gen.SCORE_SUFFIX) == (r[1], r[2])}
"""op -> the op that launches its kind and variant's _score kernel
(kinds_gen.SCORE_OPS): moe_gateup and moe_gateup_train with a score run
moe_gateup_score's and moe_gateup_train_score's kernels; moe_dswiglu_out's
is the torch op moe_dswiglu_out_score."""


WEIGHT_LAYOUT: Dict[str, Tuple[str, Tuple[str, ...]]] = {"moe_down": ("B", ("E", "N", "K"))}
"""op -> (buffer, shape) an op's weight must have in its kernel's
manifest: moe_down passes W_down [E, H, I] as moe_gemm's B, so only a
K-major kernel (B [E, N, K]) computes y = out @ W_down[e]^T; an _bmn one
(B [E, K, N]) would read it transposed (and, with H == I, pass the shape
rule)."""


def layout_why(op: str, buffers: Sequence[Buffer], name: str) -> str:
    """Why op cannot launch kernel name whose manifest buffers are buffers
    (WEIGHT_LAYOUT), "" where it can."""
    want = WEIGHT_LAYOUT.get(op)
    if want is None:
        return ""
    got = next((tuple(b.shape) for b in buffers if b.name == want[0]), ())
    if got == want[1]:
        return ""
    return "%s's %s is [%s]: swigen::%s wants [%s] (K-major: a config name without _bmn)" % (
        name, want[0], ", ".join(got), op, ", ".join(want[1]))


TRAIN_FOR: Dict[str, str] = {"moe_gateup": "moe_gateup_train"}
"""op -> the training op whose kernel runs op where no package of op's
own variant is registered: the same kind and inputs, its outputs op's
followed by more (de), which are dropped. SwiGLUMLP's rule for a forward
without a gradient (modes.forward_kernel: the inference kernel, else the
training one with de dropped), applied to the grouped inference op, with
and without a score."""

TRAIN_FOR.update({SCORE_OP[op]: SCORE_OP[train] for op, train in list(TRAIN_FOR.items())})

TRAIN_DROP_DE = "the train kernel, de dropped"
"""The start of the why of an op running its TRAIN_FOR op's kernel
(modes.FWD_TRAIN_DROP_DE's mode)."""


@dataclass(frozen=True)
class MoeShape:
    """T rows (tokens x top-k, sorted by expert), E experts, hidden H, intermediate I."""

    T: int
    E: int
    H: int
    I: int  # noqa: E741


def check_shapes(op: str, x: Sequence[int], W: Sequence[int], offs: Sequence[int],
                 W_down: Optional[Sequence[int]] = None) -> MoeShape:
    """The problem's sizes from x [T, H], W [E, 2I, H], offs [E] (and
    W_down [E, H, I] where given); ValueError naming the op, the tensor and
    the rule otherwise."""
    if len(x) != 2:
        raise ValueError("swigen::%s: x is %s: want [T, H] (tokens sorted by expert)" % (op, list(x)))
    if len(W) != 3 or W[1] % 2 != 0:
        raise ValueError("swigen::%s: W is %s: want [E, 2I, H] (each expert's [up ; gate])" % (op, list(W)))
    T, H = x
    E, I = W[0], W[1] // 2  # noqa: E741
    if W[2] != H:
        raise ValueError("swigen::%s: W is %s, x is %s: want W's last dim == x's H = %d" % (op, list(W), list(x), H))
    if E < 1 or I < 1 or H < 1:
        raise ValueError("swigen::%s: E=%d, I=%d, H=%d: want each >= 1" % (op, E, I, H))
    if H % 8 or I % 8:
        raise ValueError("swigen::%s: H=%d, I=%d: want multiples of 8 (16-byte rows for TMA and torch._grouped_mm)"
                         % (op, H, I))
    if list(offs) != [E]:
        raise ValueError("swigen::%s: offs is %s: want [E] = [%d] (int32 cumulative ends)" % (op, list(offs), E))
    if W_down is not None and list(W_down) != [E, H, I]:
        raise ValueError("swigen::%s: W_down is %s: want [E, H, I] = %s" % (op, list(W_down), [E, H, I]))
    return MoeShape(T=T, E=E, H=H, I=I)


def check_wgrad_shapes(op: str, A: Sequence[int], B: Sequence[int], offs: Sequence[int]) -> Tuple[int, int, int, int]:
    """(T, N, K, E) of a weight gradient dW [E, N, K] = per expert A_e^T
    @ B_e from A [T, N], B [T, K] (rows sorted by expert) and offs [E];
    ValueError naming the op, the tensor and the rule otherwise."""
    if len(A) != 2 or len(B) != 2 or A[0] != B[0]:
        raise ValueError("swigen::%s: A is %s, B is %s: want A [T, N] and B [T, K] (the same rows, sorted by expert)"
                         % (op, list(A), list(B)))
    T, N = A
    K = B[1]
    if N < 8 or K < 8 or N % 8 or K % 8:
        raise ValueError("swigen::%s: N=%d, K=%d: want positive multiples of 8 (16-byte rows for TMA and torch._grouped_mm)"
                         % (op, N, K))
    if len(offs) != 1 or offs[0] < 1:
        raise ValueError("swigen::%s: offs is %s: want [E], E >= 1 (int32 cumulative ends)" % (op, list(offs)))
    return T, N, K, offs[0]


def check_score(op: str, T: int, shape: Sequence[int], dtype: str, device: str, x_device: str) -> None:
    """A router score's rules: score [T] float32 (each routed row's
    weight, torch's dtype name without "torch."), on x's device;
    ValueError naming the op, the score and the rule otherwise."""
    if list(shape) != [T]:
        raise ValueError("swigen::%s: score is %s: want [T] = [%d] (one router weight per routed row)"
                         % (op, list(shape), T))
    if dtype != "float32":
        raise ValueError("swigen::%s: score is %s: want float32 (the kernels read fp32; pass score.float())" % (op, dtype))
    if device != x_device:
        raise ValueError("swigen::%s: score on %s, x on %s: want one device" % (op, device, x_device))


def _f32(v: float) -> float:
    """v rounded to float32 (out of its range: inf)."""
    return ctypes.c_float(v).value


def sum_score_partials(part: Sequence[Sequence[float]]) -> List[float]:
    """dscore [T] from a moe_bwd_dswiglu _score kernel's dscore_part
    [T, cdiv(I, TileN)]: each row's partials added in column order from
    +0.0, each sum rounded to float32 (the kernel writes one partial per
    n-block of I): Go's launch.SumScorePartials bit for bit, and
    swigen_rt.moe's device sum (one float32 add per column). A float32 add
    done in float64 and rounded is the float32 add's result: 53 bits hold
    2*24+2."""
    out = []
    for row in part:
        s = 0.0
        for v in row:
            s = _f32(s + _f32(v))
        out.append(s)
    return out


def launchable(op: str) -> bool:
    """Whether swigen_rt can launch op's kernel: kinds_gen.OPS (or, for a
    _score kernel's op, SCORE_OPS) has its row."""
    return any(row[0] == op for row in kinds_gen.OPS) or any(row[0] == op for row in kinds_gen.SCORE_OPS)


def grouped_path(op: str, registered: Sequence[str], unlaunchable: Optional[Sequence[str]] = None,
                 bundled: Sequence[str] = ()) -> Tuple[str, str]:
    """(path, why) for op given the packages registered for its kind, arch
    and dtype (their names) and, one per package, why the op cannot
    launch its kernel ("" where it can; None: each can where
    launchable(op)): KERNEL naming the first it can launch; REFUSED where
    packages are registered and it can launch none, saying why; else,
    where the installed wheel ships the op's kernel (bundled: its config
    names, select.bundled_configs) and the op is launchable, KERNEL naming
    the wheel's package; else REFERENCE saying which kind and variant
    would run and how to get it."""
    kind, variant = GROUPED_KINDS[op]
    what = kind + ("" if not variant else " (%s)" % variant)
    if unlaunchable is None:
        no_spec = "" if launchable(op) else "this swigen_rt has no op spec of %s (no Ops entry in tiling/kinds.go)" % what
        unlaunchable = [no_spec] * len(registered)
    if len(unlaunchable) != len(registered):
        raise ValueError("grouped_path: %d reasons for %d packages: want one each" % (len(unlaunchable), len(registered)))
    if registered:
        for name, why in zip(registered, unlaunchable):
            if not why:
                return KERNEL, "%s from package %s" % (what, name)
        return REFUSED, "%s from package %s is registered but cannot be launched: %s" % (what, registered[0], unlaunchable[0])
    if bundled and launchable(op):
        return KERNEL, "%s from package swigen_kernels (the installed wheel: %s)" % (what, ", ".join(bundled))
    if launchable(op):
        # A variant's kernels store another output (train: de; out: out)
        # or take a score; no wheel ships a _score kernel.
        wheel = "" if variant.endswith(kinds_gen.SCORE_SUFFIX) else ", or install the wheel of swigen wheel"
        how = "emit one with swigen emit --kernel %s%s --py-package NAME and register it%s" % (
            kind, opspec.emit_flags(variant), wheel)
    else:
        how = "swigen has no %s kernel yet" % what
    return REFERENCE, "torch._grouped_mm + torch elementwise ops: no %s package is registered (%s)" % (what, how)


def choose_path(op: str, own: Tuple[str, str], train: Optional[Tuple[str, str]] = None) -> Tuple[str, str, str]:
    """(path, why, run) of op given grouped_path of op (own) and, where op
    has a TRAIN_FOR op, of that op (train); run is the op whose kernel
    launches (op, or its training op with the extra outputs dropped).
    modes.forward_kernel chooses between registered kernels: op's own
    first, else the training one (why starts with TRAIN_DROP_DE). A
    registered package that cannot be launched is refused, not passed
    over: op's own (it has priority), else, where op has no package of
    its own, the training op's (the reference then would hide that the
    kernel the user registered never ran). REFERENCE where neither has a
    package, saying how to get either."""
    if train is None or op not in TRAIN_FOR or own[0] == REFUSED:
        return own[0], own[1], op
    fb = TRAIN_FOR[op]
    have = modes.Kernels(train=train[0] == KERNEL, infer=own[0] == KERNEL, bwd=False)
    if have.train or have.infer:
        # No gradient through op's own outputs: forward_kernel's no-grad
        # rule (arch and dtype only name a missing kernel, never here).
        if modes.forward_kernel(False, have, "", "") == modes.FWD_INFER:
            return own[0], own[1], op
        return KERNEL, "%s: %s (no inference %s package is registered)" % (TRAIN_DROP_DE, train[1], GROUPED_KINDS[op][0]), fb
    if train[0] == REFUSED:
        return REFUSED, "%s would run: %s" % (TRAIN_DROP_DE, train[1]), fb
    kind, variant = GROUPED_KINDS[fb]
    return REFERENCE, "%s; a package of --kernel %s%s (training) runs it too, de dropped" % (
        own[1], kind, opspec.emit_flags(variant)), op


def _registered(op: str, arch: str, dtype: str, reg: Registry, use_bundle: bool,
                bundle: Optional[select.Bundle]) -> Tuple[str, str]:
    """grouped_path of op over reg's packages of its kind and variant, each
    judged by the op's spec (opspec.OpSpec.unlaunchable), then, where none
    is registered and use_bundle, the wheel bundle's configs (the installed
    one where bundle is None, as opspec.select takes it)."""
    kind, variant = GROUPED_KINDS[op]
    cands = reg.candidates(kind, variant, arch, dtype)
    spec = opspec.OPS.get(op)
    whys = None if spec is None else [spec.unlaunchable(e) or layout_why(op, e.kernel.manifest.buffers, e.name)
                                    for e in cands]
    bundled: Tuple[str, ...] = ()
    if not cands and use_bundle:
        bundled = select.bundled_configs(kind, variant, arch, dtype, bundle)
    return grouped_path(op, [e.package for e in cands], whys, bundled)


def registered_plan(op: str, arch: str, dtype: str, registry: Optional[Registry] = None,
                    bundle: Optional[select.Bundle] = None) -> Tuple[str, str, str]:
    """choose_path of op on arch and dtype (torch's name: bfloat16) over
    the packages registry (package.REGISTRY by default) holds of its kind
    and variant, and of its TRAIN_FOR op's, each judged by its op's spec
    (opspec.OpSpec.unlaunchable), and the wheel bundle where no package of
    an op is registered (the installed one where registry is None):
    (path, why, the op whose kernel runs)."""
    reg = package.REGISTRY if registry is None else registry
    use_bundle = registry is None or bundle is not None
    own = _registered(op, arch, dtype, reg, use_bundle, bundle)
    fb = TRAIN_FOR.get(op)
    return choose_path(op, own, None if fb is None else _registered(fb, arch, dtype, reg, use_bundle, bundle))


def registered_path(op: str, arch: str, dtype: str, registry: Optional[Registry] = None,
                    bundle: Optional[select.Bundle] = None) -> Tuple[str, str]:
    """registered_plan's path and why."""
    path, why, _ = registered_plan(op, arch, dtype, registry, bundle)
    return path, why


def gate_up_rows(I: int) -> List[Tuple[str, int]]:  # noqa: E741
    """Where each row of one expert's stacked [up ; gate] W [2I, H] comes
    from: ("up", r) for rows 0..I-1, ("gate", r) for rows I..2I-1."""
    return [("up", r) for r in range(I)] + [("gate", r) for r in range(I)]


def hf_expert_keys(prefix: str, e: int) -> Tuple[str, str, str]:
    """A Hugging Face MoE checkpoint's per-expert keys (Mixtral/Qwen3-MoE/
    DeepSeek-V3: <prefix>experts.<e>.{gate,up,down}_proj.weight)."""
    p = "%sexperts.%d." % (prefix, e)
    return p + "gate_proj.weight", p + "up_proj.weight", p + "down_proj.weight"


def counts_to_offs(counts: Sequence[int]) -> List[int]:
    """Cumulative ends of per-expert row counts (offs); ValueError on a negative count."""
    out, s = [], 0
    for e, c in enumerate(counts):
        if c < 0:
            raise ValueError("counts_to_offs: expert %d has %d rows: want >= 0" % (e, c))
        s += c
        out.append(s)
    return out


def offs_to_counts(offs: Sequence[int]) -> List[int]:
    """Per-expert row counts from cumulative ends; ValueError where offs decreases."""
    out, prev = [], 0
    for e, o in enumerate(offs):
        if o < prev:
            raise ValueError("offs_to_counts: offs[%d] = %d < offs[%d] = %d: want non-decreasing" % (e, o, e - 1, prev))
        out.append(o - prev)
        prev = o
    return out


def _spread(total: int, weights: Sequence[float]) -> List[int]:
    """total split in proportion to weights, largest remainders first (ties
    to the lower index): the counts sum to total exactly."""
    s = sum(weights)
    raw = [total * w / s for w in weights]
    counts = [int(r) for r in raw]
    left = total - sum(counts)
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[:left]:
        counts[i] += 1
    return counts


def uniform_counts(rows: int, E: int) -> List[int]:
    """rows split as evenly as possible over E experts."""
    if E < 1 or rows < 0:
        raise ValueError("uniform_counts: rows=%d, E=%d: want rows >= 0, E >= 1" % (rows, E))
    return _spread(rows, [1.0] * E)


def zipf_counts(rows: int, E: int, s: float = 1.2, cap: Optional[int] = None) -> List[int]:
    """rows split over E experts by a Zipf law of exponent s (expert e gets
    a share of 1/(e+1)^s): a skewed routing. cap (e.g. the tokens T when
    each token picks top-k distinct experts) bounds each expert's count,
    the excess spread over the others in turn."""
    if E < 1 or rows < 0 or s < 0:
        raise ValueError("zipf_counts: rows=%d, E=%d, s=%g: want rows >= 0, E >= 1, s >= 0" % (rows, E, s))
    if cap is not None and cap * E < rows:
        raise ValueError("zipf_counts: cap=%d x E=%d < rows=%d: cannot place every row" % (cap, E, rows))
    counts = _spread(rows, [1.0 / (e + 1) ** s for e in range(E)])
    if cap is None:
        return counts
    excess = sum(max(0, c - cap) for c in counts)
    counts = [min(c, cap) for c in counts]
    e = 0
    while excess:
        room = min(cap - counts[e], excess)
        counts[e] += room
        excess -= room
        e += 1
    return counts


def sort_by_expert(expert_of_row: Sequence[int], E: int) -> Tuple[List[int], List[int]]:
    """(order, offs): a stable permutation putting rows in expert order
    (row order[j] goes to sorted position j) and the cumulative ends; the
    host reference of what a router's sort does on the device."""
    counts = [0] * E
    for r, e in enumerate(expert_of_row):
        if not 0 <= e < E:
            raise ValueError("sort_by_expert: row %d routes to expert %d: want 0 <= e < %d" % (r, e, E))
        counts[e] += 1
    order = sorted(range(len(expert_of_row)), key=lambda r: (expert_of_row[r], r))
    return order, counts_to_offs(counts)


DW_DOWN_FIRST = "first"
"""The layer's backward runs dW_down = moe_wgrad(dy, out) right after the
dSwiGLU, then dx and dW: out is freed before they are allocated."""
DW_DOWN_LAST = "last"
"""The layer's backward runs dx and dW first, frees grad_de, then dW_down:
out [T, I] waits instead of grad_de [T, 2I]."""


@dataclass(frozen=True)
class StepBytes:
    """Bytes of SwiGLUExperts' training step (forward, then backward to x
    and both weights) beyond what the caller holds before it (x, the
    weights, offs, the score, dy): its buffers' sizes and the peaks of
    step_bytes' model (docs/PERFORMANCE.md#moe-layer-memory)."""

    order: str
    """DW_DOWN_FIRST or DW_DOWN_LAST."""
    saved: int
    """Kept by autograd from the forward to the backward, inputs and
    weights aside: de [T, 2I]."""
    fwd_peak: int
    """The forward's peak: out and de beside y."""
    peak: int
    """The step's peak, y held by the caller through the backward (as a
    benchmark holds it; in a model the next layer's autograd may)."""
    end: int
    """Held when the backward returns: y, dx, dW, dW_down (and dscore)."""


def _step_peaks(T: int, H: int, I: int, E: int, elem: int, score: bool, order: str) -> StepBytes:  # noqa: E741
    """step_bytes for one order: the live bytes after each allocation of
    the step, in the order moe.py's autograd makes them."""
    y = dx = elem * T * H
    a = elem * T * I  # out, or one half of de / grad_de
    dW, dW_down = elem * E * 2 * I * H, elem * E * H * I
    ds = 4 * T if score else 0  # dscore [T] float32 (its kernel's partials live inside the op)
    fwd = [3 * a, 3 * a + y]  # out and de; y; out freed as the forward returns
    # The backward starts from y and de; the dSwiGLU adds grad_de, out (and
    # dscore); de goes as soon as it has read it (moe._release_saved).
    live = y + 2 * a + 2 * a + a + ds
    bwd = [live]
    live -= 2 * a
    if order == DW_DOWN_FIRST:
        bwd += [live + dW_down, live + dW_down - a + dx, live + dW_down - a + dx + dW]
    else:
        bwd += [live + dx, live + dx + dW, live + dx + dW - 2 * a + dW_down]
    return StepBytes(order=order, saved=2 * a, fwd_peak=max(fwd), peak=max(fwd + bwd),
                     end=y + dx + dW + dW_down + ds)


def dw_down_order(T: int, H: int, I: int, E: int) -> str:  # noqa: E741
    """The order of the layer's backward GEMMs with the lower peak
    (step_bytes): DW_DOWN_LAST where out [T, I] is smaller than dW_down
    [E, H, I] (T < E*H: then waiting with out costs less than waiting with
    dW_down beside grad_de), else DW_DOWN_FIRST. Ties go to
    DW_DOWN_FIRST. T is the routed rows (tokens x top-k)."""
    # _step_peaks' two peaks in elements less y (the forward's is below
    # the dSwiGLU's 5a): called once a backward, so no lists.
    y, a, dW, dW_down = T * H, T * I, 2 * E * I * H, E * H * I
    first = max(5 * a, 3 * a + dW_down, 2 * a + dW_down + y + dW)
    last = max(5 * a, 3 * a + y + dW, a + y + dW + dW_down)
    return DW_DOWN_LAST if last < first else DW_DOWN_FIRST


def step_bytes(T: int, H: int, I: int, E: int, elem: int = 2, score: bool = False,  # noqa: E741
               order: Optional[str] = None) -> StepBytes:
    """SwiGLUExperts' step memory at T routed rows (tokens x top-k), hidden
    H, intermediate I, E experts, elem bytes an element (bf16: 2): the
    model the layer's CPU memory test checks bit for bit on a tracker
    that counts every tensor the ops return (the kernel path's buffers,
    none of the reference path's temporaries). With a score the kernel
    path's dscore partials [T, cdiv(I, TileN)] fp32 also live beside the
    dSwiGLU's outputs while they are summed: not counted (under 2% of one
    [T, I] bf16 at TileN 128), so where that moment is the peak the model
    is that much low. order: dw_down_order's where None."""
    if T < 0 or min(H, I, E, elem) < 1:
        raise ValueError("step_bytes: T=%d, H=%d, I=%d, E=%d, elem=%d: want T >= 0, the rest >= 1" % (T, H, I, E, elem))
    if order is None:
        order = dw_down_order(T, H, I, E)
    if order not in (DW_DOWN_FIRST, DW_DOWN_LAST):
        raise ValueError("step_bytes: order=%r: want %r or %r" % (order, DW_DOWN_FIRST, DW_DOWN_LAST))
    return _step_peaks(T, H, I, E, elem, score, order)

"""What SwiGLUMLP runs in each mode, and when its backward may write over de; pure.

The module (mlp.py) asks these functions and does what they say; they take
plain facts (grad mode, which kernels are registered, autograd's state)
so the rules are tested without torch or a GPU (tests/test_modes.py).
torch is not imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Hashable, Optional, Sequence, Tuple, TypeVar

__all__ = ["Memo", "FWD_TRAIN", "FWD_INFER", "FWD_TRAIN_DROP_DE", "DX_PATHS", "Kernels", "MissingKernel", "forward_kernel",
           "grad_de_in_place", "autocast_dtype", "DOUBLE_BACKWARD", "dx_halves", "dw_down_order", "backward_peak",
           "DW_DOWN_FIRST", "DW_DOWN_LAST", "DW_DOWN_OVER_GRAD_DE"]

FWD_TRAIN = "train"
"""fwd_gateup_train: out and de, de saved for the backward."""
FWD_INFER = "infer"
"""fwd_gateup (the inference kernel): out alone."""
FWD_TRAIN_DROP_DE = "train, de dropped"
"""fwd_gateup_train where no inference kernel is registered: de is freed at once."""

DX_PATHS = ("one", "halves")
"""How the backward's dx = grad_de @ W runs: one [M,2I]x[2I,K] GEMM, or
the left and gate halves as two GEMMs accumulated into dx."""

DOUBLE_BACKWARD = ("swiglu_mlp: double backward (create_graph=True through SwiGLUMLP) is not supported: its backward "
                   "runs swigen's fused bwd_dswiglu kernel, which has no derivative of its own; differentiate the "
                   "block's torch ops (torch.ops.swigen.* each register one) or an eager copy of the block instead")
"""The error a backward run with create_graph=True raises."""


_T = TypeVar("_T")
_MISSING = object()


class Memo:
    """Decisions that depend on the kernel registry (which kernels are
    registered, their weight layouts), each computed once per function,
    arguments and generation: the registry's generation, or a tuple of
    its kinds' (package.Registry.generation, kind_generation: they change
    with the packages registered or removed). A new generation drops every
    kept value; so do more than limit calls. An error is not kept: the next
    call computes again."""

    def __init__(self, limit: int = 64) -> None:
        self._limit = limit
        self._kept: Tuple[Hashable, Dict[Hashable, object]] = (None, {})

    def call(self, fn: Callable[..., _T], generation: Hashable, *args: Hashable) -> _T:
        """fn(*args): the value kept for them at generation, else computed
        and kept."""
        # One (generation, values) pair, replaced whole: a value is kept
        # only in the dict of the generation its caller read, whichever
        # thread replaced the pair meanwhile.
        key = (fn, args)
        gen, values = self._kept
        if gen == generation:
            got = values.get(key, _MISSING)
            if got is not _MISSING:
                return got  # type: ignore[return-value]
        got = fn(*args)
        if gen != generation or len(values) >= self._limit:
            values = {}
            self._kept = (generation, values)
        values[key] = got
        return got


class MissingKernel(ValueError):
    """No registered kernel can run this call: the message names the emit."""


@dataclass(frozen=True)
class Kernels:
    """Which of the block's kernels are registered for one arch and dtype."""

    train: bool  # fwd_gateup --store-out
    infer: bool  # fwd_gateup
    bwd: bool  # bwd_dswiglu --store-out


def _emit(kind: str, flags: str, arch: str) -> str:
    return "swigen emit --arch %s --kernel %s%s --py-package NAME -o DIR" % (arch, kind, flags)


def forward_kernel(grad: bool, have: Kernels, arch: str, dtype: str, other_dtypes: Sequence[str] = ()) -> str:
    """The forward's kernel: FWD_TRAIN when a gradient is needed (grad mode
    on and an input requires grad), else the inference kernel where one is
    registered, else the training kernel with de dropped. Raises
    MissingKernel naming the emit where nothing registered can run, or
    the dtypes the block's kernels read where none reads dtype
    (other_dtypes: those registered for arch)."""
    where = "%s %s" % (arch, dtype)
    if not (have.train or have.infer or have.bwd) and other_dtypes:
        raise MissingKernel("swiglu_mlp: x is %s: the registered fwd_gateup kernels for %s read %s (cast the inputs "
                            "and weights, or run under torch.autocast)" % (dtype, arch, ", ".join(other_dtypes)))
    if grad:
        missing = []
        if not have.train:
            missing.append("fwd_gateup (training, stores de): " + _emit("fwd_gateup", " --store-out", arch))
        if not have.bwd:
            missing.append("bwd_dswiglu (StoreOut): " + _emit("bwd_dswiglu", " --store-out --major-b mn", arch))
        if missing:
            raise MissingKernel("swiglu_mlp: a training step on %s needs kernels that are not registered: %s"
                                % (where, "; ".join(missing)))
        return FWD_TRAIN
    if have.infer:
        return FWD_INFER
    if have.train:
        return FWD_TRAIN_DROP_DE
    raise MissingKernel("swiglu_mlp: no fwd_gateup kernel for %s is registered: import a package of %s (inference) "
                        "or of %s (training; it also runs inference)"
                        % (where, _emit("fwd_gateup", "", arch), _emit("fwd_gateup", " --store-out", arch)))


def grad_de_in_place(keep_graph: bool, compiling: bool, hooks: bool, de_refs: int, de_version: int,
                     saved_version: int) -> Tuple[bool, str]:
    """Whether the backward may write grad_de over the saved de, and why.

    keep_graph: autograd keeps the graph after this backward (retain_graph
    or create_graph): a later backward reads de again. compiling: traced by
    torch.compile, where the op must stay functional. hooks: saved-tensor
    hooks were active when de was saved (the unpacked de may be what a
    hook keeps). de_refs: the Python references to de's storage other than
    the saved one (a view or alias elsewhere: 0 when only autograd holds
    it). de_version vs saved_version: de's version counter now and when it
    was saved (autograd refuses a changed one before we get here; checked
    again so the rule stands alone)."""
    if keep_graph:
        return False, "out of place: autograd keeps the graph (retain_graph or create_graph), de is read again"
    if compiling:
        return False, "out of place: traced by torch.compile, the ops stay functional"
    if hooks:
        return False, "out of place: saved-tensor hooks were active when de was saved"
    if de_refs > 0:
        return False, "out of place: %d other reference%s to de's storage" % (de_refs, "" if de_refs == 1 else "s")
    if de_version != saved_version:
        return False, "out of place: de was modified after it was saved (version %d, saved %d)" % (de_version, saved_version)
    return True, "in place: autograd alone holds de, and frees it after this backward"


def autocast_dtype(enabled: bool, autocast: str, kernel_dtypes: Sequence[str], input_dtype: str) -> Optional[str]:
    """The dtype to cast the block's inputs to under autocast, or None to
    leave them: autocast's own dtype when it is on and a registered kernel
    reads it (else the inputs' dtype stays, and a mismatch is the op's
    error, naming the dtypes the kernels read)."""
    if not enabled or input_dtype == autocast:
        return None
    return autocast if autocast in kernel_dtypes else None


def dx_halves(choice: str) -> bool:
    """Whether dx = grad_de @ W runs as two half GEMMs (choice: DX_PATHS)."""
    if choice not in DX_PATHS:
        raise ValueError("swiglu_mlp: dx=%r: want one of %s" % (choice, ", ".join(DX_PATHS)))
    return choice == "halves"


DW_DOWN_FIRST = "first"
"""dW_down = dy^T @ out before dx and dW: out is freed before they are allocated."""
DW_DOWN_LAST = "last"
"""dW_down after dx and dW, grad_de (a buffer of its own) freed before it."""
DW_DOWN_OVER_GRAD_DE = "last, over grad_de"
"""dW_down after dx and dW, written into grad_de's storage (de's, which
autograd holds until the backward returns: it cannot be freed sooner)."""


def dw_down_order(m: int, k: int, i: int, in_place: bool) -> str:
    """When the backward computes dW_down, and where, for the lowest peak.

    Beside the step's results (y, dx [M,K], dW [2I,K], dW_down [K,I]: R
    elements) the backward holds grad_de [M,2I] and the recomputed out
    [M,I]. dW is one tensor reading both halves of grad_de, and dx reads
    both too, so grad_de lives until both are allocated. Peaks:
    first: R + 2MI (grad_de at the last of dx and dW; out already freed).
    last (grad_de its own buffer, freed before dW_down): max(R - KI + 3MI,
      R + MI), below R + 2MI iff M < K.
    in place, grad_de is de, which autograd frees only after the backward
    returns: a new dW_down after it would cost R + 3MI; written into
    grad_de's storage it allocates nothing: R - KI + 3MI, below R + 2MI iff
    M < K, and it fits iff KI <= 2MI (K <= 2M). The result then keeps all of
    de's storage (2MI >= KI) alive as long as dW_down lives.
    At M == K first: the same peak, and out is freed soonest."""
    if m >= k:
        return DW_DOWN_FIRST
    if not in_place:
        return DW_DOWN_LAST
    return DW_DOWN_OVER_GRAD_DE if k <= 2 * m else DW_DOWN_FIRST


def backward_peak(m: int, k: int, i: int, order: str, in_place: bool) -> int:
    """The backward's peak in elements beyond what the step holds before it
    (y, x, weights, dy, and de where in place), by simulating its
    allocations and frees in order: the rule dw_down_order is checked
    against (tests)."""
    live: Dict[str, int] = {}
    peak = 0

    def alloc(name: str, n: int) -> None:
        nonlocal peak
        live[name] = n
        peak = max(peak, sum(live.values()))

    if not in_place:
        alloc("grad_de", 2 * m * i)
    alloc("out", m * i)
    if order == DW_DOWN_FIRST:
        alloc("dW_down", k * i)
        del live["out"]
    alloc("dx", m * k)
    alloc("dW", 2 * i * k)
    if order != DW_DOWN_FIRST:
        if not in_place:
            del live["grad_de"]
        if order == DW_DOWN_OVER_GRAD_DE:
            live["dW_down"] = 0  # in de's storage: counted in the baseline
        else:
            alloc("dW_down", k * i)
        del live["out"]
    return peak

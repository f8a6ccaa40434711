"""What each torch op takes and returns, and how it picks its kernel; pure.

An op is a kernel kind and variant (package.variant_of) with named inputs
and outputs, all buffers of the kernel's manifest. select() picks the
op's kernel for an arch and dtype from the registry (the first candidate:
K-major weights first, then registration order) and solves the problem
sizes from the inputs' shapes: a dimension that is a size's name gives it,
one that is c*name gives name = dim/c. Every disagreement is a ShapeError
(a ValueError) naming the tensor and the rule. torch is not imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from . import expr, kinds_gen
from .manifest import Manifest, ShapeError
from .package import REGISTRY, Entry, Registry

__all__ = ["OpSpec", "OPS", "ARCH_OF_CC", "solve_sizes", "output_shapes", "select", "check_input", "emit_flags"]

ARCH_OF_CC: Dict[Tuple[int, int], str] = {(9, 0): "sm_90a", (10, 0): "sm_100a"}


@dataclass(frozen=True)
class OpSpec:
    """One op: torch.ops.swigen.<name>. A grouped kind's op (grouped) is
    swigen_rt.moe's, which defines it with its reference path; ops defines
    the others. An op of a _score kernel (kinds_gen.SCORE_OPS) is the name
    swigen_rt.moe launches that kernel under: moe_gateup with a score runs
    moe_gateup_score's (moe_dswiglu_out_score is a torch op of its own).
    fp32 are the buffers passed as float32 (the router score and its
    gradient's partials); the others have the first input's dtype."""

    name: str
    kind: str
    variant: str
    inputs: Tuple[str, ...]
    outputs: Tuple[str, ...]
    grouped: bool = False
    fp32: Tuple[str, ...] = ()

    def unlaunchable(self, e: Entry) -> str:
        """Why this op cannot launch e's kernel ("" where it can): the
        kernel's buffers must be the op's inputs and outputs, no more and
        no fewer (a kernel of the kind with another variant's buffer, say
        a stored de the registry has no marker for yet, is not this op's)."""
        have = {b.name for b in e.kernel.manifest.buffers}
        want = set(self.inputs + self.outputs)
        if have == want:
            return ""
        return ("%s's buffers are %s, swigen::%s takes %s and returns %s"
                % (e.name, ", ".join(sorted(have)), self.name, ", ".join(self.inputs), ", ".join(self.outputs)))


# The ops are the kind registry's (tiling.KindSpec.Ops and ScoreOps),
# generated into kinds_gen.
OPS: Dict[str, OpSpec] = {s[0]: OpSpec(*s, grouped=s[1] in kinds_gen.GROUPED) for s in kinds_gen.OPS}
OPS.update((s[0], OpSpec(*s[:5], grouped=s[1] in kinds_gen.GROUPED, fp32=s[5])) for s in kinds_gen.SCORE_OPS)


def emit_flags(variant: str) -> str:
    """The swigen emit flags that build a kernel of op variant variant:
    --store-out for a variant storing a second output (out, train), then
    --score for a _score kernel's (kinds_gen.SCORE_SUFFIX)."""
    base = variant[:-len(kinds_gen.SCORE_SUFFIX)] if variant.endswith(kinds_gen.SCORE_SUFFIX) else variant
    return (" --store-out" if base in ("out", "train") else "") + (" --score" if base != variant else "")

_SCALED = re.compile(r"^\s*(\d+)\s*\*\s*([A-Za-z][A-Za-z0-9_]*)\s*$")


def solve_sizes(m: Manifest, shapes: Mapping[str, Sequence[int]], what: str = "") -> Dict[str, int]:
    """The sizes the given buffers' shapes say, checked against every given
    shape and the manifest's shape rules."""
    what = what or m.name
    sizes: Dict[str, int] = {}
    seen: Dict[str, str] = {}
    for b in m.buffers:
        if b.name not in shapes:
            continue
        shape = tuple(int(d) for d in shapes[b.name])
        if len(shape) != len(b.shape):
            raise ShapeError("%s: tensor %s has %d dims %s, want %d: [%s]"
                             % (what, b.name, len(shape), list(shape), len(b.shape), ", ".join(b.shape)))
        for e, d in zip(b.shape, shape):
            c, name = 1, e.strip()
            mt = _SCALED.match(e)
            if mt:
                c, name = int(mt.group(1)), mt.group(2)
            if name not in m.sizes:
                continue
            if d % c != 0:
                raise ShapeError("%s: tensor %s: dimension %s is %d, not a multiple of %d" % (what, b.name, e, d, c))
            v = d // c
            if name in sizes and sizes[name] != v:
                raise ShapeError("%s: size %s: tensor %s says %d, tensor %s says %d (shapes: %s)"
                                 % (what, name, seen[name], sizes[name], b.name, v, _shapes_doc(m, shapes)))
            sizes.setdefault(name, v)
            seen.setdefault(name, b.name)
    missing = [s for s in m.sizes if s not in sizes]
    if missing:
        raise ShapeError("%s: sizes %s are no input's dimension" % (what, ", ".join(missing)))
    for b in m.buffers:
        if b.name in shapes:
            want = [expr.evaluate(e, sizes) for e in b.shape]
            got = [int(d) for d in shapes[b.name]]
            if got != want:
                raise ShapeError("%s: tensor %s has shape %s, want [%s] = %s (shapes: %s)"
                                 % (what, b.name, got, ", ".join(b.shape), want, _shapes_doc(m, shapes)))
    try:
        m.check_sizes(sizes)
    except ShapeError as e:
        raise ShapeError("%s: %s" % (what, e)) from None
    return sizes


def _shapes_doc(m: Manifest, shapes: Mapping[str, Sequence[int]]) -> str:
    return ", ".join("%s %s want [%s]" % (b.name, list(shapes[b.name]), ", ".join(b.shape)) for b in m.buffers if b.name in shapes)


def output_shapes(m: Manifest, names: Sequence[str], sizes: Mapping[str, int]) -> Tuple[Tuple[int, ...], ...]:
    """The shapes of the buffers names at sizes."""
    return tuple(tuple(expr.evaluate(e, sizes) for e in m.buffer(n).shape) for n in names)


def check_input(op: str, name: str, t: Any) -> None:
    """The checks every input gets before a kernel is chosen: a CUDA tensor."""
    dev = getattr(t, "device", None)
    if getattr(dev, "type", None) != "cuda":
        raise ShapeError("swigen::%s: tensor %s is on %s: want a CUDA tensor" % (op, name, dev))


def select(op: str, arch: str, dtype: str, shapes: Mapping[str, Sequence[int]],
           registry: Optional[Registry] = None) -> Tuple[Entry, Dict[str, int]]:
    """The kernel op runs on (arch, dtype) and the sizes the inputs' shapes say:
    the first registered candidate, or, where none is registered, the
    installed wheel's kernel the heuristic picks at these shapes
    (swigen_rt.select)."""
    spec = OPS.get(op)
    if spec is None:
        raise ValueError("swigen: op %r: want one of %s" % (op, ", ".join(OPS)))
    reg = REGISTRY if registry is None else registry
    missing = [n for n in spec.inputs if n not in shapes]
    if missing:
        raise ValueError("swigen::%s: inputs %s not given" % (op, ", ".join(missing)))
    cands = reg.candidates(spec.kind, spec.variant, arch, dtype)
    if spec.grouped:
        # A registered grouped package names its config: no heuristic; the
        # wheel's one config where none is registered; only kernels of the
        # op's buffers.
        return _select_grouped(spec, arch, dtype, shapes, cands, bundled=registry is None)
    if not cands and registry is None:
        # No imported package registers the op: the installed wheel's
        # kernels (swigen_kernels), picked per shape by the heuristic.
        from .select import select_bundled

        got = select_bundled(spec.kind, spec.variant, arch, dtype, shapes, "swigen::%s" % op)
        if got is not None:
            return got
    if not cands:
        have = sorted({e.dtype for e in reg.candidates(spec.kind, spec.variant, arch)})
        if have:
            raise ShapeError("swigen::%s: tensor %s is %s: the registered %s%s kernels for %s read %s"
                             % (op, spec.inputs[0], dtype, spec.kind, " " + spec.variant if spec.variant else "", arch, ", ".join(have)))
        raise ValueError("swigen::%s: no %s%s kernel for %s is registered: import a package emitted with "
                         "swigen emit --py-package --kernel %s%s --arch %s"
                         % (op, spec.kind, " (" + spec.variant + ")" if spec.variant else "", arch, spec.kind,
                            emit_flags(spec.variant), arch))
    e = cands[0]
    return e, solve_sizes(e.kernel.manifest, shapes, "swigen::%s (%s)" % (op, e.name))


def _select_grouped(spec: OpSpec, arch: str, dtype: str, shapes: Mapping[str, Sequence[int]],
                    cands: Sequence[Entry], bundled: bool = False) -> Tuple[Entry, Dict[str, int]]:
    """select for a grouped kind's op: the first registered candidate the
    op can launch (OpSpec.unlaunchable), or, where none is registered and
    bundled, the installed wheel's kernel of the op's kind and variant."""
    if not cands and bundled:
        from .select import select_bundled

        got = select_bundled(spec.kind, spec.variant, arch, dtype, shapes, "swigen::%s" % spec.name)
        if got is not None:
            cands = [got[0]]
    ok = [e for e in cands if not spec.unlaunchable(e)]
    if not ok:
        if cands:
            raise ValueError("swigen::%s: %s" % (spec.name, spec.unlaunchable(cands[0])))
        raise ValueError("swigen::%s: no %s%s kernel for %s and %s is registered: import a package emitted with "
                         "swigen emit --py-package NAME --kernel %s%s --arch %s"
                         % (spec.name, spec.kind, " (" + spec.variant + ")" if spec.variant else "", arch, dtype,
                            spec.kind, emit_flags(spec.variant), arch))
    e = ok[0]
    return e, solve_sizes(e.kernel.manifest, shapes, "swigen::%s (%s)" % (spec.name, e.name))

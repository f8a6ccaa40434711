"""Emitted Python packages (swigen emit --py-package) and the kernel registry.

A generated package's __init__.py calls register(): its kernels, the
elementwise module's cubins and its dispatch plans join REGISTRY, where the
torch ops (swigen_rt.ops) find a kernel by kind, variant, arch and dtype.
Nothing here touches a GPU or torch: cubins are read and checked against
their sha256, and load on first launch.

What a package lists is data: every file it names must lie inside its
directory (no absolute path, no "..", no symlink out), be a regular file
within files' size caps and, for a cubin, match its sha256 (which must be
given). A package that breaks any of this raises PackageError, both an
ImportError (it is raised while the package imports) and a ValueError.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import files, kinds_gen, schema
from .dispatch import DispatchPlan
from .elementwise import Module as ElementwiseModule
from .kernel import Kernel, LoadError
from .manifest import Manifest
from .tensors import buffer_dtypes

__all__ = ["RUNTIME_VERSION", "Entry", "Package", "PackageError", "Registry", "REGISTRY", "check_runtime", "register",
           "load_dir", "variant_of"]

RUNTIME_VERSION = 1
"""The generated-package format this runtime reads (pybind.RuntimeVersion)."""

PathLike = Union[str, "os.PathLike[str]"]


class PackageError(ImportError, ValueError):
    """A generated package that is malformed: its listing, its files or their checksums."""


def check_runtime(version: int) -> None:
    """Raises PackageError (an ImportError) when a package was generated for another runtime."""
    if version != RUNTIME_VERSION or isinstance(version, bool) or not isinstance(version, int):
        raise PackageError("swigen_rt reads generated packages of version %d, this one is version %s: "
                          "re-emit it with the swigen that matches this swigen_rt" % (RUNTIME_VERSION, schema.show(version)))


def variant_of(m: Manifest) -> str:
    """The op variant a kernel implements, from its buffers: the variant
    whose marker buffer it has (kinds_gen.MARKERS, from the kind registry:
    bwd_dswiglu "out", fwd_gateup "train" (stores de), fwd_down
    "residual"), else ""; a router-score kernel's with SCORE_SUFFIX."""
    names = {b.name for b in m.buffers}
    variant = ""
    for v, marker in kinds_gen.MARKERS.get(m.kernel, ()):
        if marker in names:
            variant = v
            break
    if SCORE_BUFFER in names:
        # A router-score kernel (_score) takes one more input than its
        # variant's op: only its kinds_gen.SCORE_OPS op launches it, never
        # one without a score.
        return variant + SCORE_SUFFIX
    return variant


# SCORE_BUFFER is the router score's buffer (a grouped kernel with _score);
# variant_of marks such kernels' variants with SCORE_SUFFIX (the kind
# registry's, tiling.ScoreVariantSuffix).
SCORE_BUFFER = "score"
SCORE_SUFFIX = kinds_gen.SCORE_SUFFIX


def _dtype_of(m: Manifest) -> str:
    """torch's name of m's operand type: its tensor maps' type as torch names it (tiling.DTypeSpec)."""
    torch_of = {d[3]: d[1] for d in kinds_gen.DTYPES}
    dts = {torch_of.get(d, d) for d in buffer_dtypes(m).values()}
    return dts.pop() if len(dts) == 1 else ",".join(sorted(dts))


@dataclass
class Entry:
    """One registered kernel."""

    kernel: Kernel
    kind: str
    variant: str
    arch: str
    dtype: str  # torch's name: bfloat16, float16
    package: str
    dispatch: Optional["Unfused"] = None

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def mn_major(self) -> bool:
        """Whether the weight operand (B) is MN-major (the _bmn configs)."""
        return "_bmn" in self.kernel.name


@dataclass
class Unfused:
    """A fused kernel's unfused path: its plan, gemm kernel and elementwise module."""

    plan: DispatchPlan
    gemm: Kernel
    elementwise: ElementwiseModule


@dataclass
class Package:
    """A registered package: its kernels by name, and the problems it had."""

    name: str
    dir: str
    kernels: Dict[str, Entry] = field(default_factory=dict)
    uncompiled: Tuple[str, ...] = ()

    def by_kind(self, kind: str, variant: str = "") -> List[Entry]:
        """The package's kernels of kind and variant, by name."""
        return [e for _, e in sorted(self.kernels.items()) if e.kind == kind and e.variant == variant]


class Registry:
    """Every registered kernel, looked up by (kind, variant, arch, dtype)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: List[Entry] = []
        self.packages: Dict[str, Package] = {}
        self.generation = 0
        """Counts the changes of the registered set: caches of what a call
        selected are valid while it stays the same."""
        self.kind_generation: Dict[str, int] = {}
        """Each kind's generation: the generation of the last change that
        registered or removed a kernel of it (absent: none ever was). A
        choice that reads only some kinds is valid while theirs stay: a
        compiled SwiGLUMLP is guarded on its kinds' (swigen_rt.mlp)."""

    def _changed(self, entries: Iterable[Entry]) -> None:
        """One change of the registered set, touching entries' kinds (the
        lock held)."""
        self.generation += 1
        for e in entries:
            self.kind_generation[e.kind] = self.generation

    def add_package(self, p: Package) -> None:
        with self._lock:
            old = self.packages.get(p.name)
            if old is not None:
                self._entries = [e for e in self._entries if e.package != p.name]
            self.packages[p.name] = p
            self._entries.extend(e for _, e in sorted(p.kernels.items()))
            self._changed(list(p.kernels.values()) + ([] if old is None else list(old.kernels.values())))

    def remove_package(self, name: str) -> bool:
        """Unregisters the package name (its kernels leave the candidates);
        whether it was registered."""
        with self._lock:
            if name not in self.packages:
                return False
            gone = self.packages.pop(name)
            self._entries = [e for e in self._entries if e.package != name]
            self._changed(gone.kernels.values())
            return True

    def candidates(self, kind: str, variant: str, arch: Optional[str] = None, dtype: Optional[str] = None) -> List[Entry]:
        """The registered kernels of kind and variant (and arch, dtype when
        given): K-major weights first, then by package registration order
        and name."""
        with self._lock:
            es = [e for e in self._entries if e.kind == kind and e.variant == variant
                  and (arch is None or e.arch == arch) and (dtype is None or e.dtype == dtype)]
        return sorted(es, key=lambda e: e.mn_major)  # stable: registration order within a major

    def clear(self) -> None:
        """Forgets every package (tests)."""
        with self._lock:
            gone = self._entries
            self._entries, self.packages = [], {}
            self._changed(gone)


REGISTRY = Registry()
"""The process's registry: generated packages register here on import."""

_HEX = re.compile(r"[0-9a-f]{64}")

_KERNEL_ROW = ("name", "kind", "arch", "manifest", "cubin", "sha256")
_ELEMENTWISE_ROW = ("arch", "cubin", "sha256")


def _rows(rows: object, fields: Tuple[str, ...], what: str) -> List[Tuple[str, ...]]:
    """rows as tuples of len(fields) strings, or a PackageError naming the row."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, (tuple, list)):
        raise PackageError("%s: %s: want a sequence of (%s)" % (what, type(rows).__name__, ", ".join(fields)))
    out = []
    for i, r in enumerate(rows):
        if not isinstance(r, (tuple, list)) or len(r) != len(fields) or not all(isinstance(x, str) for x in r):
            raise PackageError("%s[%d] = %s: want (%s), all strings" % (what, i, schema.show(r), ", ".join(fields)))
        out.append(tuple(r))
    return out


def _read_checked(d: str, name: str, sha: str, what: str) -> bytes:
    """The cubin name in package directory d, checked against its sha256."""
    if not _HEX.fullmatch(sha):
        raise PackageError("%s: cubin %s: sha256 %s: want 64 lowercase hex digits (re-emit it: swigen emit --py-package)"
                           % (what, name, schema.show(sha)))
    path = files.confine(d, name, "%s: cubin" % what, PackageError)
    data = files.read_regular(path, files.MAX_CUBIN_BYTES, "%s: cubin" % what, PackageError)
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        raise PackageError("%s: %s has sha256 %s, the package was generated for %s: re-emit it (swigen emit --py-package)"
                           % (what, path, got, sha))
    return data


def register(name: str, directory: PathLike, kernels: Sequence[Tuple[str, str, str, str, str, str]],
             elementwise: Sequence[Tuple[str, str, str]], dispatch: Sequence[str],
             registry: Optional[Registry] = None) -> Package:
    """Registers a generated package's kernels (name, kind, arch, manifest,
    cubin, sha256), elementwise cubins (arch, cubin, sha256) and dispatch
    plans (JSON) with registry (REGISTRY by default). Kernels without a
    cubin (--no-compile) are listed in Package.uncompiled, not registered.

    Raises PackageError for a malformed listing, a file outside directory,
    not regular or too large, or a cubin without its sha256 or not
    matching it; ManifestError and PlanError (ValueErrors) for a
    malformed manifest or plan; OSError for a file that cannot be read.
    """
    reg = REGISTRY if registry is None else registry
    if not isinstance(name, str) or not name:
        raise PackageError("package name %s: want a non-empty string" % schema.show(name))
    d = os.fspath(directory)
    krows = _rows(kernels, _KERNEL_ROW, "%s: KERNELS" % name)
    erows = _rows(elementwise, _ELEMENTWISE_ROW, "%s: ELEMENTWISE" % name)
    if isinstance(dispatch, (str, bytes)) or not isinstance(dispatch, (tuple, list)) or not all(isinstance(t, str) for t in dispatch):
        raise PackageError("%s: DISPATCH = %s: want a sequence of JSON strings" % (name, schema.show(dispatch)))
    pkg = Package(name=name, dir=d)
    byname: Dict[str, Kernel] = {}
    uncompiled = []
    for kname, kind, arch, man, cubin, sha in krows:
        m = Manifest.load(files.confine(d, man, "%s: manifest" % name, PackageError))
        if m.name != kname or m.kernel != kind or m.arch != arch:
            raise PackageError("%s: manifest %s is %s (%s, %s), the package lists %s (%s, %s): re-emit it"
                              % (name, man, m.name, m.kernel, m.arch, kname, kind, arch))
        if not cubin:
            uncompiled.append(kname)
            continue
        k = Kernel(m, _read_checked(d, cubin, sha, name))
        byname[kname] = k
        pkg.kernels[kname] = Entry(kernel=k, kind=kind, variant=variant_of(m), arch=arch, dtype=_dtype_of(m), package=name)
    ew: Dict[str, ElementwiseModule] = {}
    for arch, cubin, sha in erows:
        if cubin:
            ew[cubin] = ElementwiseModule(_read_checked(d, cubin, sha, name), arch)
    for text in dispatch:
        p = DispatchPlan.from_json(text)
        e, g, mod = pkg.kernels.get(p.fused), byname.get(p.gemm), ew.get(p.elementwise)
        if e is None or g is None or mod is None:
            if p.fused in uncompiled or p.gemm in uncompiled:
                continue
            raise PackageError("%s: dispatch plan of %s: its kernel, gemm %s and elementwise %s must all be in the package"
                              % (name, p.fused, p.gemm, p.elementwise))
        e.dispatch = Unfused(plan=p, gemm=g, elementwise=mod)
    pkg.uncompiled = tuple(uncompiled)
    reg.add_package(pkg)
    return pkg


def load_dir(directory: PathLike, name: Optional[str] = None) -> object:
    """Imports the package an emit wrote into directory (its __init__.py)
    under name (default: the directory's name) and returns the module."""
    d = os.path.abspath(os.fspath(directory))
    init = os.path.join(d, "__init__.py")
    if not os.path.exists(init):
        raise ImportError("%s has no __init__.py: emit it with --py-package NAME" % d)
    src = files.read_regular(init, files.MAX_SOURCE_BYTES, "package source", PackageError)
    name = name or os.path.basename(d)
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[d])
    if spec is None or spec.loader is None:
        raise ImportError("cannot import %s" % init)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        # The source read above, through the size cap, is what runs (the
        # loader would read the file again, without it).
        exec(compile(src, init, "exec", dont_inherit=True), mod.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


__all__ += ["LoadError", "Unfused"]

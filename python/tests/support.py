"""Shared test helpers: puts python/ first on sys.path and names the data."""

from __future__ import annotations

import os
import sys

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
REPO_DIR = os.path.dirname(PYTHON_DIR)
TESTDATA = os.path.join(PYTHON_DIR, "tests", "testdata")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)


class FakeDevice:
    """torch.device's type and index."""

    def __init__(self, type: str = "cuda", index: "int | None" = 0) -> None:  # noqa: A002
        self.type, self.index = type, index

    def __str__(self) -> str:
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


class FakeTensor:
    """The attributes of a torch.Tensor that swigen_rt reads."""

    def __init__(self, shape, ptr, dtype="torch.bfloat16", device=None, stride=None, elem=2):  # type: ignore[no-untyped-def]
        self.shape = tuple(shape)
        self.dtype = dtype
        self.device = device or FakeDevice()
        self._ptr, self._elem = ptr, elem
        if stride is None:
            stride, n = [], 1
            for d in reversed(self.shape):
                stride.insert(0, n)
                n *= d
        self._stride = tuple(stride)

    def stride(self):  # type: ignore[no-untyped-def]
        return self._stride

    def data_ptr(self) -> int:
        return self._ptr

    def element_size(self) -> int:
        return self._elem


def op_buffers(m):  # type: ignore[no-untyped-def]
    """(inputs, outputs) of the PyTorch op that runs m's kernel: its kind
    and variant's row of kinds_gen.OPS, or for a router-score kernel
    (variant_of's SCORE_SUFFIX) of kinds_gen.SCORE_OPS."""
    from swigen_rt import kinds_gen
    from swigen_rt.package import variant_of
    variant = variant_of(m)
    rows = [r for r in kinds_gen.OPS + tuple(r[:5] for r in kinds_gen.SCORE_OPS) if r[1] == m.kernel and r[2] == variant]
    if not rows:
        raise AssertionError("%s: no op of kind %s variant %r" % (m.name, m.kernel, variant))
    return rows[0][3], rows[0][4]

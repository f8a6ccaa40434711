"""Checks an installed swigen_kernels wheel (no torch, no GPU): run it with
the venv's python from outside the repository (.ci/run does).

    python wheel_check.py

swigen_rt must come from site-packages, not the repository; every op's
selection at the suite shapes, ragged and far shapes must be the
bundle's heuristic choice and load (cubin checked against its sha256);
each grouped (mixture-of-experts) op on sm_90a must take the wheel's one
config at routing shapes and its path (moe_plan.registered_path) name
the wheel; a shape no config takes is a ValueError naming the rule; a
registered package takes precedence over the wheel. Prints one line per
check.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig

import swigen_rt
from swigen_rt import kinds_gen, moe_plan, opspec, select
from swigen_rt.package import REGISTRY, Package

SUITE = [(16384, 768, 4608), (8192, 4096, 14336), (4096, 4096, 7168), (2048, 4096, 3584), (128, 4096, 14336),
         (8192, 8192, 28672), (8192, 8192, 14336), (8192, 8192, 7168), (8192, 8192, 3584), (32768, 8192, 3584),
         (8192, 3584, 18944), (4096, 3584, 9472), (4096, 4096, 14336), (4096, 7168, 2048), (512, 7168, 2048),
         (2048, 2048, 768), (8192, 3584, 14336), (16384, 3584, 7168)]
OTHER = [(1, 8, 8), (777, 1000, 3000), (100000, 16384, 53248), (333, 2056, 5128)]


def shapes_of(op: str, m: int, k: int, i: int, mn: bool = False):  # type: ignore[no-untyped-def]
    """The inputs' shapes of op at M, K, I (gemm: N = I); mn: the weight
    MN-major, as an _bmn kernel reads it."""
    def w(rows: int, cols: int):  # type: ignore[no-untyped-def]
        return (cols, rows) if mn else (rows, cols)
    return {
        "gemm": {"A": (m, k), "B": w(i, k)},
        "fwd_gateup": {"x": (m, k), "W": w(2 * i, k)},
        "fwd_gateup_train": {"x": (m, k), "W": w(2 * i, k)},
        "fwd_down": {"out": (m, i), "W_down": w(k, i)},
        "fwd_down_residual": {"out": (m, i), "W_down": w(k, i), "residual": (m, k)},
        "bwd_dswiglu": {"dy": (m, k), "W_down": w(i, k), "de": (m, 2 * i)},
        "bwd_dswiglu_out": {"dy": (m, k), "W_down": w(i, k), "de": (m, 2 * i)},
    }[op]


# T, H, I, E of the grouped ops' calls: ragged T, one expert, many.
GROUPED = [(1, 8, 8, 1), (777, 4096, 1032, 8), (16384, 7168, 2048, 256), (300, 264, 200, 8)]


def grouped_shapes(op: str, T: int, H: int, I: int, E: int):  # type: ignore[no-untyped-def]  # noqa: E741
    """The inputs' shapes of grouped op (swigen_rt.moe's layout)."""
    if op == "moe_dswiglu_out":
        return {"dy": (T, H), "W_down": (E, H, I), "de": (T, 2 * I), "offs": (E,)}
    if op == "moe_down":  # moe_gemm's A = out [T, I], B = W_down [E, H, I]
        return {"A": (T, I), "B": (E, H, I), "offs": (E,)}
    if op == "moe_wgrad":  # W's gradient: A = grad_de [T, 2I], B = x [T, H]
        return {"A": (T, 2 * I), "B": (T, H), "offs": (E,)}
    return {"x": (T, H), "W": (E, 2 * I, H), "offs": (E,)}


def held(b: select.Bundle, kind: str, arch: str) -> str:
    """Why the wheel left grouped kind out on arch (swigen wheel's hold of a
    kind not yet run on a GPU), or ""."""
    with open(os.path.join(b.dir, select.BUNDLE_FILE)) as f:
        skipped = json.load(f).get("selection", {}).get("skipped", []) or []
    for s in skipped:
        if s.get("kernel") == kind and s.get("arch") == arch and "left out unless --kernel" in s.get("why", ""):
            return str(s["why"])
    return ""


def check_grouped(b: select.Bundle) -> bool:
    """Each grouped op on each arch the wheel runs on (sm_90a: the grouped
    kinds' one arch) takes the wheel's one config, loaded and checked,
    and its path names the wheel; a kind the wheel holds back is named."""
    n = 0
    for arch in sorted(a for a, co in b.compile_only.items() if not co):
        for op, spec in opspec.OPS.items():
            if not spec.grouped:
                continue
            names = select.bundled_configs(spec.kind, spec.variant, arch, "bfloat16")
            if spec.variant.endswith(kinds_gen.SCORE_SUFFIX):
                # No wheel ships a _score kernel (emit --score builds them).
                path, why = moe_plan.registered_path(op, arch, "bfloat16")
                if names or path != moe_plan.REFERENCE:
                    print("FAIL %s on %s: the wheel names %s, path %s (%s): want no _score kernel" % (op, arch, list(names), path, why))
                    return False
                print("skip %s on %s: no wheel ships a _score kernel" % (op, arch))
                continue
            why = held(b, spec.kind, arch)
            if why and not names:
                print("skip %s on %s: %s" % (op, arch, why))
                continue
            if len(names) != 1:
                print("FAIL %s on %s: the wheel's selection names %s, want one config" % (op, arch, list(names)))
                return False
            path, why = moe_plan.registered_path(op, arch, "bfloat16")
            if path != moe_plan.KERNEL or "swigen_kernels" not in why:
                print("FAIL %s on %s: path %s (%s), want the wheel's kernel" % (op, arch, path, why))
                return False
            for (T, H, I, E) in GROUPED:  # noqa: E741
                e, sizes = opspec.select(op, arch, "bfloat16", grouped_shapes(op, T, H, I, E))
                want = {"moe_down": {"T": T, "N": H, "K": I, "E": E}, "moe_wgrad": {"T": T, "N": 2 * I, "K": H, "E": E}}.get(
                    op, {"T": T, "K": H, "I": I, "E": E})
                if e.name != names[0] or sizes != want:
                    print("FAIL %s on %s at T,H,I,E=%s: got %s sizes %s, want %s" % (op, arch, (T, H, I, E), e.name, sizes, names[0]))
                    return False
                n += 1
            print("ok   %s on %s: %s (%s)" % (op, arch, names[0], why))
    if n == 0:
        print("FAIL no grouped op selected a kernel: the wheel ships none for sm_90a")
        return False
    return True


def main() -> int:
    site = sysconfig.get_paths()["purelib"]
    where = os.path.dirname(os.path.abspath(swigen_rt.__file__))
    if not where.startswith(os.path.abspath(site)):
        print("FAIL swigen_rt imported from %s, not the venv's %s" % (where, site))
        return 1
    b = select.bundle()
    if b is None:
        print("FAIL swigen_kernels is not installed")
        return 1
    print("ok   swigen_rt %s and swigen_kernels from %s (%d kernels, arches %s)"
          % (swigen_rt.__version__, site, len(b.kernels), ", ".join(sorted(b.compile_only))))
    n, picked = 0, set()
    for arch in sorted(b.compile_only):
        for op, spec in opspec.OPS.items():
            if spec.grouped:
                continue  # check_grouped's
            # Each op's weight layout is its selection's (one per arch and
            # dtype), the one SwiGLUMLP passes (select.weight_mn_major).
            mn = select.weight_mn_major(spec.kind, spec.variant, arch, "bfloat16")
            for (m, k, i) in SUITE + OTHER:
                shapes = shapes_of(op, m, k, i, mn)
                e, sizes = opspec.select(op, arch, "bfloat16", shapes)
                want, _ = b.table.choose(spec.kind, spec.variant, arch, "bf16", m, k, i)
                if e.name != want or e.mn_major != mn or (sizes["M"], sizes["K"], sizes.get("I", sizes.get("N"))) != (m, k, i):
                    print("FAIL %s %s at %s: got %s sizes %s, want %s" % (op, arch, (m, k, i), e.name, sizes, want))
                    return 1
                n += 1
                picked.add(e.name)
    print("ok   %d selections, %d distinct kernels loaded and checked" % (n, len(picked)))
    if not check_grouped(b):
        return 1
    # SwiGLUMLP's backward reads W_down [K, I] as nn.Linear holds it: no
    # per-call transpose with the wheel alone (mlp.bwd_takes_w_down_kn).
    for arch in sorted(a for a, co in b.compile_only.items() if not co):
        if not select.weight_mn_major("bwd_dswiglu", "out", arch, "bfloat16"):
            sel = b.table.selections[("bwd_dswiglu", "out", arch, "bf16")]
            print("FAIL bwd_dswiglu out on %s reads W_down K-major: SwiGLUMLP transposes it each backward (%s)" % (arch, sel.note))
            return 1
        print("ok   bwd_dswiglu out on %s reads W_down [K, I] (MN-major): no per-call transpose" % arch)
    try:
        opspec.select("bwd_dswiglu", "sm_90a", "bfloat16", shapes_of("bwd_dswiglu", 16, 100, 64))
        print("FAIL K=100 selected a kernel")
        return 1
    except ValueError as err:
        if "multiple of 8" not in str(err):
            print("FAIL K=100: %s" % err)
            return 1
        print("ok   K=100: %s" % err)
    # A registered package (an emitted --py-package) takes precedence.
    arch = sorted(b.compile_only)[0]
    other = b.entry(b.table.choose("bwd_dswiglu", "", arch, "bf16", 128, 4096, 14336)[0])
    mine = Package(name="mine", dir="/nonexistent")
    mine.kernels[other.name] = other
    REGISTRY.add_package(mine)
    e, _ = opspec.select("bwd_dswiglu", arch, "bfloat16", shapes_of("bwd_dswiglu", 65536, 1024, 2048))
    REGISTRY.clear()
    if e is not other:
        print("FAIL a registered package's kernel did not take precedence: got %s" % e.name)
        return 1
    print("ok   a registered package takes precedence (%s)" % e.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

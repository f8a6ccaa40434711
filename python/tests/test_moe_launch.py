"""swigen::moe_gateup's kernel path without a GPU or torch: which path a
registered package gives (moe_plan.registered_path), the kernel and sizes
the op selects (opspec.select), the checks of its tensors and the
parameters a launch packs, on manifests Go wrote (the sm_90a golden's
moe_fwd_gateup configs, go test ./runtime/launch -run PythonGolden)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tempfile
import unittest
from unittest import mock
from typing import Any, Dict, List, Tuple

import support
from swigen_rt import ShapeError, kinds_gen, moe_plan, opspec, select
from swigen_rt.kernel import Kernel
from swigen_rt.manifest import Device, Manifest
from swigen_rt.moe_plan import KERNEL, REFERENCE, REFUSED
from swigen_rt.package import Entry, Package, Registry, variant_of
from swigen_rt.plan import pack_pointers, plan_sizes
from swigen_rt.select import Bundle
from swigen_rt.tensors import check_tensors


def golden_moe(kind: str = "moe_fwd_gateup", variant: str = "") -> List[Dict[str, Any]]:
    """The golden's grouped configs (name, manifest, launches) of kind and
    variant; kind "" for every grouped config."""
    with open(os.path.join(support.TESTDATA, "golden_sm_90a.json"), encoding="utf-8") as f:
        g = json.load(f)
    return [c for c in g["configs"] if c["manifest"]["kernel"] in kinds_gen.GROUPED
            and (not kind or c["manifest"]["kernel"] == kind
                 and variant_of(Manifest.from_dict(c["manifest"])) == variant)]


def entry(m: Manifest, pkg: str) -> Entry:
    """m registered as a package's kernel would be (its cubin a placeholder: nothing loads it)."""
    dts = {p.map.dtype for p in m.params if p.map is not None}
    return Entry(kernel=Kernel(m, b"\0"), kind=m.kernel, variant=variant_of(m), arch=m.arch, dtype=dts.pop(), package=pkg)


def registry(*entries: Entry) -> Registry:
    reg = Registry()
    for e in entries:
        p = Package(name=e.package, dir="/nonexistent")
        p.kernels[e.name] = e
        reg.add_package(p)
    return reg


def with_de(d: Dict[str, Any]) -> Manifest:
    """The manifest d with a de [T, 2I] buffer (a training kernel's, which
    the registry has no marker for yet)."""
    d = copy.deepcopy(d)
    d["buffers"].append({"name": "de", "shape": ["T", "2*I"]})
    return Manifest.from_dict(d)


def with_score(d: Dict[str, Any]) -> Manifest:
    """The manifest d with the router score as Go's --score adds it to a
    forward (manifest/grouped.go): a score [T] buffer and its score_ptr
    parameter last; named with _score."""
    d = copy.deepcopy(d)
    d["name"] = d["entry"] = d["name"] + "_score"
    d["buffers"].append({"name": "score", "shape": ["T"], "doc": "score [T] fp32"})
    d["params"].append({"name": "score_ptr", "kind": "ptr", "size": 8, "align": 8, "doc": "", "buffer": "score"})
    return Manifest.from_dict(d)


def shapes(T: int, K: int, I: int, E: int) -> Dict[str, Tuple[int, ...]]:  # noqa: E741
    return {"x": (T, K), "W": (E, 2 * I, K), "offs": (E,)}


class PathTest(unittest.TestCase):
    def setUp(self) -> None:
        self.configs = golden_moe()
        self.bf16 = Manifest.from_dict(self.configs[0]["manifest"])
        self.assertEqual(self.configs[0]["name"], "moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong")

    def test_golden_has_configs(self) -> None:
        self.assertEqual(len(self.configs), 4)
        self.assertEqual([len(golden_moe(k, v)) for k, v in (("moe_fwd_gateup", "train"), ("moe_bwd_dswiglu", "out"))], [1, 1])

    def test_paths(self) -> None:
        good = entry(self.bf16, "pkg_moe")
        train = entry(with_de(self.configs[0]["manifest"]), "pkg_train")
        cases = [  # registry, op, arch, dtype -> path, words of why
            (registry(), "moe_gateup", "sm_90a", "bfloat16", REFERENCE, "no moe_fwd_gateup package is registered"),
            (registry(good), "moe_gateup", "sm_90a", "bfloat16", KERNEL, "moe_fwd_gateup from package pkg_moe"),
            (registry(good), "moe_gateup", "sm_90a", "float16", REFERENCE, "no moe_fwd_gateup package"),
            (registry(good), "moe_gateup", "sm_100a", "bfloat16", REFERENCE, "no moe_fwd_gateup package"),
            (registry(good), "moe_gateup_train", "sm_90a", "bfloat16", REFERENCE, "moe_fwd_gateup (train)"),
            # A package with de is the train variant (kinds_gen.MARKERS): the
            # training op launches it, the inference op does not.
            (registry(train), "moe_gateup_train", "sm_90a", "bfloat16", KERNEL, "moe_fwd_gateup (train) from package pkg_train"),
            # With no inference package the inference op runs it too, de dropped.
            (registry(train), "moe_gateup", "sm_90a", "bfloat16", KERNEL,
             "the train kernel, de dropped: moe_fwd_gateup (train) from package pkg_train"),
            (registry(train), "moe_gateup", "sm_90a", "float16", REFERENCE, "no moe_fwd_gateup package"),
            (registry(train, good), "moe_gateup", "sm_90a", "bfloat16", KERNEL, "moe_fwd_gateup from package pkg_moe"),
            (registry(good, train), "moe_gateup", "sm_90a", "bfloat16", KERNEL, "moe_fwd_gateup from package pkg_moe"),
        ]
        for reg, op, arch, dt, want, words in cases:
            with self.subTest(op=op, arch=arch, dtype=dt, packages=list(reg.packages)):
                path, why = moe_plan.registered_path(op, arch, dt, reg)
                self.assertEqual(path, want, why)
                self.assertIn(words, why)


    def test_train_package_alone(self) -> None:
        """Go's moe_fwd_gateup --store-out config (out and de) registered
        alone: swigen::moe_gateup runs it (moe_gateup_train's kernel, de
        dropped); the inference package keeps priority; a registered
        package that cannot launch is refused, not passed over."""
        configs = golden_moe("moe_fwd_gateup", "train")
        self.assertEqual(configs[0]["name"], "moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out")
        train = entry(Manifest.from_dict(configs[0]["manifest"]), "pkg_train")
        self.assertEqual(train.variant, "train")
        good = entry(self.bf16, "pkg_moe")
        # A variant-"" kernel with buffers swigen::moe_gateup does not take.
        unl = entry(with_de(self.configs[0]["manifest"]), "pkg_bad")
        unl = Entry(kernel=unl.kernel, kind=unl.kind, variant="", arch=unl.arch, dtype=unl.dtype, package="pkg_bad")
        d = copy.deepcopy(configs[0]["manifest"])
        d["buffers"].append({"name": "extra", "shape": ["T"]})  # a train kernel of buffers moe_gateup_train does not return
        bad_train = entry(Manifest.from_dict(d), "pkg_bad_train")
        cases = [  # registry -> path, run, words of why
            (registry(train), KERNEL, "moe_gateup_train", "the train kernel, de dropped: moe_fwd_gateup (train) from "
             "package pkg_train (no inference moe_fwd_gateup package is registered)"),
            (registry(train, good), KERNEL, "moe_gateup", "moe_fwd_gateup from package pkg_moe"),
            (registry(unl, train), REFUSED, "moe_gateup", "pkg_bad is registered but cannot be launched"),
            (registry(bad_train), REFUSED, "moe_gateup_train", "the train kernel, de dropped would run: moe_fwd_gateup "
             "(train) from package pkg_bad_train is registered but cannot be launched"),
            (registry(), REFERENCE, "moe_gateup", "--kernel moe_fwd_gateup --store-out (training) runs it too, de dropped"),
        ]
        for reg, want, run, words in cases:
            with self.subTest(packages=list(reg.packages)):
                path, why, got_run = moe_plan.registered_plan("moe_gateup", "sm_90a", "bfloat16", reg)
                self.assertEqual((path, got_run), (want, run), why)
                self.assertIn(words, why)
                self.assertEqual(moe_plan.registered_path("moe_gateup", "sm_90a", "bfloat16", reg), (path, why))
        # What the launch then selects: the train kernel, whose outputs
        # start with moe_gateup's out at moe_gateup's shape.
        T, K, I, E = 300, 256, 136, 8  # noqa: E741
        e, sizes = opspec.select("moe_gateup_train", "sm_90a", "bfloat16", shapes(T, K, I, E), registry(train))
        self.assertEqual(e.package, "pkg_train")
        outs = opspec.output_shapes(e.kernel.manifest, opspec.OPS["moe_gateup_train"].outputs, sizes)
        self.assertEqual(outs, ((T, I), (T, 2 * I)))
        self.assertEqual(opspec.OPS["moe_gateup_train"].outputs[:1], opspec.OPS["moe_gateup"].outputs)

    def test_unregister(self) -> None:
        reg = registry(entry(self.bf16, "pkg_moe"))
        gen = reg.generation
        self.assertEqual(moe_plan.registered_path("moe_gateup", "sm_90a", "bfloat16", reg)[0], KERNEL)
        self.assertTrue(reg.remove_package("pkg_moe"))
        self.assertFalse(reg.remove_package("pkg_moe"))
        self.assertEqual(reg.generation, gen + 1)  # the ops' caches of what a call selected drop
        self.assertEqual(moe_plan.registered_path("moe_gateup", "sm_90a", "bfloat16", reg)[0], REFERENCE)


class ScoreOpsTest(unittest.TestCase):
    """The _score kernels' ops (kinds_gen.SCORE_OPS) on Go's score configs
    (the golden's training forward and backward, and an inference forward
    with the score added as Go adds it): a score package runs only when a
    score is passed, a plain one only when none is; the launch packs Go's
    bytes with the score (and the backward's partials) as float32."""

    def setUp(self) -> None:
        self.train_d = golden_moe("moe_fwd_gateup", "train+score")[0]
        self.bwd_d = golden_moe("moe_bwd_dswiglu", "out+score")[0]
        self.assertEqual([self.train_d["name"], self.bwd_d["name"]],
                         ["moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_score",
                          "moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score"])
        self.train = entry(Manifest.from_dict(self.train_d["manifest"]), "pkg_train_score")
        self.bwd = entry(Manifest.from_dict(self.bwd_d["manifest"]), "pkg_bwd_score")
        self.inf = entry(with_score(golden_moe()[0]["manifest"]), "pkg_score")
        self.plain = entry(Manifest.from_dict(golden_moe()[0]["manifest"]), "pkg_plain")
        self.plain_train = entry(Manifest.from_dict(golden_moe("moe_fwd_gateup", "train")[0]["manifest"]), "pkg_plain_train")
        self.plain_bwd = entry(Manifest.from_dict(golden_moe("moe_bwd_dswiglu", "out")[0]["manifest"]), "pkg_plain_bwd")

    def test_specs_are_the_kernels(self) -> None:
        """Each score kernel's variant is its op's, and the op's inputs and
        outputs are exactly its buffers (the launch's names)."""
        for e, op in ((self.inf, "moe_gateup_score"), (self.train, "moe_gateup_train_score"), (self.bwd, "moe_dswiglu_out_score")):
            with self.subTest(op=op):
                spec = opspec.OPS[op]
                self.assertEqual((e.kind, e.variant), (spec.kind, spec.variant))
                self.assertEqual(moe_plan.GROUPED_KINDS[op], (spec.kind, spec.variant))
                self.assertEqual(spec.unlaunchable(e), "")
                self.assertEqual(spec.inputs[-1], "score")
                self.assertTrue(spec.grouped)
        self.assertEqual(moe_plan.SCORE_OP, {"moe_gateup": "moe_gateup_score", "moe_gateup_train": "moe_gateup_train_score",
                                             "moe_dswiglu_out": "moe_dswiglu_out_score"})

    def test_paths(self) -> None:
        bad = copy.deepcopy(self.bwd_d["manifest"])
        bad["buffers"] = [b for b in bad["buffers"] if b["name"] != "dscore_part"]
        bad["params"] = [p for p in bad["params"] if p.get("buffer") != "dscore_part"]
        bad_bwd = entry(Manifest.from_dict(bad), "pkg_bad")
        cases = [  # registry, op -> path, words of why
            (registry(self.inf), "moe_gateup_score", KERNEL, "moe_fwd_gateup (+score) from package pkg_score"),
            # A score kernel never stands in for a plain one, nor a plain one for a score one.
            (registry(self.inf), "moe_gateup", REFERENCE, "no moe_fwd_gateup package is registered"),
            (registry(self.plain), "moe_gateup_score", REFERENCE, "no moe_fwd_gateup (+score) package is registered (emit one "
             "with swigen emit --kernel moe_fwd_gateup --score --py-package NAME and register it); a package of --kernel "
             "moe_fwd_gateup --store-out --score (training) runs it too, de dropped"),
            (registry(self.plain), "moe_gateup", KERNEL, "from package pkg_plain"),
            # With no inference score package, the training one's kernel, de dropped.
            (registry(self.train), "moe_gateup_score", KERNEL, "the train kernel, de dropped: moe_fwd_gateup (train+score) "
             "from package pkg_train_score"),
            (registry(self.train, self.inf), "moe_gateup_score", KERNEL, "moe_fwd_gateup (+score) from package pkg_score"),
            (registry(self.train), "moe_gateup_train_score", KERNEL, "(train+score) from package pkg_train_score"),
            (registry(self.train), "moe_gateup_train", REFERENCE, "no moe_fwd_gateup (train) package"),
            (registry(self.plain_train, self.train), "moe_gateup_train", KERNEL, "from package pkg_plain_train"),
            (registry(self.plain_train, self.train), "moe_gateup_train_score", KERNEL, "from package pkg_train_score"),
            (registry(self.bwd), "moe_dswiglu_out_score", KERNEL, "moe_bwd_dswiglu (out+score) from package pkg_bwd_score"),
            (registry(self.bwd), "moe_dswiglu_out", REFERENCE, "no moe_bwd_dswiglu (out) package"),
            (registry(self.plain_bwd), "moe_dswiglu_out_score", REFERENCE,
             "swigen emit --kernel moe_bwd_dswiglu --store-out --score --py-package NAME and register it)"),
            (registry(bad_bwd), "moe_dswiglu_out_score", REFUSED, "from package pkg_bad is registered but cannot be "
             "launched: %s's buffers are W_down, de, dy, grad_de, offs, out, score, swigen::moe_dswiglu_out_score takes "
             "dy, W_down, de, offs, score and returns grad_de, out, dscore_part" % self.bwd.name),
        ]
        for reg, op, want, words in cases:
            with self.subTest(op=op, packages=list(reg.packages)):
                path, why = moe_plan.registered_path(op, "sm_90a", "bfloat16", reg)
                self.assertEqual(path, want, why)
                self.assertIn(words, why)

    def test_no_wheel_score(self) -> None:
        """No wheel ships a _score kernel: with only the wheel, the score
        ops run the reference, naming how to emit one."""
        with tempfile.TemporaryDirectory() as d:
            b = wheel_bundle(d)
            for op in ("moe_gateup_score", "moe_gateup_train_score", "moe_dswiglu_out_score"):
                with self.subTest(op=op):
                    path, why = moe_plan.registered_path(op, "sm_90a", "bfloat16", registry(), b)
                    self.assertEqual(path, REFERENCE, why)
                    self.assertIn("--score --py-package NAME", why)
                    self.assertNotIn("wheel", why)
            self.assertEqual(moe_plan.registered_path("moe_gateup", "sm_90a", "bfloat16", registry(), b)[0], KERNEL)

    def test_select(self) -> None:
        """Sizes from the op's inputs, score [T] among them; the outputs'
        shapes, dscore_part [T, cdiv(I, TileN)] with TileN = 128."""
        for counts, K, I in [([0, 37, 0, 0, 256, 5, 0, 90], 264, 200), ([1] * 6, 72, 136), ([300], 1032, 264)]:  # noqa: E741
            T, E = sum(counts), len(counts)
            cols = -(-I // 128)
            with self.subTest(counts=counts, I=I):
                sh = {"dy": (T, K), "W_down": (E, K, I), "de": (T, 2 * I), "offs": (E,), "score": (T,)}
                e, sizes = opspec.select("moe_dswiglu_out_score", "sm_90a", "bfloat16", sh, registry(self.plain_bwd, self.bwd))
                self.assertEqual((e.name, sizes), (self.bwd.name, {"T": T, "K": K, "I": I, "E": E}))
                self.assertEqual(opspec.output_shapes(e.kernel.manifest, opspec.OPS["moe_dswiglu_out_score"].outputs, sizes),
                                 ((T, 2 * I), (T, I), (T, cols)))
                sh = dict(shapes(T, K, I, E), score=(T,))
                e, sizes = opspec.select("moe_gateup_train_score", "sm_90a", "bfloat16", sh, registry(self.plain_train, self.train))
                self.assertEqual((e.name, sizes), (self.train.name, {"T": T, "K": K, "I": I, "E": E}))
        cases = [  # op, shapes, registry -> words
            ("moe_gateup_score", dict(shapes(10, 64, 64, 2), score=(11,)), registry(self.inf), "size T: tensor x says 10, tensor score says 11"),
            ("moe_gateup_score", shapes(10, 64, 64, 2), registry(self.inf), "inputs score not given"),
            ("moe_gateup_score", dict(shapes(10, 64, 64, 2), score=(10,)), registry(self.plain),
             "no moe_fwd_gateup (+score) kernel for sm_90a and bfloat16 is registered: import a package emitted with "
             "swigen emit --py-package NAME --kernel moe_fwd_gateup --score --arch sm_90a"),
            ("moe_dswiglu_out_score", {"dy": (10, 64), "W_down": (2, 64, 64), "de": (10, 128), "offs": (2,), "score": (10,)},
             registry(), "swigen emit --py-package NAME --kernel moe_bwd_dswiglu --store-out --score --arch sm_90a"),
        ]
        for op, sh, reg, words in cases:
            with self.subTest(op=op, words=words):
                with self.assertRaises(ValueError) as cm:
                    opspec.select(op, "sm_90a", "bfloat16", sh, reg)
                self.assertIn("swigen::%s" % op, str(cm.exception))
                self.assertIn(words, str(cm.exception))

    def test_launch_bytes_equal_go(self) -> None:
        """The op's tensors (bf16, offs int32, its fp32 buffers float32) at
        Go's addresses pack Go's parameter bytes: score_ptr, and the
        backward's dscore_ptr, from the tensors the op passes."""
        n = 0
        for c, op in ((self.train_d, "moe_gateup_train_score"), (self.bwd_d, "moe_dswiglu_out_score")):
            m = Manifest.from_dict(c["manifest"])
            spec = opspec.OPS[op]
            names = spec.inputs + spec.outputs
            self.assertEqual(sorted(names), sorted(b.name for b in m.buffers))
            for want in c["launches"]:
                if "error" in want:
                    continue
                with self.subTest(config=c["name"], counts=want["counts"]):
                    sizes, bufs = want["sizes"], want["buffers"]

                    def fake(n: str, sh: Tuple[int, ...]) -> support.FakeTensor:
                        if n == "offs":
                            return support.FakeTensor(sh, bufs[n], dtype="torch.int32", elem=4)
                        if n in spec.fp32:
                            return support.FakeTensor(sh, bufs[n], dtype="torch.float32", elem=4)
                        return support.FakeTensor(sh, bufs[n])

                    tensors = {n: fake(n, sh) for n, sh in zip(names, opspec.output_shapes(m, names, sizes))}
                    ptrs, _ = check_tensors(m, tensors, sizes)
                    sized = plan_sizes(m, sizes, Device(sms=132))
                    p = sized.at(ptrs)
                    params = p.packed([bytes([j + 1]) * 128 for j in range(len(p.maps))])
                    # The launcher packs by name from the op's order of buffers.
                    pack_pointers(m.name, params, p.offsets, sized.pointers, dict(zip(names, [ptrs[n] for n in names])))
                    self.assertEqual(params.hex(), want["params_hex"])
                    n += 1
        self.assertEqual(n, 2 * 4)


class SelectTest(unittest.TestCase):
    def setUp(self) -> None:
        self.configs = golden_moe()
        self.ms = [Manifest.from_dict(c["manifest"]) for c in self.configs]
        self.reg = registry(*[entry(m, "pkg%d" % i) for i, m in enumerate(self.ms)])

    def test_sizes_and_outputs(self) -> None:
        for counts, K, I in [([0, 37, 0, 0, 256, 5, 0, 90], 264, 200), ([1] * 6, 72, 136), ([300], 1032, 264)]:  # noqa: E741
            T, E = sum(counts), len(counts)
            for dt in ("bfloat16", "float16"):
                with self.subTest(counts=counts, dtype=dt):
                    e, sizes = opspec.select("moe_gateup", "sm_90a", dt, shapes(T, K, I, E), self.reg)
                    self.assertEqual(e.dtype, dt)
                    self.assertEqual(sizes, {"T": T, "K": K, "I": I, "E": E})
                    self.assertEqual(opspec.output_shapes(e.kernel.manifest, ["out"], sizes), ((T, I),))

    def test_bad_inputs_name_the_field(self) -> None:
        T, K, I, E = 100, 64, 64, 4  # noqa: E741
        cases = [  # shapes, dtype, registry -> words
            ({"x": (T, K), "W": (E, 2 * I, K), "offs": (E + 1,)}, "bfloat16", None,
             "size E: tensor W says 4, tensor offs says 5"),
            ({"x": (T, K), "W": (E, 2 * I + 2, K), "offs": (E,)}, "bfloat16", None, "I=65: must be a positive multiple of 8"),
            ({"x": (T, K), "W": (E, 2 * I, K + 8), "offs": (E,)}, "bfloat16", None, "size K: tensor x says 64, tensor W says 72"),
            (shapes(T, 12, I, E), "bfloat16", None, "K=12: must be a positive multiple of 8"),
            (shapes(0, K, I, E), "bfloat16", None, "T=0: must be >= 1"),
            ({"x": (T, K), "W": (E, 2 * I, K)}, "bfloat16", None, "inputs offs not given"),
            (shapes(T, K, I, E), "float32", None, "no moe_fwd_gateup kernel for sm_90a and float32 is registered"),
            (shapes(T, K, I, E), "bfloat16", registry(), "swigen emit --py-package NAME --kernel moe_fwd_gateup --arch sm_90a"),
            (shapes(T, K, I, E), "bfloat16", registry(entry(with_de(self.configs[0]["manifest"]), "p")),
             "no moe_fwd_gateup kernel for sm_90a and bfloat16 is registered"),
        ]
        for sh, dt, reg, words in cases:
            with self.subTest(shapes=sh, dtype=dt):
                with self.assertRaises(ValueError) as cm:
                    opspec.select("moe_gateup", "sm_90a", dt, sh, self.reg if reg is None else reg)
                self.assertIn("swigen::moe_gateup", str(cm.exception))
                self.assertIn(words, str(cm.exception))


class MoeDownTest(unittest.TestCase):
    """swigen::moe_down on a moe_gemm package: W_down [E, H, I] is its
    K-major B (B [E, N, K]: N = H, K = I); an _bmn package (B [E, K, N])
    is refused, not run transposed."""

    def setUp(self) -> None:
        configs = golden_moe("moe_gemm")
        self.assertEqual([c["name"] for c in configs], ["moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong"])
        self.d = configs[0]["manifest"]
        self.good = entry(Manifest.from_dict(self.d), "pkg_gemm")
        d = copy.deepcopy(self.d)
        d["name"] += "_bmn"
        for b in d["buffers"]:
            if b["name"] == "B":
                b["shape"] = ["E", "K", "N"]
        self.bmn = entry(Manifest.from_dict(d), "pkg_bmn")

    def test_paths(self) -> None:
        cases = [  # registry, arch -> path, words of why
            (registry(), "sm_90a", REFERENCE, "no moe_gemm package is registered (emit one with swigen emit --kernel moe_gemm "),
            (registry(self.good), "sm_90a", KERNEL, "moe_gemm from package pkg_gemm"),
            (registry(self.good), "sm_100a", REFERENCE, "no moe_gemm package"),
            (registry(self.bmn), "sm_90a", REFUSED, "B is [E, K, N]: swigen::moe_down wants [E, N, K]"),
            (registry(self.bmn, self.good), "sm_90a", KERNEL, "moe_gemm from package pkg_gemm"),
        ]
        for reg, arch, want, words in cases:
            with self.subTest(packages=list(reg.packages), arch=arch):
                path, why = moe_plan.registered_path("moe_down", arch, "bfloat16", reg)
                self.assertEqual(path, want, why)
                self.assertIn(words, why)

    def test_layout_why(self) -> None:
        self.assertEqual(moe_plan.layout_why("moe_down", self.good.kernel.manifest.buffers, "k"), "")
        self.assertIn("k's B is [E, K, N]", moe_plan.layout_why("moe_down", self.bmn.kernel.manifest.buffers, "k"))
        self.assertIn("k's B is []", moe_plan.layout_why("moe_down", (), "k"))
        # Only moe_down's weight has a layout rule.
        self.assertEqual(moe_plan.layout_why("moe_gateup", self.bmn.kernel.manifest.buffers, "k"), "")

    def test_sizes(self) -> None:
        """Sizes from out [T, I], W_down [E, H, I], offs [E]: N = H, K = I;
        C [T, H]."""
        reg = registry(self.good)
        for counts, H, I in [([0, 37, 0, 0, 256, 5, 0, 90], 264, 200), ([1] * 6, 72, 136), ([300], 1032, 264)]:  # noqa: E741
            T, E = sum(counts), len(counts)
            with self.subTest(counts=counts, H=H, I=I):
                e, sizes = opspec.select("moe_down", "sm_90a", "bfloat16", {"A": (T, I), "B": (E, H, I), "offs": (E,)}, reg)
                self.assertEqual(e.name, self.good.name)
                self.assertEqual(sizes, {"T": T, "N": H, "K": I, "E": E})
                self.assertEqual(opspec.output_shapes(e.kernel.manifest, ["C"], sizes), ((T, H),))
        with self.assertRaisesRegex(ShapeError, "size K"):
            opspec.select("moe_down", "sm_90a", "bfloat16", {"A": (8, 64), "B": (2, 128, 72), "offs": (2,)}, reg)


class MoeWgradTest(unittest.TestCase):
    """swigen::moe_wgrad on a moe_wgrad package: A [T, N] and B [T, K]
    give dW [E, N, K]; sm_90a only."""

    def setUp(self) -> None:
        configs = golden_moe("moe_wgrad")
        self.assertEqual([c["name"] for c in configs], ["moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn"])
        self.good = entry(Manifest.from_dict(configs[0]["manifest"]), "pkg_wgrad")

    def test_paths(self) -> None:
        cases = [  # registry, arch -> path, words of why
            (registry(), "sm_90a", REFERENCE, "no moe_wgrad package is registered (emit one with swigen emit --kernel moe_wgrad "),
            (registry(self.good), "sm_90a", KERNEL, "moe_wgrad from package pkg_wgrad"),
            (registry(self.good), "sm_100a", REFERENCE, "no moe_wgrad package"),
        ]
        for reg, arch, want, words in cases:
            with self.subTest(packages=list(reg.packages), arch=arch):
                path, why = moe_plan.registered_path("moe_wgrad", arch, "bfloat16", reg)
                self.assertEqual(path, want, why)
                self.assertIn(words, why)

    def test_sizes(self) -> None:
        """Sizes from A [T, N], B [T, K], offs [E]; dW [E, N, K]."""
        reg = registry(self.good)
        for counts, N, K in [([0, 37, 0, 0, 256, 5, 0, 90], 200, 264), ([1] * 6, 136, 72), ([300], 264, 1032)]:
            T, E = sum(counts), len(counts)
            with self.subTest(counts=counts, N=N, K=K):
                e, sizes = opspec.select("moe_wgrad", "sm_90a", "bfloat16", {"A": (T, N), "B": (T, K), "offs": (E,)}, reg)
                self.assertEqual(e.name, self.good.name)
                self.assertEqual(sizes, {"T": T, "N": N, "K": K, "E": E})
                self.assertEqual(opspec.output_shapes(e.kernel.manifest, ["dW"], sizes), ((E, N, K),))
        with self.assertRaisesRegex(ShapeError, "K=68: must be a positive multiple of 8"):
            opspec.select("moe_wgrad", "sm_90a", "bfloat16", {"A": (8, 64), "B": (8, 68), "offs": (2,)}, reg)

    def test_shape_rules(self) -> None:
        self.assertEqual(moe_plan.check_wgrad_shapes("moe_wgrad", (10, 16), (10, 24), (3,)), (10, 16, 24, 3))
        for A, B, offs, words in [((10, 16), (9, 24), (3,), "want A [T, N] and B [T, K]"),
                                  ((10, 16, 1), (10, 24), (3,), "want A [T, N] and B [T, K]"),
                                  ((10, 12), (10, 24), (3,), "N=12, K=24: want positive multiples of 8"),
                                  ((10, 16), (10, 24), (0,), "offs is [0]: want [E], E >= 1"),
                                  ((10, 16), (10, 24), (3, 1), "offs is [3, 1]")]:
            with self.subTest(A=A, B=B, offs=offs):
                with self.assertRaisesRegex(ValueError, "swigen::moe_wgrad: .*" + words.replace("[", r"\[").replace("]", r"\]")):
                    moe_plan.check_wgrad_shapes("moe_wgrad", A, B, offs)


class ManifestTest(unittest.TestCase):
    """The grouped manifest's own fields broken (test_malformed walks every
    field's types): a ManifestError naming the parameter and the rule."""

    def test_bad_pointer_params(self) -> None:
        base = golden_moe()[0]["manifest"]
        names = [p["name"] for p in base["params"]]
        offs, e = names.index("offs"), names.index("E")
        cases: List[Tuple[str, Any, str]] = [  # what, edit, words
            ("offs to an unlisted buffer", lambda d: d["params"][offs].update(buffer="offsets"),
             'parameter %d (offs): pointer to buffer "offsets", which is not listed' % offs),
            ("offs of 4 bytes", lambda d: d["params"][offs].update(size=4), "parameter %d (offs): size 4: a ptr is 8 bytes" % offs),
            ("offs buffer dropped", lambda d: d["buffers"].pop([b["name"] for b in d["buffers"]].index("offs")),
             'parameter %d (offs): pointer to buffer "offs", which is not listed' % offs),
            ("E without a value", lambda d: d["params"][e].pop("value"), "parameter %d (E): an i32 without a value" % e),
            ("size E dropped", lambda d: d["sizes"].remove("E"), 'parameter %d (E): expression "E": size E not given' % e),
        ]
        for what, edit, words in cases:
            with self.subTest(what):
                d = copy.deepcopy(base)
                edit(d)
                with self.assertRaises(ValueError) as cm:
                    Manifest.from_dict(d)
                self.assertIn(words, str(cm.exception))


class LaunchArgsTest(unittest.TestCase):
    """What a launch of the op packs (swigen_rt.kernel's _prepare: the
    sized plan, each map's descriptor, then the pointer slots from the
    checked tensors' addresses) is Go's bytes, with offs passed by address."""

    def test_params_equal_go(self) -> None:
        n = 0
        for c in golden_moe(""):
            m = Manifest.from_dict(c["manifest"])
            names = [b.name for b in m.buffers]
            for want in c["launches"]:
                if "error" in want:
                    continue
                with self.subTest(config=c["name"], counts=want["counts"]):
                    sizes, bufs = want["sizes"], want["buffers"]
                    dt = "torch.%s" % c["manifest"]["params"][0]["map"]["dtype"]
                    tensors = {n: support.FakeTensor(sh, bufs[n], dtype="torch.int32", elem=4) if n == "offs"
                               else support.FakeTensor(sh, bufs[n], dtype=dt)
                               for n, sh in zip(names, opspec.output_shapes(m, names, sizes))}
                    ptrs, dev = check_tensors(m, tensors, sizes)
                    self.assertEqual((ptrs, dev), (bufs, 0))
                    p = plan_sizes(m, sizes, Device(sms=132)).at(ptrs)
                    params = p.packed([bytes([j + 1]) * 128 for j in range(len(p.maps))])
                    pack_pointers(m.name, params, p.offsets, plan_sizes(m, sizes, Device(sms=132)).pointers, ptrs)
                    self.assertEqual(params.hex(), want["params_hex"])
                    self.assertEqual(list(p.grid), want["grid"])
                    n += 1
        # 4 inference, 1 training, 1 backward config, training and backward
        # with the router score, moe_gemm (moe_down's) and moe_wgrad
        # (moe_wgrad's); 4 routings each.
        self.assertEqual(n, 10 * 4)

    def test_tensor_errors_name_the_tensor(self) -> None:
        m = Manifest.from_dict(golden_moe()[0]["manifest"])
        sizes = {"T": 10, "K": 64, "I": 64, "E": 3}

        def tensors(**over: Any) -> Dict[str, Any]:
            t = {"x": support.FakeTensor((10, 64), 1 << 20), "W": support.FakeTensor((3, 128, 64), 2 << 20),
                 "offs": support.FakeTensor((3,), 3 << 20, dtype="torch.int32", elem=4),
                 "out": support.FakeTensor((10, 64), 4 << 20)}
            t.update(over)
            return {k: v for k, v in t.items() if v is not None}

        cases: List[Tuple[Dict[str, Any], str]] = [  # replaced tensors -> words
            ({"offs": None}, "tensor offs not given"),
            ({"offs": support.FakeTensor((4,), 3 << 20, dtype="torch.int32", elem=4)}, "tensor offs has shape [4], want [E] = [3]"),
            ({"offs": support.FakeTensor((3,), (3 << 20) + 4, dtype="torch.int32", elem=4)}, "tensor offs at 0x300004 is not 16-byte aligned"),
            ({"offs": support.FakeTensor((3,), 3 << 20, dtype="torch.int32", elem=4, device=support.FakeDevice("cuda", 1))},
             "tensor offs is on cuda:1, tensor x on cuda:0"),
            ({"x": support.FakeTensor((10, 64), 1 << 20, dtype="torch.float16")}, "tensor x is float16: the kernel reads bfloat16"),
        ]
        for over, words in cases:
            with self.subTest(words=words):
                with self.assertRaises(ShapeError) as cm:
                    check_tensors(m, tensors(**over), sizes)
                self.assertIn(words, str(cm.exception))


def wheel_bundle(directory: str) -> Bundle:
    """A swigen_kernels bundle in directory as swigen wheel lays it out for
    the grouped ops on sm_90a bf16: select.json's selections of them, each
    config's manifest from the launch golden, a placeholder cubin."""
    with open(os.path.join(support.TESTDATA, "select.json"), encoding="utf-8") as f:
        table = json.load(f)["table"]
    table["selection"] = [s for s in table["selection"]
                          if s["kernel"] in kinds_gen.GROUPED and (s["arch"], s["dtype"]) == ("sm_90a", "bf16")]
    want = {b["config"] for s in table["selection"] for b in s["rules"]}
    cubin = b"\0"
    kernels = []
    for c in golden_moe(""):
        if c["name"] not in want:
            continue
        with open(os.path.join(directory, c["name"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(c["manifest"], f)
        with open(os.path.join(directory, c["name"] + ".sm_90a.cubin"), "wb") as f:
            f.write(cubin)
        kernels.append({"name": c["name"], "kernel": c["manifest"]["kernel"], "arch": "sm_90a", "manifest": c["name"] + ".json",
                        "cubin": c["name"] + ".sm_90a.cubin", "sha256": hashlib.sha256(cubin).hexdigest()})
    return Bundle(directory, {"format": "swigen-bundle-v1", "runtime_version": 1, "version": "0", "toolchain": "",
                              "arches": [{"arch": "sm_90a", "compile_only": False}], "selection": table,
                              "kernels": kernels, "elementwise": [], "dispatch": []})


class WheelTest(unittest.TestCase):
    """The grouped ops on the installed wheel's kernels (swigen wheel ships
    one config per op variant) where no package is registered: the path
    names the wheel, opspec.select takes its kernel; a registered
    package, launchable or not, comes first."""

    WANT = {"moe_gateup": "moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
            "moe_gateup_train": "moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
            "moe_dswiglu_out": "moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out"}

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.b = wheel_bundle(self.tmp.name)
        self.good = entry(Manifest.from_dict(golden_moe()[0]["manifest"]), "pkg_moe")

    def test_paths(self) -> None:
        bad = entry(with_de(golden_moe()[0]["manifest"]), "pkg_bad")
        bad.variant = ""  # a de buffer the inference op does not take
        cases = [  # registry, op, dtype -> path, words of why
            (registry(), "moe_gateup", "bfloat16", KERNEL, "moe_fwd_gateup from package swigen_kernels (the installed wheel: %s)"
             % self.WANT["moe_gateup"]),
            (registry(), "moe_gateup_train", "bfloat16", KERNEL, "(train) from package swigen_kernels (the installed wheel: %s)"
             % self.WANT["moe_gateup_train"]),
            (registry(), "moe_dswiglu_out", "bfloat16", KERNEL, "(out) from package swigen_kernels (the installed wheel: %s)"
             % self.WANT["moe_dswiglu_out"]),
            (registry(), "moe_gateup", "float16", REFERENCE, "no moe_fwd_gateup package"),
            (registry(self.good), "moe_gateup", "bfloat16", KERNEL, "from package pkg_moe"),
            (registry(self.good), "moe_gateup_train", "bfloat16", KERNEL, "from package swigen_kernels"),
            (registry(bad), "moe_gateup", "bfloat16", REFUSED, "pkg_bad is registered but cannot be launched"),
        ]
        for reg, op, dt, want, words in cases:
            with self.subTest(op=op, dtype=dt, packages=list(reg.packages)):
                path, why = moe_plan.registered_path(op, "sm_90a", dt, reg, self.b)
                self.assertEqual(path, want, why)
                self.assertIn(words, why)
        # No bundle given with a registry of its own: the installed wheel is not asked.
        self.assertEqual(moe_plan.registered_path("moe_gateup", "sm_90a", "bfloat16", registry())[0], REFERENCE)

    def test_select(self) -> None:
        T, K, I, E = 300, 264, 200, 8  # noqa: E741
        given = {"moe_gateup": shapes(T, K, I, E), "moe_gateup_train": shapes(T, K, I, E),
                 "moe_dswiglu_out": {"dy": (T, K), "W_down": (E, K, I), "de": (T, 2 * I), "offs": (E,)}}
        with mock.patch.object(select, "_bundle", self.b), mock.patch.object(select, "_bundle_looked", True):
            for op, sh in given.items():
                with self.subTest(op=op):
                    e, sizes = opspec.select(op, "sm_90a", "bfloat16", sh)
                    self.assertEqual((e.name, e.package), (self.WANT[op], "swigen_kernels"))
                    self.assertEqual(sizes, {"T": T, "K": K, "I": I, "E": E})
            with self.assertRaisesRegex(ValueError, "swigen::moe_gateup: .*T=0: must be >= 1"):
                opspec.select("moe_gateup", "sm_90a", "bfloat16", shapes(0, K, I, E))
            with self.assertRaisesRegex(ValueError, "no moe_fwd_gateup kernel for sm_90a and float16 is registered"):
                opspec.select("moe_gateup", "sm_90a", "float16", shapes(T, K, I, E))
            # A registered package takes precedence.
            with mock.patch.object(opspec, "REGISTRY", registry(self.good)):
                e, _ = opspec.select("moe_gateup", "sm_90a", "bfloat16", shapes(T, K, I, E))
                self.assertEqual(e.package, "pkg_moe")


if __name__ == "__main__":
    unittest.main()

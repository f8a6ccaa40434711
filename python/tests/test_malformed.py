"""Malformed manifests and dispatch plans: every one a ValueError naming the field.

The cases are generated from valid documents (the pinned manifests under
manifest/testdata and a plan like an emitted one): every field of the
document, walked from the JSON itself (not from the runtime's schema, so a
field the schema forgot is still mutated), is deleted, set to null, given
a value of each wrong JSON type and nested 60 deep; every expression is
nested 1000 deep; every key position nests 100k deep in the text. Each
case must raise a ValueError (ManifestError, PlanError) whose message names
the field, never another exception; the few mutations that leave a valid
document (an optional field deleted) must parse. A targeted table adds the
ranges: launch fields beyond 32 bits, alignments, TMA's box and element
strides, names that would make paths.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import unittest
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import support
from swigen_rt import expr
from swigen_rt.dispatch import DispatchPlan, PlanError
from swigen_rt.manifest import Device, Manifest, ManifestError
from swigen_rt.plan import plan_sizes

MANIFESTS = os.path.join(support.REPO_DIR, "manifest", "testdata")
PINNED = ("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
          "fwd_down_sm100a_bf16_m128n128k64_s6_c1x2_1cta_bmn_res_clc")

# Keys whose absence (or null) leaves a valid manifest: Go writes them
# omitempty or the runtime defaults them.
OPTIONAL = {"doc", "config_hash", "max_ctas_per_sm", "probe", "message", "min", "multiple", "ctas_per_tile",
            "scheduler", "shape_rules", "force", "rule", "points"}

DEEP = 60  # within the JSON depth limit (64): the field's type check must stop it
WRONG: Dict[type, Tuple[Any, ...]] = {
    int: ("7", 1.5, True, [], {}, 1 << 70, -(1 << 70)),
    str: (7, 1.5, True, [], {}),
    list: ({}, "x", 7, True),
    dict: ([], "x", 7, True),
}

Path = Tuple[Any, ...]  # keys and indices from the document's root


def dotted(path: Path) -> str:
    """A path as the runtime's messages write it: params[2].map.box[0]."""
    out = ""
    for k in path:
        out += "[%d]" % k if isinstance(k, int) else ("." + k if out else k)
    return out


def go_name(path: Path, doc: Dict[str, Any]) -> Optional[str]:
    """How validate (Go's wording) names the thing a path lies in."""
    if len(path) >= 2 and path[0] == "params":
        return "parameter %d (" % path[1]
    if len(path) >= 2 and path[0] == "buffers":
        return "buffer %s" % doc["buffers"][path[1]]["name"]
    if len(path) >= 1 and path[0] == "shape_rules":
        return "shape rule"
    if len(path) >= 1 and path[0] == "grid":
        return "grid"
    return None


def walk(v: Any, path: Path = ()) -> Iterator[Path]:
    """Every node's path below the root (objects' keys, lists' entries)."""
    if isinstance(v, dict):
        for k in v:
            yield path + (k,)
            yield from walk(v[k], path + (k,))
    elif isinstance(v, list):
        for i, e in enumerate(v):
            yield path + (i,)
            yield from walk(e, path + (i,))


def get(doc: Any, path: Path) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


def pinned_doc(name: str) -> Dict[str, Any]:
    """A pinned manifest without its config (not read by the runtime, and
    most of the document: each case copies the rest)."""
    with open(os.path.join(MANIFESTS, name + ".json"), encoding="utf-8") as f:
        d: Dict[str, Any] = json.load(f)
    del d["config"]
    return d


Case = Tuple[str, Callable[[Any], None], Optional[Path], bool]  # name, edit, field (None: the text), valid


def set_at(path: Path, value: Any) -> Callable[[Any], None]:
    def edit(d: Any) -> None:
        get(d, path[:-1])[path[-1]] = copy.deepcopy(value)
    return edit


def delete_at(path: Path) -> Callable[[Any], None]:
    def edit(d: Any) -> None:
        del get(d, path[:-1])[path[-1]]
    return edit


def mutations(doc: Dict[str, Any]) -> List[Case]:
    """The generated cases of doc: per node, deleted (object keys), null,
    each wrong type, nested deep; per expression, nested 1000 deep."""
    cases: List[Case] = []
    for path in walk(doc):
        v = get(doc, path)
        name = dotted(path)
        if isinstance(path[-1], str):
            ok = path[-1] in OPTIONAL
            cases.append(("%s deleted" % name, delete_at(path), path, ok))
            cases.append(("%s null" % name, set_at(path, None), path, ok))
        t = bool if isinstance(v, bool) else type(v)
        for w in WRONG.get(t, ()):
            cases.append(("%s = %s" % (name, json.dumps(w)[:20]), set_at(path, w), path, False))
        if t in (list, dict):
            cases.append(("%s nested %d deep" % (name, DEEP), set_at(path, nested(DEEP)), path, False))
        if t is str and _is_expr(path):
            cases.append(("%s nested 1000 deep" % name, set_at(path, "(" * 1000 + v + ")" * 1000), path, False))
    return cases


def _is_expr(path: Path) -> bool:
    last = [k for k in path if isinstance(k, str)][-1]
    return last in ("shape", "dims", "strides", "value", "size", "tiles") and path[0] != "sizes"


class GeneratedTest(unittest.TestCase):
    """The generated cases over the pinned manifests and a plan."""

    def check_case(self, parse: Callable[[Any], Any], doc: Any, case: Case, err: type) -> None:
        name, edit, path, valid = case
        d = copy.deepcopy(doc)
        edit(d)
        if valid:
            parse(d)
            return
        with self.assertRaises(ValueError) as cm:
            parse(d)
        self.assertIsInstance(cm.exception, err)
        msg = str(cm.exception)
        assert path is not None
        want = [dotted(path), dotted(path[:-1]) + (": missing %r" % path[-1] if isinstance(path[-1], str) else "")]
        g = go_name(path, doc)
        if g is not None:
            want.append(g)
        self.assertTrue(any(w and w in msg for w in want), "%s: %r names none of %s" % (name, msg, want))

    def test_manifests(self) -> None:
        n = 0
        for pinned in PINNED:
            doc = pinned_doc(pinned)
            Manifest.from_dict(doc)  # the base is valid
            for case in mutations(doc):
                with self.subTest(manifest=pinned, case=case[0]):
                    self.check_case(Manifest.from_dict, doc, case, ManifestError)
                n += 1
        self.assertGreaterEqual(n, 600)

    def test_grouped_manifest(self) -> None:
        """A grouped kind's manifest (moe_fwd_gateup: the offs and out
        pointers, E), as Go wrote it into the sm_90a launch golden."""
        with open(os.path.join(support.TESTDATA, "golden_sm_90a.json"), encoding="utf-8") as f:
            g = json.load(f)
        doc = next(c["manifest"] for c in g["configs"] if c["manifest"]["kernel"] == "moe_fwd_gateup")
        del doc["config"]
        Manifest.from_dict(doc)
        self.assertIn("ptr", [p["kind"] for p in doc["params"]])
        n = 0
        for case in mutations(doc):
            with self.subTest(manifest=doc["name"], case=case[0]):
                self.check_case(Manifest.from_dict, doc, case, ManifestError)
            n += 1
        self.assertGreaterEqual(n, 400)

    def test_plans(self) -> None:
        doc = {"fused": "f", "gemm": "g", "elementwise": "e.cubin", "rule": "r", "force": "",
               "points": [{"shape": {"M": 128, "K": 64, "I": 64}, "path": "unfused", "unfused_speedup": 1.2},
                          {"shape": {"M": 4096, "K": 64, "I": 64}, "path": "fused"}]}
        DispatchPlan.from_dict(doc)
        cases = mutations(doc)
        for case in cases:
            with self.subTest(case=case[0]):
                self.check_case(DispatchPlan.from_dict, doc, case, PlanError)
        self.assertGreaterEqual(len(cases), 60)

    def test_text_nested_100k_deep(self) -> None:
        # Every top-level value replaced, in the text, by 100k nested arrays
        # (or objects): refused before json's recursive parser sees it.
        doc = bwd()
        for key in doc:
            for open_, close in (("[", "]"), ('{"a":', "}")):
                d = dict(doc)
                d[key] = "@@"
                text = json.dumps(d).replace('"@@"', open_ * 100000 + "1" + close * 100000)
                with self.subTest(key=key, open=open_):
                    with self.assertRaisesRegex(ManifestError, "JSON nested deeper than 64"):
                        Manifest.from_json(text)
        for parse, err in ((DispatchPlan.from_json, PlanError), (Manifest.from_json, ManifestError)):
            with self.assertRaisesRegex(err, "nested deeper"):
                parse("[" * 100000 + "]" * 100000)
            with self.assertRaisesRegex(err, "nested deeper"):
                parse('{"a":' * 100000 + "1" + "}" * 100000)


def bwd() -> Dict[str, Any]:
    return pinned_doc(PINNED[0])


def edit(**kv: Any) -> Callable[[Dict[str, Any]], None]:
    return lambda d: d.update(copy.deepcopy(kv))


def at(path: str, value: Any) -> Callable[[Dict[str, Any]], None]:
    """Sets the value at a dotted path (params[0].map.box)."""
    keys: List[Any] = [int(k) if k.isdigit() else k for k in re.findall(r"[A-Za-z_0-9]+", path)]
    return set_at(tuple(keys), value)


# Targeted: (name, edit, what the message must contain).
RANGES: List[Tuple[str, Callable[[Dict[str, Any]], None], str]] = [
    ("block_threads 0", edit(block_threads=0), "block_threads = 0: want an integer in [1, 1024]"),
    ("block_threads 1025", edit(block_threads=1025), "block_threads = 1025"),
    ("block_threads 2^32", edit(block_threads=1 << 32), "block_threads = 4294967296"),
    ("block_threads 10^6000", edit(block_threads=10 ** 6000), "block_threads = an integer of 19932 bits"),
    ("block_threads 2^32+384 (wraps to 384)", edit(block_threads=(1 << 32) + 384), "block_threads = 4294967680"),
    ("dynamic_smem_bytes -1", edit(dynamic_smem_bytes=-1), "dynamic_smem_bytes = -1"),
    ("dynamic_smem_bytes 2^31", edit(dynamic_smem_bytes=1 << 31), "dynamic_smem_bytes = 2147483648: want an integer in [0, 2147483647]"),
    ("dynamic_smem_bytes 2^32", edit(dynamic_smem_bytes=1 << 32), "dynamic_smem_bytes = 4294967296"),
    ("dynamic_smem_bytes 2^64", edit(dynamic_smem_bytes=1 << 64), "dynamic_smem_bytes = 18446744073709551616"),
    ("max_ctas_per_sm -1", edit(max_ctas_per_sm=-1), "max_ctas_per_sm = -1"),
    ("max_ctas_per_sm 2^31", edit(max_ctas_per_sm=1 << 31), "max_ctas_per_sm = 2147483648"),
    ("cluster 0", edit(cluster_dims=[0, 1, 1]), "cluster_dims[0] = 0"),
    ("cluster z 0", edit(cluster_dims=[1, 1, 0]), "cluster_dims[2] = 0"),
    ("cluster 2^32", edit(cluster_dims=[1 << 32, 1, 1]), "cluster_dims[0] = 4294967296"),
    ("cluster 17", edit(cluster_dims=[1, 17, 1]), "cluster_dims[1] = 17: want an integer in [1, 16]"),
    ("cluster of 64", edit(cluster_dims=[4, 4, 4]), "cluster [4, 4, 4]: 64 CTAs: want at most 16"),
    ("cluster 2 dims", edit(cluster_dims=[1, 1]), "cluster_dims = a list of 2 entries"),
    ("cluster 4 dims", edit(cluster_dims=[1, 1, 1, 1]), "cluster_dims = a list of 4 entries"),
    ("align 0", at("params.0.align", 0), "params[0].align = 0: want a power of two in [1, 4096]"),
    ("align 3", at("params.0.align", 3), "params[0].align = 3"),
    ("align 2^70", at("params.5.align", 1 << 70), "params[5].align = 1180591620717411303424"),
    ("align 8192", at("params.5.align", 8192), "params[5].align = 8192"),
    ("align -64", at("params.0.align", -64), "params[0].align = -64"),
    ("size 0", at("params.0.size", 0), "params[0].size = 0"),
    ("size 2^70", at("params.0.size", 1 << 70), "params[0].size = 1180591620717411303424"),
    ("tensormap size 64", at("params.0.size", 64), "parameter 0 (tmap_a): size 64: a tensormap is 128 bytes"),
    ("i32 size 8", at("params.5.size", 8), "parameter 5 (M): size 8: a i32 is 4 bytes"),
    ("elem_strides 0", at("params.0.map.elem_strides", [0, 1]), "params[0].map.elem_strides[0] = 0: want an integer in [1, 8]"),
    ("elem_strides 9", at("params.0.map.elem_strides", [1, 9]), "params[0].map.elem_strides[1] = 9"),
    ("elem_strides -1", at("params.0.map.elem_strides", [-1, 1]), "params[0].map.elem_strides[0] = -1"),
    ("box 0", at("params.1.map.box", [0, 128]), "params[1].map.box[0] = 0: want an integer in [1, 256]"),
    ("box 257", at("params.1.map.box", [64, 257]), "params[1].map.box[1] = 257"),
    ("box 2^40", at("params.1.map.box", [64, 1 << 40]), "params[1].map.box[1] = 1099511627776"),
    ("box rank 6", at("params.1.map.box", [1] * 6), "params[1].map.box = a list of 6 entries"),
    ("dims rank 6", at("params.1.map.dims", ["M"] * 6), "params[1].map.dims = a list of 6 entries"),
    ("dims rank 0", at("params.1.map.dims", []), "parameter 1 (tmap_b): rank 0: want 1 to 5"),
    ("elem_bytes 0", at("params.1.map.elem_bytes", 0), "params[1].map.elem_bytes = 0"),
    ("map buffer unknown", at("params.1.map.buffer", "nope"), 'map of buffer "nope", which is not listed'),
    ("map buffer empty", at("params.1.map.buffer", ""), "params[1].map.buffer = '': want a non-empty string"),
    ("kind unknown", at("params.1.kind", "f32"), 'parameter 1 (tmap_b): kind "f32": want tensormap, i32, i64, ptr or workspace'),
    ("i32 value empty", at("params.5.value", ""), "parameter 5 (M): an i32 without a value"),
    ("i32 with only a map", at("params.5.kind", "tensormap"), "parameter 5 (M): size 4: a tensormap is 128 bytes"),
    ("value unknown size", at("params.5.value", "2*N"), "size N not given"),
    ("value syntax", at("params.5.value", "(("), "parameter 5 (M): expression \"((\": unexpected end"),
    ("value too long", at("params.5.value", "M+" * 3000 + "M"), "params[5].value = 'M+M+"),
    ("expression 101 deep", at("grid.tiles", "(" * 101 + "M" + ")" * 101), "grid: expression"),
    ("cdiv 65 deep", at("grid.tiles", "cdiv(" * 65 + "M" + ",2)" * 65), "nested deeper than 64"),
    ("grid scheduler", at("grid.scheduler", "dynamic"), "grid.scheduler = 'dynamic': want one of 'static', 'clc'"),
    ("ctas_per_tile -1", at("grid.ctas_per_tile", -1), "grid.ctas_per_tile = -1"),
    ("ctas_per_tile 2^31", at("grid.ctas_per_tile", 1 << 31), "grid.ctas_per_tile = 2147483648"),
    ("rule multiple -8", at("shape_rules.1.multiple", -8), "shape_rules[1].multiple = -8"),
    ("rule min 2^63", at("shape_rules.1.min", 1 << 63), "shape_rules[1].min = 9223372036854775808"),
    ("name with a slash", edit(name="../../x"), "name = '../../x': want an identifier"),
    ("name absolute", edit(name="/etc/passwd"), "name = '/etc/passwd'"),
    ("name empty", edit(name=""), "name = ''"),
    ("name 300 long", edit(name="k" * 300), "name = 'kkkk"),
    ("name NUL", edit(name="a\x00b"), "name = 'a\\x00b'"),
    ("arch path", edit(arch="../sm_90a"), "arch = '../sm_90a'"),
    ("entry spaces", edit(entry="a b"), "entry = 'a b'"),
    ("kernel empty", edit(kernel=""), "kernel = ''"),
    ("size name digit", edit(sizes=["1M", "K", "I"]), "sizes[0] = '1M': want a size name"),
    ("size names repeated", edit(sizes=["M", "K", "I", "M"]), "size names M: each must be unique"),
    ("sizes 33", edit(sizes=["S%d" % i for i in range(33)]), "sizes = a list of 33 entries"),
    ("buffer names repeated", at("buffers.1.name", "dy"), "buffer names dy: each must be unique"),
    ("parameter names repeated", at("params.1.name", "tmap_a"), "parameter names tmap_a: each must be unique"),
    ("buffer shape 9 dims", at("buffers.0.shape", ["M"] * 9), "buffers[0].shape = a list of 9 entries"),
    ("version 1", edit(version=1), "version 1: this runtime reads version 2"),
    ("version 2.0", edit(version=2.0), "version 2.0: this runtime reads version 2"),
    ("version true", edit(version=True), "version True"),
    ("version 2^70", edit(version=1 << 70), "version 1180591620717411303424"),
    ("version missing", lambda d: d.pop("version"), "version 0"),
]


class RangesTest(unittest.TestCase):
    def test_ranges(self) -> None:
        for name, ed, want in RANGES:
            d = bwd()
            ed(d)
            with self.subTest(name):
                with self.assertRaises(ManifestError) as cm:
                    Manifest.from_dict(d)
                self.assertIn(want, str(cm.exception))

    def test_every_case_counts(self) -> None:
        # The target: at least 150 malformed inputs; the generated
        # cases and the targeted ranges together.
        n = sum(len(mutations(pinned_doc(p))) for p in PINNED)
        self.assertGreaterEqual(n + len(RANGES), 150)

    def test_config_is_not_read(self) -> None:
        # Go's tiling.Config, kept in raw for tools: its content is never
        # validated or used by the runtime.
        for v in (None, 7, "x", [nested(DEEP)]):
            d = bwd()
            d["config"] = v
            self.assertEqual(Manifest.from_dict(d).raw["config"], v)

    def test_json_text(self) -> None:
        for name, text, want in [
            ("NaN", '{"version": NaN}', "NaN is not JSON"),
            ("Infinity", '{"version": Infinity}', "Infinity is not JSON"),
            ("40 digits", '{"version": %s}' % ("9" * 40), "an integer of 40 digits"),
            ("not UTF-8", b'{"version": "\xff\xfe"}', "not JSON text"),
            ("truncated", '{"version": 2', "not JSON"),
            ("a list", "[1, 2]", "a list of 2 entries: want a JSON object"),
            ("a number", "2", "2: want a JSON object"),
            ("empty", "", "not JSON"),
        ]:
            with self.subTest(name):
                with self.assertRaisesRegex(ManifestError, re.escape(want)):
                    Manifest.from_json(text)
        with self.assertRaisesRegex(ManifestError, "JSON text is a int"):
            Manifest.from_json(7)  # type: ignore[arg-type]
        with self.assertRaisesRegex(ManifestError, "want a JSON object"):
            Manifest.from_dict([])  # type: ignore[arg-type]

    def test_expressions_never_recurse_out(self) -> None:
        for src in ("(" * 1000 + "M" + ")" * 1000, "cdiv(" * 1000 + "M" + ",1)" * 1000, "(" * 100000):
            with self.subTest(src=src[:10]):
                with self.assertRaisesRegex(expr.ExprError, "nested deeper than 64"):
                    expr.evaluate(src, {"M": 1})
                with self.assertRaisesRegex(expr.ExprError, "nested deeper than 64"):
                    expr.check(src)
        self.assertEqual(expr.evaluate("(" * 64 + "M" + ")" * 64, {"M": 3}), 3)
        self.assertEqual(expr.evaluate("cdiv(" * 64 + "M" + ",1)" * 64, {"M": 3}), 3)
        with self.assertRaisesRegex(expr.ExprError, "want a string"):
            expr.evaluate(7, {})  # type: ignore[arg-type]


class RandomEditsTest(unittest.TestCase):
    """Random combinations of edits (seeded, so a failure reproduces), each
    manifest that still parses planned at a few sizes: nothing on the way
    may raise anything but a ValueError."""

    VALUES = (None, 0, -1, 1, 2, 3, 8, 64, 128, 256, 257, 1 << 31, 1 << 32, 1 << 63, -(1 << 63), 1 << 70, 1.5, True,
              "", "M", "K", "I", "2*I", "(", "cdiv(M,0)", "0-1", "M*M*M*M*M*M*M*M", "tensormap", "i32", "none", "128B",
              "bfloat16", "float16", "static", "clc", [], {}, [1], ["M"], [0, 0], {"a": 1}, "a b", "dy", "de", "out")

    def test_random_edits(self) -> None:
        rng = random.Random(20261204)
        docs = [pinned_doc(p) for p in PINNED]
        sizes = ({"M": 256, "K": 512, "I": 512, "N": 512}, {"M": 1, "K": 8, "I": 8, "N": 8},
                 {"M": 1 << 40, "K": 8, "I": 8, "N": 8}, {"M": 3, "K": 9, "I": 0, "N": -1})
        parsed = 0
        for i in range(400):
            d = copy.deepcopy(rng.choice(docs))
            for _ in range(rng.randint(1, 3)):
                p = rng.choice(list(walk(d)))
                get(d, p[:-1])[p[-1]] = copy.deepcopy(rng.choice(self.VALUES))
            with self.subTest(i=i):
                try:
                    m = Manifest.from_dict(d)
                except ValueError:
                    continue
                parsed += 1
                for s in sizes:
                    try:
                        plan_sizes(m, s, Device(sms=132, clusters=50)).at({b.name: 1 << 20 for b in m.buffers})
                    except ValueError:
                        pass
        self.assertGreater(parsed, 10)  # some edits leave a manifest to plan


if __name__ == "__main__":
    unittest.main()

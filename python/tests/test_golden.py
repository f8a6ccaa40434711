"""The Python runtime plans every golden launch exactly as Go's runtime/launch.

The goldens (testdata/golden_<arch>.json) are written by Go
(go test ./runtime/launch -run PythonGolden -update) and checked current
there; see their doc field for what each launch records.
"""

from __future__ import annotations

import glob
import json
import os
import unittest
from typing import Any, Dict, List

import support
from swigen_rt import moe_plan, opspec, tensormap
from swigen_rt.manifest import Device, Manifest
from swigen_rt.plan import make_plan, pack_pointers, pointer_slots


def fake_descriptor(j: int) -> bytes:
    """The Go recorder's descriptor of the j-th map: 128 bytes of j+1."""
    return bytes([j + 1]) * tensormap.TENSOR_MAP_SIZE


def map_record(mc: Any) -> Dict[str, Any]:
    a = mc.args
    return {"param": mc.param, "buffer": mc.buffer, "dtype": a.dtype, "rank": a.rank, "global": a.global_address,
            "dims": list(a.dims), "strides": list(a.strides), "box": list(a.box),
            "elem_strides": list(a.elem_strides), "interleave": a.interleave, "swizzle": a.swizzle,
            "l2_promotion": a.l2_promotion, "oob_fill": a.oob_fill}


def golden_files() -> List[str]:
    return sorted(glob.glob(os.path.join(support.TESTDATA, "golden_*.json")))


class GoldenTest(unittest.TestCase):
    def test_files_present(self) -> None:
        names = [os.path.basename(p) for p in golden_files()]
        self.assertEqual(names, ["golden_sm_100a.json", "golden_sm_90a.json"])

    def test_launches_equal_go(self) -> None:
        launches = errors = grouped = 0
        for path in golden_files():
            with open(path, encoding="utf-8") as f:
                g = json.load(f)
            dev = Device(sms=g["device"]["sms"], clusters=g["device"]["clusters"])
            self.assertTrue(g["configs"])
            for c in g["configs"]:
                m = Manifest.from_dict(c["manifest"])
                self.assertEqual(m.name, c["name"])
                self.assertEqual(m.arch, g["arch"])
                for i, want in enumerate(c["launches"]):
                    launches += 1
                    with self.subTest(config=c["name"], launch=i, sizes=want["sizes"]):
                        if "counts" in want:
                            grouped += 1
                            self.check_routing(m, want["counts"], want["sizes"])
                        if "error" in want:
                            errors += 1
                            with self.assertRaises(ValueError) as cm:
                                make_plan(m, want["sizes"], want["buffers"], dev)
                            # Go's message is the same, behind its package's "launch: ".
                            self.assertEqual("launch: " + str(cm.exception), want["error"])
                            continue
                        p = make_plan(m, want["sizes"], want["buffers"], dev)
                        self.assertEqual([map_record(mc) for mc in p.maps], want["maps"])
                        self.assertEqual(list(p.offsets), want["param_offsets"])
                        packed = p.packed([fake_descriptor(j) for j in range(len(p.maps))])
                        # The pointer slots (a grouped kernel's offs and out_ptr) as a launch packs them.
                        pack_pointers(m.name, packed, p.offsets, pointer_slots(p.launch), want["buffers"])
                        self.assertEqual(packed.hex(), want["params_hex"])
                        self.assertEqual(list(p.grid), want["grid"])
                        self.assertEqual(list(p.block), want["block"])
                        self.assertEqual(list(p.cluster), want["cluster"])
                        self.assertEqual(p.smem_bytes, want["smem"])
        # Every config at 6 launches, bad shapes and misaligned buffers among them.
        self.assertGreaterEqual(launches, 6 * 33)
        self.assertGreater(errors, 0)
        self.assertLess(errors, launches)
        # The grouped configs (sm_90a): 4 configs at 6 routings.
        self.assertGreaterEqual(grouped, 4 * 6)

    def check_routing(self, m: Manifest, counts: List[int], sizes: Dict[str, int]) -> None:
        """A grouped launch's sizes are what its routing and the op's
        tensors give: T the last of offs, E its length, and solve_sizes on
        the op's inputs (swigen::moe_gateup's x [T, K], W [E, 2I, K], offs
        [E]; moe_dswiglu_out's dy, W_down, de, offs)."""
        offs = moe_plan.counts_to_offs(counts)
        T, E = offs[-1], len(offs)
        self.assertEqual((sizes["T"], sizes["E"]), (T, E))
        inputs = support.op_buffers(m)[0]
        shapes = dict(zip(inputs, opspec.output_shapes(m, inputs, sizes)))
        if T == 0:
            with self.assertRaisesRegex(ValueError, "T=0: must be >= 1"):
                opspec.solve_sizes(m, shapes)
            return
        self.assertEqual(opspec.solve_sizes(m, shapes), sizes)


if __name__ == "__main__":
    unittest.main()

"""The 64-bit parameter kinds (i64, ptr, workspace) and the stream-K grid."""

from __future__ import annotations

import copy
import json
import os
import struct
import unittest
from dataclasses import replace
from typing import Any, Dict

import support
from swigen_rt import pack
from swigen_rt.manifest import Arg, Device, Manifest, ManifestError, ShapeError
from swigen_rt.plan import pack_pointers, plan_sizes

SK = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk"


def raw() -> Dict[str, Any]:
    with open(os.path.join(support.REPO_DIR, "manifest", "testdata", SK + ".json"), encoding="utf-8") as f:
        return json.load(f)


class StreamKManifestTest(unittest.TestCase):
    def test_workspace_size_and_grid(self) -> None:
        m = Manifest.from_dict(raw())
        sizes = {"M": 2048, "N": 7168, "K": 4096}
        for sms, grid in ((1, 1), (132, 132), (148, 148), (1000, 256)):
            with self.subTest(sms=sms):
                launch = m.resolve(sizes, Device(sms=sms))
                self.assertEqual(launch.grid, (grid, 1, 1))
                w = launch.args[-1].workspace
                assert w is not None
                # tiling.StreamKWorkspace: flags and the 8-byte epoch header
                # padded to 128, a 128x256 fp32 slot per CTA.
                self.assertEqual(w.bytes, (grid * 8 + 8 + 127) // 128 * 128 + grid * 128 * 256 * 4)
                self.assertEqual((w.zero_bytes, w.align), (grid * 8 + 8, 256))

    def test_k_limit(self) -> None:
        m = Manifest.from_dict(raw())
        with self.assertRaises(ShapeError) as cm:
            m.check_sizes({"M": 128, "N": 128, "K": 65536 * 64})
        self.assertIn("stream-K takes at most 65535 k-blocks of 64", str(cm.exception))

    def test_rejects(self) -> None:
        def broken(edit: Any) -> Dict[str, Any]:
            d = copy.deepcopy(raw())
            edit(d["params"][-1])
            return d

        tests = [
            ("no size", lambda p: p.pop("workspace"), "a workspace without its size"),
            ("unknown symbol", lambda p: p["workspace"].update(bytes="grid*Q"), "size Q not given"),
            ("alignment", lambda p: p["workspace"].update(align=12), "workspace.align = 12: want a power of two"),
            ("zeroes too much", lambda p: p["workspace"].update(zero_bytes="grid*1000000"), "0 to all of them zeroed"),
            ("size", lambda p: p.update(size=4), "size 4: a workspace is 8 bytes"),
            ("ptr to no buffer", lambda p: p.update(kind="ptr", buffer="offsets"), 'pointer to buffer "offsets", which is not listed'),
        ]
        for name, edit, want in tests:
            with self.subTest(name):
                with self.assertRaises(ManifestError) as cm:
                    Manifest.from_dict(broken(edit))
                self.assertIn(want, str(cm.exception))

    def test_pointers_packed_per_launch(self) -> None:
        m = Manifest.from_dict(raw())
        sp = plan_sizes(m, {"M": 300, "N": 264, "K": 1024}, Device(sms=132))
        self.assertEqual([(p.param, p.name) for p in sp.pointers], [("workspace", "workspace")])
        off = sp.offsets[sp.pointers[0].index]
        self.assertEqual(sp.params[off:off + 8], bytes(8))  # the loader writes it
        params = bytearray(sp.params)
        pack_pointers(m.name, params, sp.offsets, sp.pointers, {"workspace": 0x7E0000000000})
        self.assertEqual(struct.unpack_from("<Q", params, off)[0], 0x7E0000000000)
        with self.assertRaisesRegex(ValueError, "workspace is 0, but parameter workspace points to it"):
            pack_pointers(m.name, params, sp.offsets, sp.pointers, {})
        with self.assertRaisesRegex(ValueError, "not 256-byte aligned"):
            pack_pointers(m.name, params, sp.offsets, sp.pointers, {"workspace": 0x7E0000000008})

    def test_i64_packs_little_endian(self) -> None:
        k = Manifest.from_dict(raw()).params[-2]  # K, an i32
        n = replace(k, name="n", kind="i64", size=8, align=8)
        buf, offs = pack.pack([k, n], [Arg(param=k.name, kind="i32", value=7), Arg(param="n", kind="i64", value=-3)])
        self.assertEqual(offs, (0, 8))
        self.assertEqual(len(buf), 16)
        self.assertEqual(struct.unpack_from("<iq", bytes(buf[:4]) + bytes(buf[8:]), 0), (7, -3))

    def test_descriptors_only_fill_tensor_maps(self) -> None:
        # manifest.Pack copies descs[i] into tensor-map slots only: a pointer's
        # slot stays zero until the loader writes its address.
        m = Manifest.from_dict(raw())
        sp = plan_sizes(m, {"M": 300, "N": 264, "K": 1024}, Device(sms=132))
        i = sp.pointers[0].index
        buf, offs = pack.pack(m.params, sp.launch.args, {i: b"\xff" * 8})
        self.assertEqual(bytes(buf[offs[i]:offs[i] + 8]), bytes(8))


if __name__ == "__main__":
    unittest.main()

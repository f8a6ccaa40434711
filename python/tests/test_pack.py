"""Parameter packing (the cases of manifest's TestPack in Go) and tensor-map checks."""

from __future__ import annotations

import unittest

import support  # noqa: F401
from swigen_rt import pack, tensormap
from swigen_rt.manifest import KIND_I32, KIND_TENSORMAP, Arg, Encode, ManifestError, Param


def tm(n: str) -> Param:
    return Param(name=n, kind=KIND_TENSORMAP, size=128, align=64)


def i32(n: str) -> Param:
    return Param(name=n, kind=KIND_I32, size=4, align=4)


class PackTest(unittest.TestCase):
    def test_maps_then_scalars(self) -> None:
        ps = [tm("a"), tm("b"), i32("M"), i32("K")]
        args = [Arg("a", KIND_TENSORMAP), Arg("b", KIND_TENSORMAP), Arg("M", KIND_I32, value=300), Arg("K", KIND_I32, value=-2)]
        buf, offs = pack.pack(ps, args, {0: b"\x01" * 128, 1: b"\x02" * 128})
        self.assertEqual(offs, (0, 128, 256, 260))
        self.assertEqual(len(buf), 320)
        self.assertEqual(bytes(buf[:128]), b"\x01" * 128)
        self.assertEqual(bytes(buf[128:256]), b"\x02" * 128)
        self.assertEqual(bytes(buf[256:264]), b"\x2c\x01\x00\x00\xfe\xff\xff\xff")

    def test_scalar_then_map(self) -> None:
        buf, offs = pack.pack([i32("M"), tm("a")], [Arg("M", KIND_I32, value=1), Arg("a", KIND_TENSORMAP)])
        self.assertEqual(offs, (0, 64))
        self.assertEqual(len(buf), 192)
        self.assertEqual(buf[0], 1)
        self.assertEqual(bytes(buf[64:]), bytes(128))

    def test_empty(self) -> None:
        self.assertEqual(pack.pack([], []), (bytearray(), ()))

    def test_rejects(self) -> None:
        tests = [
            ([Param("M", KIND_I32, 8, 4)], [Arg("M", KIND_I32)], None, "parameter M: size 8: a i32 is 4 bytes"),
            ([Param("M", KIND_I32, 4, 3)], [Arg("M", KIND_I32)], None, "parameter M: alignment 3: want a power of two"),
            ([i32("M"), i32("K")], [Arg("K", KIND_I32), Arg("M", KIND_I32)], None, "argument 0 is K (i32), parameter 0 is M (i32)"),
            ([i32("M")], [], None, "0 arguments for 1 parameters"),
            ([tm("a")], [Arg("a", KIND_TENSORMAP)], {0: b"\x01"}, "parameter a: a descriptor of 1 bytes: want 128"),
        ]
        for ps, args, descs, want in tests:
            with self.subTest(want):
                with self.assertRaises(ManifestError) as cm:
                    pack.pack(ps, args, descs)
                self.assertIn(want, str(cm.exception))


def encode(**kw: object) -> Encode:
    base = dict(buffer="dy", dtype="bfloat16", dims=(520, 777), strides=(1040,), box=(64, 128), elem_strides=(1, 1),
                interleave="none", swizzle="128B", l2_promotion="L2_256B", oob_fill="none")
    base.update(kw)
    return Encode(**base)  # type: ignore[arg-type]


class TensorMapTest(unittest.TestCase):
    def test_encode_args(self) -> None:
        a = tensormap.encode_args(encode(), 0x7F0100000000)
        self.assertEqual((a.dtype, a.rank, a.swizzle, a.l2_promotion, a.interleave, a.oob_fill), (9, 2, 3, 3, 0, 0))
        self.assertEqual(tensormap.encode_args(encode(dtype="float16"), 16).dtype, 6)
        self.assertEqual(tensormap.encode_args(encode(swizzle="64B"), 16).swizzle, 2)
        tensormap.validate(a, "dy")

    def test_unsupported_enumerators(self) -> None:
        for kw, want in [({"dtype": "float32"}, 'dtype "float32" is not supported'),
                         ({"swizzle": "32B"}, 'swizzle "32B" is not supported'),
                         ({"l2_promotion": "L2_64B"}, 'L2 promotion "L2_64B" is not supported')]:
            with self.subTest(want):
                with self.assertRaises(ManifestError) as cm:
                    tensormap.encode_args(encode(**kw), 16)
                self.assertIn(want, str(cm.exception))

    def test_validate(self) -> None:
        tests = [
            ({}, 8, "global address 0x8 is not 16-byte aligned"),
            ({}, 0, "global address is 0"),
            ({"strides": (1041,)}, 16, "strides[0] = 1041 bytes is not a multiple of 16"),
            ({"strides": (512,)}, 16, "strides[0] = 512 bytes is less than one row, dims[0] * 2 B = 1040 bytes"),
            ({"dims": (0, 777)}, 16, "dims[0] = 0 out of range [1, 2^32]"),
            ({"box": (64, 257)}, 16, "box[1] = 257 out of range [1, 256]"),
            ({"box": (65, 128)}, 16, "box inner dimension box[0] * 2 B = 130 bytes is not a multiple of 16"),
            ({"box": (128, 128)}, 16, "exceeds the 128-byte span of Swizzle128B"),
            ({"elem_strides": (1, 9)}, 16, "elemStrides[1] = 9 out of range [1, 8]"),
        ]
        for kw, addr, want in tests:
            with self.subTest(want):
                a = tensormap.encode_args(encode(**kw), addr)
                with self.assertRaises(tensormap.TensorMapError) as cm:
                    tensormap.validate(a, "dy")
                msg = str(cm.exception)
                self.assertTrue(msg.startswith('cu: invalid tensor map "dy": '), msg)
                self.assertIn(want, msg)


if __name__ == "__main__":
    unittest.main()

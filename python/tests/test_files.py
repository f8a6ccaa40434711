"""Files as untrusted data: devices, FIFOs, oversized files, paths and
symlinks out of a package, missing checksums, malformed package listings.

Each read that could block (a FIFO) runs in a daemon thread with a timeout:
a regression fails the test instead of hanging the suite (and the FIFO is
then opened for writing, which lets the blocked reader go).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import unittest
from typing import Any, Callable, List, Optional, Tuple
from unittest import mock

import support
from swigen_rt import files, package
from swigen_rt.dispatch import PlanError
from swigen_rt.kernel import Kernel
from swigen_rt.manifest import Manifest, ManifestError
from swigen_rt.package import PackageError, Registry
from test_package import KERNELS_DIR, write_package

BWD = "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k"
GEMM = "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"
EW = "swigen_elementwise.sm_90a.cubin"
MATMUL_DIR = os.path.join(support.REPO_DIR, "examples", "matmul")
TIMEOUT = 10.0
HAS_DEV_ZERO = os.path.exists("/dev/zero") and stat.S_ISCHR(os.stat("/dev/zero").st_mode)


def guarded(test: unittest.TestCase, fn: Callable[[], Any], fifos: Tuple[str, ...] = ()) -> Optional[BaseException]:
    """The exception fn raises (None if it returns), run in a daemon thread
    that must finish within TIMEOUT seconds."""
    out: List[Optional[BaseException]] = [None]

    def run() -> None:
        try:
            fn()
        except BaseException as e:  # noqa: BLE001  (handed to the test)
            out[0] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(TIMEOUT)
    if t.is_alive():
        for f in fifos:  # let a reader blocked in open() go
            try:
                os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        test.fail("still reading after %.0f s: a FIFO was opened and waited on" % TIMEOUT)
    return out[0]


def sha(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ReadTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.manifest = os.path.join(self.tmp, BWD + ".json")
        shutil.copy(os.path.join(KERNELS_DIR, BWD + ".json"), self.manifest)

    def path(self, name: str) -> str:
        return os.path.join(self.tmp, name)

    def assert_refused(self, fn: Callable[[], Any], err: type, want: str, fifos: Tuple[str, ...] = ()) -> None:
        e = guarded(self, fn, fifos)
        self.assertIsInstance(e, err, repr(e))
        self.assertIsInstance(e, ValueError)
        self.assertIn(want, str(e))

    @unittest.skipUnless(HAS_DEV_ZERO, "needs /dev/zero")
    def test_dev_zero(self) -> None:
        os.symlink("/dev/zero", self.path("z.json"))
        for p in ("/dev/zero", self.path("z.json")):
            with self.subTest(p):
                self.assert_refused(lambda: Manifest.load(p), ManifestError, "a character device: want a regular file")
        self.assert_refused(lambda: Kernel.from_files(self.manifest, "/dev/zero"), files.FileError, "a character device")

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs os.mkfifo")
    def test_fifo(self) -> None:
        fifo = self.path("f.json")
        os.mkfifo(fifo)
        self.assert_refused(lambda: Manifest.load(fifo), ManifestError, "a FIFO: want a regular file", (fifo,))
        self.assert_refused(lambda: Kernel.from_files(self.manifest, fifo), files.FileError, "a FIFO", (fifo,))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs os.mkfifo")
    def test_fifo_swapped_in_after_stat(self) -> None:
        # stat saw a regular file; what is opened is a FIFO: the open must
        # not block (O_NONBLOCK) and fstat must refuse it.
        fifo = self.path("f.json")
        os.mkfifo(fifo)
        regular = os.stat(self.manifest)
        with mock.patch.object(files.os, "stat", return_value=regular):
            self.assert_refused(lambda: Manifest.load(fifo), ManifestError, "a FIFO", (fifo,))

    def test_directory(self) -> None:
        os.mkdir(self.path("d.json"))
        self.assert_refused(lambda: Manifest.load(self.path("d.json")), ManifestError, "a directory")

    def test_size_cap(self) -> None:
        big = self.path("big.json")
        with open(big, "wb") as f:
            f.truncate(files.MAX_JSON_BYTES + 1)  # sparse: nothing is written
        self.assert_refused(lambda: Manifest.load(big), ManifestError,
                            "%d bytes: want at most %d" % (files.MAX_JSON_BYTES + 1, files.MAX_JSON_BYTES))
        with open(big, "wb") as f:
            f.write(b"x" * 100)
        self.assert_refused(lambda: files.read_regular(big, 99, "test"), files.FileError, "100 bytes: want at most 99")
        self.assertEqual(files.read_regular(big, 100, "test"), b"x" * 100)

    def test_growing_file(self) -> None:
        # A file that is larger when read than when checked (it grew, or
        # fstat lies): the read stops at the cap and refuses it.
        big = self.path("grow")
        with open(big, "wb") as f:
            f.write(b"x" * 100)
        small = os.stat(self.manifest)
        fake = os.stat_result((small.st_mode, 0, 0, 1, 0, 0, 10) + tuple(small)[7:])
        with mock.patch.object(files.os, "fstat", return_value=fake), mock.patch.object(files.os, "stat", return_value=fake):
            self.assert_refused(lambda: files.read_regular(big, 50, "test"), files.FileError, "more than 50 bytes")

    def test_missing_is_oserror(self) -> None:
        with self.assertRaises(FileNotFoundError):
            Manifest.load(self.path("none.json"))


class FromFilesTest(unittest.TestCase):
    """Kernel.from_files: the cubin the manifest names stays in its directory."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.pkg = os.path.join(self.tmp, "pkg")
        os.mkdir(self.pkg)
        self.manifest = os.path.join(self.pkg, BWD + ".json")
        shutil.copy(os.path.join(KERNELS_DIR, BWD + ".json"), self.manifest)
        self.cubin = os.path.join(self.pkg, BWD + ".sm_90a.cubin")

    def test_cubin_inside(self) -> None:
        shutil.copy(os.path.join(KERNELS_DIR, BWD + ".sm_90a.cubin"), os.path.join(self.pkg, "real.cubin"))
        os.symlink("real.cubin", self.cubin)  # a symlink that stays inside is fine
        self.assertEqual(len(Kernel.from_files(self.manifest)._cubin), os.path.getsize(os.path.join(self.pkg, "real.cubin")))

    def test_cubin_symlinked_out(self) -> None:
        outside = os.path.join(self.tmp, "secret")
        with open(outside, "wb") as f:
            f.write(b"secret")
        os.symlink(outside, self.cubin)
        with self.assertRaisesRegex(files.FileError, "outside the package directory"):
            Kernel.from_files(self.manifest)
        os.remove(self.cubin)
        os.symlink("../secret", self.cubin)
        with self.assertRaisesRegex(files.FileError, "outside the package directory"):
            Kernel.from_files(self.manifest)
        # A cubin the caller names is the caller's.
        self.assertEqual(Kernel.from_files(self.manifest, outside)._cubin, b"secret")

    def test_manifest_name_is_no_path(self) -> None:
        with open(self.manifest, encoding="utf-8") as f:
            text = f.read()
        for name in ("../" + BWD, "/tmp/x", "sub/x"):
            with open(self.manifest, "w", encoding="utf-8") as f:
                f.write(text.replace('"name": "%s"' % BWD, '"name": "%s"' % name))
            with self.subTest(name):
                with self.assertRaisesRegex(ManifestError, "name = .*: want an identifier"):
                    Kernel.from_files(self.manifest)

    def test_confine(self) -> None:
        for name in ("../x", "/etc/passwd", "a/../../x", "..", "", "a\x00b", "C:\\x" if os.name == "nt" else "a/../..",
                     "\\\\server\\x" if os.name == "nt" else ".."):
            with self.subTest(name=name):
                with self.assertRaises(files.FileError):
                    files.confine(self.pkg, name, "test")
        self.assertEqual(files.confine(self.pkg, "a.cubin", "test"), os.path.join(self.pkg, "a.cubin"))
        os.symlink(self.tmp, os.path.join(self.pkg, "up"))
        with self.assertRaisesRegex(files.FileError, "outside"):
            files.confine(self.pkg, "up/x", "test")
        with self.assertRaisesRegex(files.FileError, "want a file name"):
            files.confine(self.pkg, 7, "test")  # type: ignore[arg-type]


class RegisterTest(unittest.TestCase):
    """package.register on a copy of examples/kernels, with listings edited."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.dir = os.path.join(self.tmp, "kernels_t")
        os.mkdir(self.dir)
        write_package(self.dir)
        # Listings of two kernels and an elementwise module: examples/kernels
        # holds the bwd kernel, examples/matmul a gemm. The elementwise
        # listing's checks read only its bytes' sha256 here (no driver).
        for ext in (".json", ".sm_90a.cubin"):
            shutil.copy(os.path.join(MATMUL_DIR, GEMM + ext), self.dir)
        with open(os.path.join(self.dir, EW), "wb") as f:
            f.write(b"an elementwise module's bytes")
        self.addCleanup(sys.modules.pop, "kernels_t", None)
        self.kernels = [(n, n.split("_sm")[0], "sm_90a", n + ".json", n + ".sm_90a.cubin",
                         sha(os.path.join(self.dir, n + ".sm_90a.cubin"))) for n in (BWD, GEMM)]
        self.ew = [("sm_90a", EW, sha(os.path.join(self.dir, EW)))]

    def register(self, kernels: Any = None, elementwise: Any = None, dispatch: Any = ()) -> package.Package:
        return package.register("kernels_t", self.dir, self.kernels if kernels is None else kernels,
                                self.ew if elementwise is None else elementwise, dispatch, registry=Registry())

    def row(self, i: int, **kv: str) -> List[Tuple[str, ...]]:
        names = ("name", "kind", "arch", "manifest", "cubin", "sha256")
        rows = list(self.kernels)
        r = list(rows[i])
        for k, v in kv.items():
            r[names.index(k)] = v
        rows[i] = tuple(r)
        return rows

    def assert_package_error(self, want: str, **kw: Any) -> None:
        with self.assertRaises(PackageError) as cm:
            self.register(**kw)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIsInstance(cm.exception, ImportError)
        self.assertIn(want, str(cm.exception))

    def test_valid(self) -> None:
        p = self.register()
        self.assertEqual(sorted(p.kernels), sorted([BWD, GEMM]))

    def test_sha256_required(self) -> None:
        for bad in ("", "0" * 63, "F" * 64, "g" * 64, " " + "0" * 63):
            with self.subTest(sha=bad):
                self.assert_package_error("want 64 lowercase hex digits", kernels=self.row(0, sha256=bad))
        self.assert_package_error("ELEMENTWISE[0]", elementwise=[("sm_90a", EW)])
        self.assert_package_error("want 64 lowercase hex digits", elementwise=[("sm_90a", EW, "")])
        self.assert_package_error("has sha256", kernels=self.row(1, sha256="0" * 64))

    def test_paths_stay_inside(self) -> None:
        outside = os.path.join(self.tmp, "outside.cubin")
        shutil.copy(os.path.join(self.dir, GEMM + ".sm_90a.cubin"), outside)
        os.symlink(outside, os.path.join(self.dir, "link.cubin"))
        shutil.copy(os.path.join(self.dir, GEMM + ".json"), os.path.join(self.tmp, "m.json"))
        os.symlink(os.path.join(self.tmp, "m.json"), os.path.join(self.dir, "mlink.json"))
        for field, value, want in [
            ("cubin", "../outside.cubin", "no absolute path, no .."),
            ("cubin", outside, "no absolute path, no .."),
            ("cubin", "link.cubin", "outside the package directory"),
            ("cubin", "sub/../../outside.cubin", "no absolute path, no .."),
            ("manifest", "../m.json", "no absolute path, no .."),
            ("manifest", os.path.join(self.tmp, "m.json"), "no absolute path, no .."),
            ("manifest", "mlink.json", "outside the package directory"),
        ]:
            with self.subTest(field=field, value=value):
                self.assert_package_error(want, kernels=self.row(1, **{field: value}))
        self.assert_package_error("no absolute path", elementwise=[("sm_90a", "/dev/zero", "0" * 64)])

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs os.mkfifo")
    def test_fifo_cubin(self) -> None:
        fifo = os.path.join(self.dir, "f.cubin")
        os.mkfifo(fifo)
        e = guarded(self, lambda: self.register(kernels=self.row(1, cubin="f.cubin")), (fifo,))
        self.assertIsInstance(e, PackageError)
        self.assertIn("a FIFO", str(e))

    def test_malformed_listings(self) -> None:
        for name, kw, want in [
            ("KERNELS a string", dict(kernels="x"), "KERNELS: str: want a sequence"),
            ("KERNELS an int", dict(kernels=7), "KERNELS: int: want a sequence"),
            ("KERNELS a dict", dict(kernels={}), "KERNELS: dict: want a sequence"),
            ("a row of 5", dict(kernels=[self.kernels[0][:5]]), "KERNELS[0] = "),
            ("a row of 7", dict(kernels=[self.kernels[0] + ("x",)]), "KERNELS[0] = "),
            ("a row with an int", dict(kernels=self.row(0, name=7)), "KERNELS[0] = "),  # type: ignore[arg-type]
            ("a row that is a string", dict(kernels=["abcdef"]), "KERNELS[0] = 'abcdef'"),
            ("ELEMENTWISE None", dict(elementwise=7), "ELEMENTWISE: int"),
            ("DISPATCH a string", dict(dispatch="{}"), "DISPATCH = '{}': want a sequence of JSON strings"),
            ("DISPATCH of dicts", dict(dispatch=[{}]), "DISPATCH = "),
            ("name mismatch", dict(kernels=self.row(0, name=GEMM)), "the package lists"),
        ]:
            with self.subTest(name):
                self.assert_package_error(want, **kw)
        with self.assertRaisesRegex(PackageError, "package name 7"):
            package.register(7, self.dir, [], [], [], registry=Registry())  # type: ignore[arg-type]

    def test_malformed_plans(self) -> None:
        for text, want in [("[" * 100000 + "]" * 100000, "nested deeper than 64"), ("{", "not JSON"),
                           ('{"fused": "x", "gemm": "g", "elementwise": "e", "points": 7}', "points = 7"),
                           ('{"fused": "x", "gemm": "g", "elementwise": "e", "points": ["p"]}', "points[0] = 'p'"),
                           ('{"fused": "x", "gemm": "g", "elementwise": "e", "points": [{"shape": [], "path": "fused"}]}',
                            "points[0].shape = a list of 0 entries")]:
            with self.subTest(text=text[:40]):
                with self.assertRaisesRegex(PlanError, re.escape(want)):
                    self.register(dispatch=[text])

    def test_malformed_manifest(self) -> None:
        with open(os.path.join(self.dir, GEMM + ".json"), "w", encoding="utf-8") as f:
            f.write('{"version": 2, "name": "x", "buffers": 7}')
        with self.assertRaisesRegex(ManifestError, "entry|buffers"):
            self.register()

    def test_runtime_version(self) -> None:
        for v in (2, "1", 1.0, True):
            with self.subTest(v=v):
                with self.assertRaises(PackageError):
                    package.check_runtime(v)  # type: ignore[arg-type]
        package.check_runtime(1)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs os.mkfifo")
    def test_init_fifo(self) -> None:
        init = os.path.join(self.dir, "__init__.py")
        os.remove(init)
        os.mkfifo(init)
        e = guarded(self, lambda: package.load_dir(self.dir), (init,))
        self.assertIsInstance(e, PackageError)
        self.assertIn("a FIFO", str(e))
        self.assertNotIn("kernels_t", sys.modules)

    @unittest.skipUnless(HAS_DEV_ZERO, "needs /dev/zero")
    def test_init_dev_zero(self) -> None:
        init = os.path.join(self.dir, "__init__.py")
        os.remove(init)
        os.symlink("/dev/zero", init)
        e = guarded(self, lambda: package.load_dir(self.dir), ())
        self.assertIsInstance(e, PackageError)
        self.assertIn("a character device", str(e))


if __name__ == "__main__":
    unittest.main()

"""swigen_rt against the Go runtime, bit for bit, on a GPU.

The same cubin on the same inputs, launched once by swigen_rt (with torch
tensors) and once by Go's runtime/launch (tests.test -test.run
TestLaunchFromFiles, which reads the inputs from files and writes its
outputs back), must give identical output bytes: the two runtimes pass
the driver the same parameters, tensor maps and grid. Needs torch with
CUDA on an sm_90a GPU and SWIGEN_GO_TESTS naming the gpu-tagged Go test
binary (bench/build.sh builds .bin/tests.test); skipped otherwise.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
import unittest
from typing import Any, Dict

import support  # noqa: F401  (puts python/ on sys.path)
from swigen_rt import Kernel, eval_expr
from swigen_rt.tensors import buffer_dtypes

from gpu.test_gpu import BWD, GEMM, OUTPUTS, torch_cuda

GO_TESTS = os.environ.get("SWIGEN_GO_TESTS", "")


def raw_bytes(torch: Any, x: Any) -> bytes:
    """A tensor's bytes in memory order (contiguous, little-endian)."""
    return bytes(x.contiguous().cpu().view(torch.uint8).flatten().tolist())


@unittest.skipIf(torch_cuda() is None or not GO_TESTS, "needs torch with CUDA on an sm_90a GPU and SWIGEN_GO_TESTS")
class BitwiseTest(unittest.TestCase):
    def check(self, manifest_path: str, sizes: Dict[str, int]) -> None:
        torch = torch_cuda()
        k = Kernel.from_files(manifest_path)
        m = k.manifest
        dts = buffer_dtypes(m)
        gen = torch.Generator(device="cuda").manual_seed(5)
        t: Dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as d:
            for b in m.buffers:
                shape = [eval_expr(e, sizes) for e in b.shape]
                dt = getattr(torch, dts[b.name])
                if b.name in OUTPUTS[m.kernel]:
                    t[b.name] = torch.full(shape, float("nan"), dtype=dt, device="cuda")
                    continue
                t[b.name] = (torch.randn(shape, generator=gen, device="cuda") * 2 / math.sqrt(shape[-1])).to(dt)
                with open(os.path.join(d, "in_%s.bin" % b.name), "wb") as f:
                    f.write(raw_bytes(torch, t[b.name]))
            cubin = os.path.splitext(manifest_path)[0] + ".%s.cubin" % m.arch
            with open(os.path.join(d, "request.json"), "w", encoding="utf-8") as f:
                json.dump({"manifest": manifest_path, "cubin": cubin, "sizes": sizes}, f)
            k.launch(t)
            torch.cuda.synchronize()
            r = subprocess.run([GO_TESTS, "-test.run", "^TestLaunchFromFiles$", "-test.v"], env=dict(os.environ, SWIGEN_LAUNCH_DIR=d),
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            ran = 0
            for name in OUTPUTS[m.kernel]:
                p = os.path.join(d, "out_%s.bin" % name)
                if name not in t or not os.path.exists(p):
                    continue
                with open(p, "rb") as f:
                    go = f.read()
                py = raw_bytes(torch, t[name])
                self.assertEqual(len(go), len(py), "%s %s: sizes differ" % (m.name, name))
                self.assertTrue(go == py, "%s %s at %s: the Go and Python launches differ" % (m.name, name, sizes))
                ran += 1
            self.assertGreater(ran, 0, "no output compared")

    def test_gemm(self) -> None:
        self.check(GEMM, {"M": 333, "N": 264, "K": 200})

    def test_bwd(self) -> None:
        self.check(BWD, {"M": 777, "K": 520, "I": 1000})

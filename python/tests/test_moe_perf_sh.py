"""bench/moe_perf.sh's process per peer (ISOLATE=1) with a stand-in for
bench/moe_perf.py: each model's peers run before the next model's, a
process that dies leaves an error record, none starts past LIMIT. Its
functions are read from the script and run in bash; no GPU, no torch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Dict, List, Tuple

import support  # noqa: F401

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# The stand-in: appends "model:peer" to calls.txt; FAKE_<peer>=die exits 3
# with no JSON, =bad writes its record and exits 1, else writes it.
FAKE = r'''
import json, os, sys
a = sys.argv[1:]
m, p, j = a[a.index("--models") + 1], a[a.index("--peers") + 1], a[a.index("--json") + 1]
open(os.path.join(os.path.dirname(j), "calls.txt"), "a").write("%s:%s\n" % (m, p))
how = os.environ.get("FAKE_" + p, "ok")
if how == "die":
    sys.exit(3)
json.dump({"gpu": "fake", "command": "x", "results": [{"model": m, "peer": p, "ok": how != "bad"}]}, open(j, "w"))
sys.exit(1 if how == "bad" else 0)
'''


def _functions() -> str:
    with open(os.path.join(ROOT, "bench", "moe_perf.sh")) as f:
        s = f.read()
    return s[s.index("# run_peer G"):s.index("pids=()")]


@unittest.skipIf(shutil.which("bash") is None, "needs bash")
class IsolateTest(unittest.TestCase):
    def run_worker(self, models: str, peers: str, env: Dict[str, str], limit: int = 600) -> Tuple[int, List[str], Dict[str, list]]:
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.makedirs(os.path.join(d, "bench"))
        with open(os.path.join(d, "bench", "moe_perf.py"), "w") as f:
            f.write(FAKE)
        log = os.path.join(d, "log")
        os.makedirs(log)
        script = "%s\nargs=(--reps 1)\nworker 0 %s\n" % (_functions(), models)
        env = dict(os.environ, ISOLATE="1", **env)
        script = 'START=$(date +%%s); LIMIT=%d; LOG=%s; PEERS=%s\n%s' % (limit, log, peers, script)
        rc = subprocess.run(["bash", "-c", script], cwd=d, env=env).returncode
        calls_file = os.path.join(log, "calls.txt")
        calls: List[str] = []
        if os.path.exists(calls_file):
            with open(calls_file) as f:
                calls = f.read().split()
        recs = {}
        for name in sorted(os.listdir(log)):
            if name.endswith(".json"):
                with open(os.path.join(log, name)) as f:
                    recs[name] = json.load(f)["results"]
        return rc, calls, recs

    def test_models_outer_each_peer_its_process(self) -> None:
        rc, calls, recs = self.run_worker("qwen3,deepseek", "grouped,swigen", {})
        self.assertEqual(rc, 0)
        self.assertEqual(calls, ["qwen3:grouped", "qwen3:swigen", "deepseek:grouped", "deepseek:swigen"])
        self.assertEqual(sorted(recs), ["moe-0-deepseek-grouped.json", "moe-0-deepseek-swigen.json",
                                        "moe-0-qwen3-grouped.json", "moe-0-qwen3-swigen.json"])

    def test_a_dead_process_leaves_an_error_record(self) -> None:
        rc, calls, recs = self.run_worker("qwen3", "grouped,swigen,liger", {"FAKE_swigen": "die", "FAKE_liger": "bad"})
        self.assertEqual(rc, 1)
        self.assertEqual(calls, ["qwen3:grouped", "qwen3:swigen", "qwen3:liger"])
        dead = recs["moe-0-qwen3-swigen.json"]
        self.assertEqual([(r["peer"], r["mode"]) for r in dead], [("swigen", "fwd"), ("swigen", "step")])
        self.assertTrue(all("status 3" in r["error"] for r in dead), dead)
        self.assertEqual(recs["moe-0-qwen3-liger.json"], [{"model": "qwen3", "peer": "liger", "ok": False}])

    def test_no_process_past_the_limit(self) -> None:
        rc, calls, recs = self.run_worker("qwen3", "grouped,swigen", {}, limit=-1)
        self.assertEqual((rc, calls), (0, []))
        self.assertEqual({r["skipped"] for rs in recs.values() for r in rs}, {"past the deadline (no process started)"})
        self.assertEqual(len(recs), 2)


if __name__ == "__main__":
    unittest.main()

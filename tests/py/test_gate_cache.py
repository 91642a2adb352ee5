"""The gate's verdict cache (gate_cache): a verdict is reused only when the
built code, the options, memgate's version and the machine are the same;
a could-not-judge verdict is never kept; reports say `cached`."""
import os
import subprocess
import unittest

from common import ROOT, context, tmpdir
from orchestration import gate_cache, report

DOC = {"schema": report.SCHEMA, "variant": "bytecopy", "op": "memcpy", "arch": "x86_64", "symbol": "bytecopy",
       "files": ["tests/gate/bytecopy.c"], "verdict": "accepted", "seconds": 1.0, "memgate": "v1",
       "started": "2026-12-01T16:00:00Z", "checks": [{"name": "sweep", "status": "pass", "cases": 1,
                                                      "seconds": 0.1, "note": ""}], "findings": []}


class Store(unittest.TestCase):
    def setUp(self):
        self.tmp = tmpdir(self)
        old = os.environ.get("MEMGATE_GATE_RESULTS")
        os.environ["MEMGATE_GATE_RESULTS"] = self.tmp
        self.addCleanup(lambda: os.environ.__setitem__("MEMGATE_GATE_RESULTS", old) if old is not None
                        else os.environ.pop("MEMGATE_GATE_RESULTS", None))

    def test_the_cache_lives_under_the_results(self):
        self.assertEqual(gate_cache.cache_dir(), os.path.join(self.tmp, ".cache"))

    def test_a_judged_verdict_is_kept_and_found(self):
        self.assertTrue(gate_cache.store("k1", 0, "findings/gate/run-1", "2026-12-01T16:00:00Z", [DOC]))
        hit = gate_cache.lookup("k1")
        self.assertEqual((hit["run"], hit["date"], hit["docs"][0]["verdict"]),
                         ("findings/gate/run-1", "2026-12-01T16:00:00Z", "accepted"))
        self.assertIsNone(gate_cache.lookup("k2"))

    def test_a_could_not_judge_verdict_is_never_kept(self):
        self.assertFalse(gate_cache.store("k3", 2, "r", "d", [dict(DOC, verdict="could-not-judge")]))
        self.assertFalse(gate_cache.store("k4", 0, "r", "d", [dict(DOC, verdict="could-not-judge")]))
        self.assertIsNone(gate_cache.lookup("k3"))
        self.assertIsNone(gate_cache.lookup("k4"))


class Key(unittest.TestCase):
    def ctx(self, name="bytecopy-aaaaaaaa", loop="for (size_t i = 0; i < n; i++)"):
        """A context whose build directory holds merged.o, compiled with
        debug information from bytecopy.c (its loop as given) in it."""
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.W = os.path.join(tmp, name)
        os.makedirs(os.path.join(ctx.W, "plain.parts"))
        with open(os.path.join(ROOT, "tests/gate/bytecopy.c")) as f:
            source = f.read().replace("for (size_t i = 0; i < n; i++)", loop)
        src = os.path.join(ctx.W, "0-bytecopy.c")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run(["cc", "-g", "-O2", "-c", src, "-o", os.path.join(ctx.W, "plain.parts", "merged.o")],
                       check=True, cwd=tmp)
        ctx.runner, ctx.emulated = [], ""
        return ctx

    def test_the_build_directory_name_is_not_the_code(self):
        a, b = self.ctx(), self.ctx("bytecopy-bbbbbbbb-longer")
        with open(os.path.join(a.W, "plain.parts", "merged.o"), "rb") as f:
            self.assertIn(a.W.encode(), f.read())  # the debug information names it
        self.assertEqual(gate_cache.code_hash(a), gate_cache.code_hash(b))
        self.assertNotEqual(gate_cache.code_hash(a), gate_cache.code_hash(self.ctx(loop="for (size_t i = n; i-- > 0;)")))

    def test_code_options_version_and_machine_each_change_the_key(self):
        ctx = self.ctx()
        base = gate_cache.verdict_key(ctx)
        self.assertEqual(base, gate_cache.verdict_key(ctx))
        self.assertNotEqual(base, gate_cache.verdict_key(self.ctx(loop="for (size_t i = n; i-- > 0;)")))
        ctx.opts = dict(ctx.opts, src_align=8)
        self.assertNotEqual(base, gate_cache.verdict_key(ctx))
        ctx.opts = dict(ctx.opts, src_align=1, report="elsewhere.json")  # where reports go is no option
        self.assertEqual(base, gate_cache.verdict_key(ctx))
        real_version, real_cpu = gate_cache.memgate_version, gate_cache.cpu_facts
        try:
            gate_cache.memgate_version = lambda: "another memgate"
            self.assertNotEqual(base, gate_cache.verdict_key(ctx))
            gate_cache.memgate_version = real_version
            gate_cache.cpu_facts = lambda: {"model name": "another CPU", "flags": "sse2"}
            self.assertNotEqual(base, gate_cache.verdict_key(ctx))
        finally:
            gate_cache.memgate_version, gate_cache.cpu_facts = real_version, real_cpu
        ctx.env = dict(ctx.env, MEMGATE_OVERREAD="strict")
        self.assertNotEqual(base, gate_cache.verdict_key(ctx))

    def test_the_version_is_of_the_trees_files(self):
        self.assertRegex(gate_cache.memgate_version(), r"^[0-9a-f]{64}$")
        self.assertIn("harness", gate_cache.VERSION_PATHS)
        self.assertIn("corpus", gate_cache.VERSION_PATHS)


class Reports(unittest.TestCase):
    def test_every_report_says_cached(self):
        doc = report.derived(dict(DOC, cached={"from": "findings/gate/run-1", "date": "2026-12-01T16:00:00Z"}))
        want = "from findings/gate/run-1, 2026-12-01T16:00:00Z"
        self.assertEqual(report.to_sarif(doc)["runs"][0]["properties"]["cached"], want)
        self.assertIn(f'<property name="cached" value="{want}"/>', report.to_junit(doc))
        self.assertIn('"cached"', report.to_json_text(doc))

    def test_a_fresh_report_says_nothing_of_a_cache(self):
        doc = report.derived(dict(DOC))
        self.assertNotIn("cached", report.to_sarif(doc)["runs"][0]["properties"])
        self.assertNotIn("cached", report.to_junit(doc))


if __name__ == "__main__":
    unittest.main()

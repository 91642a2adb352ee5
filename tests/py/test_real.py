"""Real code as it lives in its tree (issue 16): the tree's flags, objects
and archive members, several entry points, mempcpy, local symbols, glibc's
x86 tuning data, and the reports of several entry points."""
import json
import os
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET

from common import ROOT, tmpdir
from orchestration import gate, report, submission

FILE = ROOT + "/tests/gate/bytecopy.c"
TREE = ROOT + "/tests/gate/tree"


def options(argv):
    return gate.validate(gate.parse(argv))


def usage(argv):
    try:
        options(argv)
    except gate.Usage as e:
        return str(e)
    return None


class Options(unittest.TestCase):
    def test_tree_flags(self):
        o = options(["--op", "memcpy", "-I", "inc", "-Iother", "-D", "A=1", "-DB", "--cflags", "-O1 -include x.h", FILE])
        self.assertEqual(o["tree_flags"], ["-Iinc", "-Iother", "-DA=1", "-DB", "-O1", "-include", "x.h"])

    def test_entries(self):
        o = options(["--entry", "memmove=a", "--entry", "mempcpy=b", FILE])
        self.assertEqual(o["entries"], [("memmove", "a"), ("mempcpy", "b")])
        self.assertEqual((o["op"], o["symbol"]), ("memmove", "a"))
        self.assertEqual(o["seconds"], 3600)  # one deadline, whatever the entry points
        self.assertEqual(options(["--entry", "memmove=a", "--entry", "memcpy=b", "--seconds=30", FILE])["seconds"], 30)

    def test_mempcpy_returns_the_end(self):
        self.assertEqual(options(["--op", "mempcpy", FILE])["returns"], "dst+n")
        self.assertIn("mempcpy returns dst+n", usage(["--op", "mempcpy", "--returns=dst", FILE]))

    def test_bad_usage(self):
        cases = {
            ("--op", "memcpy", "--entry", "memcpy=x", FILE): "give it instead of --op and --symbol",
            ("--entry", "memcpy", FILE): "--entry 'memcpy' is not OP=SYMBOL",
            ("--entry", "memcpy=1x", FILE): "--symbol '1x' is not a C identifier",
            ("--entry", "memcpy=x", "--entry", "memmove=x", FILE): "names one symbol twice",
            ("--entry", "memcpy=x", "--entry", "memmove=y", "--returns=dst", FILE): "--returns applies to one entry",
            ("--op", "memcpy", ROOT + "/README.md"): "not a C (.c), assembly (.S, .s) or object (.o) file",
            ("--op", "memcpy", "/nope.a(x.o)"): "/nope.a: no such file",
            ("--op", "memcpy", "-I"): "-I needs a value",
            ("--op", "memcpy", "--cflags", "'unclosed", FILE): "--cflags",
        }
        for argv, want in cases.items():
            self.assertIn(want, usage(list(argv)) or "accepted", argv)

    def test_default_symbol_of_a_member(self):
        self.assertEqual(gate.default_symbol("/x/libc.a(memmove-ssse3.o)"), "memmove-ssse3")
        self.assertEqual(gate.default_symbol("/x/my_copy.o"), "my_copy")


class Names(unittest.TestCase):
    def test_members(self):
        self.assertEqual(submission.split_member("/usr/lib/libc.a(memmove.o)"), ("/usr/lib/libc.a", "memmove.o"))
        self.assertIsNone(submission.split_member("memmove.o"))
        self.assertIsNone(submission.split_member("libc.a"))
        self.assertEqual(submission.safe_name(2, "/usr/lib/libc.a(memmove-ssse3.o)"), "2-libc-memmove-ssse3.o")

    def test_defaults_leave_out_what_extern_gives(self):
        text = submission.defaults_source({"__x86_rep_movsb_threshold"})
        self.assertIn("weak", text)
        self.assertIn("long __x86_shared_non_temporal_threshold = 786432L;", text)
        self.assertNotIn("__x86_rep_movsb_threshold =", text)


@unittest.skipUnless(shutil.which("cc") and shutil.which("nm") and os.uname().machine == "x86_64",
                     "needs cc and binutils on x86-64")
class Build(unittest.TestCase):
    def compile(self, symbols, sources, flags=()):
        d = tmpdir(self)
        if flags:
            with open(os.path.join(d, "cflags"), "w") as f:
                f.write("".join(x + "\n" for x in flags))
        out = os.path.join(d, "plain.o")
        p = subprocess.run([os.path.join(ROOT, "scripts", "gate-compile"), out, symbols, "cc", "-O2"] + sources,
                           capture_output=True, text=True)
        return p.returncode, p.stderr, out

    def test_tree_flags_reach_an_assembly_file(self):
        rc, err, out = self.compile("tree_mempcpy", [TREE + "/tree_copy.S"],
                                    ["-I" + TREE + "/include", "-DCOPY_NAME=tree_mempcpy", "-DRETURN_END=1"])
        self.assertEqual(rc, 0, err)
        self.assertIn("mg_gate_tree_mempcpy", subprocess.run(["nm", out], capture_output=True, text=True).stdout)

    def test_a_local_symbol_is_made_global(self):
        rc, err, out = self.compile("memcpy_orig", [ROOT + "/tests/gate/kernel_local.S"])
        self.assertEqual(rc, 0, err)
        self.assertIn(" T mg_gate_memcpy_orig", subprocess.run(["nm", out], capture_output=True, text=True).stdout)
        with open(os.path.join(os.path.dirname(out), "plain.parts", "locals")) as f:
            self.assertEqual(f.read(), "memcpy_orig\n")

    def test_an_ambiguous_local_symbol_is_named(self):
        d = tmpdir(self)
        second = os.path.join(d, "second.S")
        with open(ROOT + "/tests/gate/kernel_local.S") as f, open(second, "w") as g:
            g.write(f.read().replace("kmemcpy", "kmemcpy2"))
        rc, err, _ = self.compile("memcpy_orig", [ROOT + "/tests/gate/kernel_local.S", second])
        self.assertEqual(rc, 3)
        self.assertIn("symbol 'memcpy_orig' is local in", err)
        self.assertIn("defined 2 times", err)

    def test_objects_and_several_entries(self):
        d = tmpdir(self)
        obj = os.path.join(d, "bytecopy.o")
        subprocess.check_call(["cc", "-O2", "-c", "-o", obj, FILE])
        rc, err, _ = self.compile("bytecopy", [obj])
        self.assertEqual(rc, 0, err)
        rc, err, _ = self.compile("bytecopy,nope", [obj])
        self.assertEqual(rc, 3)
        self.assertIn("symbol 'nope' is not defined", err)

    def test_glibc_data_is_defined_by_default(self):
        d = tmpdir(self)
        src = os.path.join(d, "reads.c")
        with open(src, "w") as f:
            f.write("extern long __x86_shared_non_temporal_threshold;\n"
                    "void *reads(void *d, const void *s, unsigned long n)\n"
                    "{ (void)n; return __x86_shared_non_temporal_threshold == 12345 ? (void *)s : d; }\n")
        defaults = os.path.join(d, "defaults.c")
        with open(defaults, "w") as f:
            f.write(submission.defaults_source(set()))
        rc, err, out = self.compile("reads", [src, defaults])
        self.assertEqual(rc, 0, err)
        merged = os.path.join(os.path.dirname(out), "plain.parts", "merged.o")
        self.assertEqual(submission.inspect(merged, "cc", ["reads"], []), [])
        rc, err, out = self.compile("reads", [src])
        merged = os.path.join(os.path.dirname(out), "plain.parts", "merged.o")
        self.assertIn("references symbols it does not define: __x86_shared_non_temporal_threshold",
                      submission.inspect(merged, "cc", ["reads"], [])[0])


class Reports(unittest.TestCase):
    def entry(self, name, verdict):
        return {"schema": report.SCHEMA, "variant": name, "op": "memcpy", "arch": "x86_64", "symbol": name,
                "files": ["a.o"], "verdict": verdict, "seconds": 1.0, "memgate": "x", "started": "2026-01-01T00:00:00Z",
                "checks": [{"name": "sweep", "status": "pass", "cases": 1, "seconds": 1.0, "note": ""}],
                "findings": [], "warnings": [], "could_not_judge": [], "not_applicable": [], "skipped": []}

    def test_overall(self):
        a, r, c = self.entry("a", "accepted"), self.entry("r", "rejected"), self.entry("c", "could-not-judge")
        self.assertEqual(report.overall([a, a]), "accepted")
        self.assertEqual(report.overall([a, c]), "could-not-judge")
        self.assertEqual(report.overall([c, r, a]), "rejected")

    def test_combined(self):
        entries = [self.entry("a", "accepted"), self.entry("b", "accepted")]
        d = tmpdir(self)
        paths = [os.path.join(d, n) for n in ("r.json", "r.sarif", "r.xml")]
        report.write_combined(entries, *paths)
        doc = json.load(open(paths[0]))
        self.assertEqual((doc["schema"], doc["verdict"], len(doc["entries"])), ("memgate-gate-run/1", "accepted", 2))
        self.assertEqual(len(json.load(open(paths[1]))["runs"]), 2)
        root = ET.parse(paths[2]).getroot()
        self.assertEqual((root.tag, [s.get("name") for s in root]),
                         ("testsuites", ["memgate gate: a", "memgate gate: b"]))


if __name__ == "__main__":
    unittest.main()

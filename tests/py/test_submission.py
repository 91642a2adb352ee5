"""The build-time rules on real objects: undefined symbols (harness globals,
libc calls), system-call instructions, --extern data, weak and hidden
symbols; and the helpers that keep odd file names safe."""
import os
import shutil
import subprocess
import unittest

from common import ROOT, tmpdir
from orchestration import submission

GATE = os.path.join(ROOT, "tests", "gate")


def merged(test, *sources, extra=()):
    d = tmpdir(test)
    srcs = [os.path.join(GATE, s) for s in sources] + list(extra)
    out = os.path.join(d, "plain.o")
    with open(os.devnull, "w") as null:
        rc = subprocess.call([os.path.join(ROOT, "scripts", "gate-compile"), out, os.path.splitext(sources[0])[0],
                              "cc", "-O2 -fno-builtin -fno-stack-protector"] + srcs, stderr=null)
    return rc, os.path.join(d, "plain.parts", "merged.o")


@unittest.skipUnless(shutil.which("cc") and shutil.which("nm"), "needs cc and binutils")
class Rules(unittest.TestCase):
    def problems(self, *sources, allowed=(), extra=()):
        rc, obj = merged(self, *sources, extra=extra)
        self.assertEqual(rc, 0)
        return submission.inspect(obj, "cc", os.path.splitext(sources[0])[0], list(allowed))

    def test_correct_routine_has_no_problem(self):
        self.assertEqual(self.problems("bytecopy.c"), [])

    def test_harness_global(self):
        p = self.problems("writes_harness_global.c")
        self.assertEqual(len(p), 1)
        self.assertIn("references symbols it does not define: mg_check_timeout_ms", p[0])

    def test_libc_calls(self):
        self.assertIn("mprotect", self.problems("calls_mprotect.c")[0])
        self.assertIn("_exit", self.problems("calls_exit.c")[0])

    def test_failure_functions_go_to_the_harness_stubs(self):
        # __chk_fail is allowed, and the renamed object calls the harness's
        # stub (harness/engine/noreturn.h), not the C library's.
        self.assertEqual(self.problems("calls_chk_fail.c"), [])
        rc, obj = merged(self, "calls_chk_fail.c")
        self.assertEqual(rc, 0)
        out = subprocess.run(["nm", "-u", os.path.join(os.path.dirname(os.path.dirname(obj)), "plain.o")],
                             stdout=subprocess.PIPE, check=True).stdout.decode().split()
        self.assertIn("mg_noreturn___chk_fail", out)
        self.assertNotIn("__chk_fail", out)

    def test_failure_functions_match_the_harness(self):
        # The stubs harness/engine/noreturn.h defines are the names the gate allows.
        with open(os.path.join(ROOT, "harness", "engine", "noreturn.h")) as f:
            text = f.read()
        import re
        stubbed = re.findall(r"^\tX\((\w+)\)", text, re.M)
        self.assertEqual(sorted(stubbed), sorted(submission.NORETURN_FAILURES))

    @unittest.skipUnless(os.uname().machine == "x86_64", "x86-64 assembly")
    def test_syscall_instruction(self):
        p = self.problems("raw_syscall.S")
        self.assertEqual(p, ["makes system calls: syscall at raw_syscall+0xb"])

    def test_extern_data_is_defined_by_the_gate(self):
        d = tmpdir(self)
        path = os.path.join(d, "externs.c")
        with open(path, "w") as f:
            f.write(submission.extern_source([("copy_threshold", 64)]))
        self.assertEqual(self.problems("extern_threshold.c", extra=[path]), [])
        self.assertIn("copy_threshold", self.problems("extern_threshold.c")[0])

    def test_weak_and_hidden(self):
        self.assertEqual(self.problems("weak_hidden.c"), [])

    def test_missing_symbol(self):
        rc, obj = merged(self, "bytecopy.c")
        self.assertIn("is not defined", submission.inspect(obj, "cc", "nope", [])[0])


class Helpers(unittest.TestCase):
    def test_c_string(self):
        self.assertEqual(submission.c_string('a "b" \\ é?'), '"a \\042b\\042 \\134 \\303\\251\\077"')

    def test_parse_extern(self):
        self.assertEqual(submission.parse_extern("x=0x10"), ("x", 16))
        for bad in ("x", "1x=2", "x=y", "x=99999999999999999999999"):
            with self.assertRaises(ValueError):
                submission.parse_extern(bad)

    def test_safe_name(self):
        self.assertEqual(submission.safe_name(2, "/a b/cöpy me.S"), "2-c_py_me.S")

    def test_syscall_pattern(self):
        for line in ("  4:\t0f 05 \tsyscall", "  4:\tcd 80\tint    $0x80", "  8:\td4000001 \tsvc\t#0x0",
                     "  4: 0f 34\t\tsysenter"):
            self.assertTrue(submission.SYSCALL_RE.search(line), line)
        self.assertFalse(submission.SYSCALL_RE.search("  4:\te8 00\tcall   syscall_wrapper"))


if __name__ == "__main__":
    unittest.main()

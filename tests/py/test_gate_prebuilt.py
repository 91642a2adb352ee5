"""What the compile step built, known before it runs (gate_prebuilt): a
recorded build is reused only while the submission, its options and
every file the compiler read (and every directory it searched) are as
they were; code that names its build directory is never recorded."""
import os
import unittest

from common import context, tmpdir
from orchestration import gate_prebuilt, submission

SOURCE = '#include "h.h"\nvoid *f(void *d, const void *s, unsigned long n) { return (void *)(WIDTH + (char *)d); }\n'


class Prebuilt(unittest.TestCase):
    def setUp(self):
        self.tmp = tmpdir(self)
        old = os.environ.get("MEMGATE_GATE_RESULTS")
        # The cache elsewhere: a new file in a directory searched is a new build.
        os.environ["MEMGATE_GATE_RESULTS"] = tmpdir(self)
        self.addCleanup(lambda: os.environ.__setitem__("MEMGATE_GATE_RESULTS", old) if old is not None
                        else os.environ.pop("MEMGATE_GATE_RESULTS", None))
        for d in ("inc1", "inc2", "w"):
            os.makedirs(os.path.join(self.tmp, d))
        self.header = os.path.join(self.tmp, "inc1", "h.h")
        self.write(self.header, "#define WIDTH 8\n")
        self.src = os.path.join(self.tmp, "f.c")
        self.write(self.src, SOURCE)

    def write(self, path, text):
        with open(path, "w") as f:
            f.write(text)

    def built(self, source=None):
        """A context whose build (the gate's compile step) read the header
        through -I inc2 -I inc1, recorded as code C."""
        ctx = context(self.tmp)
        ctx.opts["files"] = [self.src]
        ctx.entries = [dict(e, name="f", symbol="f") for e in ctx.entries]
        ctx.runner = []
        ctx.W = os.path.join(self.tmp, "w")
        flags = f"-O2 -I{self.tmp}/inc2 -I{self.tmp}/inc1"
        rc = submission.compile_object(os.path.join(ctx.W, "plain.o"), "f", "cc", flags, [source or self.src])
        self.assertEqual(rc, 0)
        return ctx

    def test_a_recorded_build_is_known_while_nothing_it_read_changed(self):
        ctx = self.built()
        self.assertTrue(gate_prebuilt.record(ctx, "C"))
        self.assertEqual(gate_prebuilt.lookup(ctx), ("C", ["f"]))

    def test_a_changed_header_is_a_new_build(self):
        ctx = self.built()
        gate_prebuilt.record(ctx, "C")
        self.write(self.header, "#define WIDTH 16\n")
        self.assertIsNone(gate_prebuilt.lookup(ctx))
        self.write(self.header, "#define WIDTH 8\n")
        self.assertEqual(gate_prebuilt.lookup(ctx), ("C", ["f"]))

    def test_a_header_that_would_shadow_the_one_read_is_a_new_build(self):
        ctx = self.built()
        gate_prebuilt.record(ctx, "C")
        self.write(os.path.join(self.tmp, "inc2", "h.h"), "#define WIDTH 8\n")
        self.assertIsNone(gate_prebuilt.lookup(ctx))

    def test_a_changed_submission_or_option_is_a_new_build(self):
        ctx = self.built()
        gate_prebuilt.record(ctx, "C")
        ctx.opts["src_align"] = 2
        self.assertIsNone(gate_prebuilt.lookup(ctx))
        ctx.opts["src_align"] = 1
        self.write(self.src, SOURCE + "\n")
        self.assertIsNone(gate_prebuilt.lookup(ctx))

    def test_code_that_names_its_build_directory_is_not_recorded(self):
        # The build's copy, as the gate compiles it.
        where = os.path.join(self.tmp, "w", "g.c")
        self.write(where, 'const char *f(void) { return __FILE__; }\n')
        ctx = self.built(where)
        self.assertFalse(gate_prebuilt.record(ctx, "C"))


if __name__ == "__main__":
    unittest.main()

"""Bad input to the scripts is one line of Usage (exit 2) with its real
cause, found before anything runs (issue 28): repeated and empty options,
arguments that are not UTF-8, files that are no input, a symbol that is
data, a report that cannot be written."""
import os
import shutil
import subprocess
import unittest

from common import ROOT, tmpdir
from orchestration import add_regression, cli, fuzz, gate, gate_options, submission, zoo

GOOD_C = os.path.join(ROOT, "tests/gate/bytecopy.c")
NOT_UTF8 = os.fsdecode(b"g\xff.c")


class Options(unittest.TestCase):
    def usage(self, call, pattern):
        with self.assertRaisesRegex(cli.Usage, pattern):
            call()

    def test_a_repeated_option_is_refused_not_overridden(self):
        self.usage(lambda: gate.parse(["--op", "memcpy", "--op", "memset", GOOD_C]), r"^--op given twice")
        self.usage(lambda: gate.parse(["--op=memcpy", "--quick", "--quick", GOOD_C]), r"^--quick given twice")
        self.usage(lambda: fuzz.parse_args(["--seconds=5", "--seconds", "6"]), r"^--seconds given twice")
        self.usage(lambda: add_regression.parse(["--target=memcpy", "--target=memset", "x.in"]), "--target given twice")
        self.usage(lambda: zoo.parse(["--only", "a", "--only=b"]), "--only given twice")

    def test_the_options_that_add_up_may_repeat(self):
        opts = gate.parse(["--op", "memcpy", "-D", "A=1", "-DB=2", "-I", "x", "--extern", "a=1", "--extern", "b=2",
                           GOOD_C])
        self.assertEqual(opts["tree_flags"], ["-DA=1", "-DB=2", "-Ix"])
        self.assertEqual(opts["extern"], ["a=1", "b=2"])

    def test_an_empty_value_is_no_value_not_the_default(self):
        self.usage(lambda: fuzz.parse_args(["--resume="]), r"^--resume needs a value, not an empty one$")
        self.usage(lambda: gate.parse(["--op=", GOOD_C]), r"^--op needs a value, not an empty one$")
        self.usage(lambda: gate.parse(["--op", "memcpy", "-D", "", GOOD_C]), r"^-D needs a value")
        self.usage(lambda: add_regression.parse(["--variant=", "x.in"]), r"^--variant needs a value")
        self.usage(lambda: zoo.parse(["--out="]), r"^--out needs a value")

    def test_a_flag_takes_no_value(self):
        self.usage(lambda: gate.parse(["--quick=yes"]), r"^--quick takes no value")
        self.usage(lambda: zoo.parse(["--list=1"]), r"^--list takes no value")

    def test_the_sweep_profile_is_one_of_three_and_quick_agrees_with_it(self):
        profile = lambda *argv: gate_options.profile_of(gate.parse(["--op=memcpy", *argv, GOOD_C]))
        self.assertEqual(profile(), "full")
        self.assertEqual(profile("--quick"), "quick")
        self.assertEqual(profile("--profile=smoke"), "smoke")
        self.assertEqual(profile("--quick", "--profile", "quick"), "quick")
        self.usage(lambda: profile("--profile=tiny"), r"^--profile must be smoke, quick or full, not 'tiny'$")
        self.usage(lambda: profile("--quick", "--profile=smoke"), r"^--quick is --profile=quick; it contradicts")
        self.assertEqual(gate_options.lighter("full", "quick"), "quick")
        self.assertEqual(gate_options.lighter("smoke", "quick"), "smoke")

    def test_non_utf8_arguments_are_refused_by_name(self):
        self.usage(lambda: gate.parse(["--op", "memcpy", NOT_UTF8]), r"^the file name 'g\\xff\.c' is not UTF-8")
        self.usage(lambda: gate.parse(["--op", "memcpy", "-D", "X=" + NOT_UTF8, GOOD_C]),
                   r"^the value of -D 'X=g\\xff\.c' is not UTF-8")
        self.usage(lambda: fuzz.parse_args(["--variant=" + NOT_UTF8]), r"^the value of --variant 'g\\xff\.c'")
        self.usage(lambda: zoo.parse(["--out", NOT_UTF8]), r"^the value of --out 'g\\xff\.c'")

    def test_shown_escapes_what_is_not_utf8(self):
        self.assertEqual(cli.shown(NOT_UTF8), "g\\xff.c")
        self.assertEqual(cli.shown("plain"), "plain")


class Files(unittest.TestCase):
    def setUp(self):
        self.d = tmpdir(self)

    def path(self, name):
        return os.path.join(self.d, name)

    def test_an_object_that_is_not_elf_names_the_cause(self):
        with open(self.path("notobj.o"), "w") as f:
            f.write("not an object\n")
        self.assertEqual(gate_options.not_an_object(self.path("notobj.o")),
                         "file format not recognized: no ELF header")
        shutil.copy("/bin/true", self.path("exe.o"))
        self.assertRegex(gate_options.not_an_object(self.path("exe.o")), r"not a relocatable object")
        with self.assertRaisesRegex(cli.Usage, r"notobj\.o: not an object file \(file format not recognized"):
            gate_options.validate_file(self.path("notobj.o"))

    def test_a_real_object_is_one(self):
        obj = self.path("b.o")
        subprocess.run(["cc", "-c", "-o", obj, GOOD_C], check=True)
        self.assertIsNone(gate_options.not_an_object(obj))

    def test_odd_files_given_to_the_gate(self):
        os.symlink("loop.c", self.path("loop.c"))
        os.mkdir(self.path("d.c"))
        os.mkfifo(self.path("f.c"))
        for name, pattern in (("loop.c", "Too many levels of symbolic links"), ("d.c", "is a directory"),
                              ("f.c", r"not a regular file \(a FIFO"), ("none.c", "no such file$")):
            with self.assertRaisesRegex(cli.Usage, pattern):
                gate_options.validate_file(self.path(name))

    def test_odd_files_given_to_add_regression_are_bad_input(self):
        os.symlink("loop", self.path("loop"))
        os.mkfifo(self.path("fifo"))
        with open(self.path("big.in"), "wb") as f:
            f.truncate(10 << 20)
        for name, pattern in (("loop", "Too many levels"), ("fifo", "is a FIFO"), (".", "is a directory"),
                              ("big.in", "10485760 bytes, over 4096"), ("none.in", "no such file$")):
            with self.assertRaisesRegex(cli.Usage, pattern):
                add_regression.check_input(self.path(name))

    def test_a_filed_regression_is_never_overwritten(self):
        with open(self.path("x-1.in"), "wb") as f:
            f.write(b"earlier")
        self.assertEqual(add_regression.free_name(self.d, "x-1", b"earlier"), self.path("x-1.in"))
        self.assertEqual(add_regression.free_name(self.d, "x-1", b"other"), self.path("x-1-2.in"))

    def test_an_unwritable_report_is_found_before_the_checks(self):
        with self.assertRaisesRegex(cli.Usage, r"^--report .*: no folder"):
            gate_options.writable_output("report", self.path("no/r.json"))
        with self.assertRaisesRegex(cli.Usage, r"is a directory"):
            gate_options.writable_output("sarif", self.d)
        gate_options.writable_output("junit", self.path("ok.xml"))
        self.assertEqual(os.listdir(self.d), [])


class DataSymbol(unittest.TestCase):
    def test_a_data_symbol_is_no_entry_point(self):
        d = tmpdir(self)
        src, obj = os.path.join(d, "t.c"), os.path.join(d, "t.o")
        with open(src, "w") as f:
            f.write("int some_table[64] = {1};\nconst char ro[4] = \"abc\";\nint zero[8];\n"
                    "void *t(void *d, const void *s, unsigned long n) { (void)s; (void)n; return d; }\n")
        subprocess.run(["cc", "-fno-common", "-c", "-o", obj, src], check=True)
        tools = submission.binutils("cc")
        defined = submission.symbols(tools, obj, "defined")
        self.assertIsNone(submission.missing_entry(tools, obj, "t", defined))
        for symbol, words in (("some_table", "initialised data"), ("ro", "read-only data"),
                              ("zero", "zero-initialised data")):
            self.assertRegex(submission.missing_entry(tools, obj, symbol, defined, " in t.c"),
                             rf"^symbol '{symbol}' in t\.c is not a function: nm says it is {words}")


if __name__ == "__main__":
    unittest.main()

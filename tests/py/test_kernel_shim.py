"""The kernel shim (orchestration/kernel_shim.py): header stand-ins made
from a file's own #include lines, the kernel constants the shim lacks, the
shim's use in tree flags; the gate's kernel contract default; an undefined
assembler constant told apart from data; fsrs and the glibc data defaults."""
import os
import re
import shutil
import subprocess
import unittest

from common import tmpdir
from orchestration import gate_context, gate_options, isa_features, kernel_shim, submission

ROOT = kernel_shim.ROOT


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


class Stubs(unittest.TestCase):
    def test_every_included_header_gets_an_empty_stand_in(self):
        d = tmpdir(self)
        src = write(os.path.join(d, "a.S"), "#include <linux/linkage.h>\n # include <asm/alternative.h>\n"
                                            '#include "local.h"\n#include <../escape.h>\n')
        inc = os.path.join(d, "inc")
        kernel_shim.stub_includes([src], inc)
        self.assertTrue(os.path.isfile(os.path.join(inc, "linux", "linkage.h")))
        self.assertTrue(os.path.isfile(os.path.join(inc, "asm", "alternative.h")))
        self.assertFalse(os.path.exists(os.path.join(inc, "local.h")))   # "..." is the tree's own
        self.assertFalse(os.path.exists(os.path.join(d, "escape.h")))    # nothing outside the folder

    def test_a_stand_in_already_there_is_kept(self):
        d = tmpdir(self)
        write(os.path.join(d, "inc", "asm", "page.h"), "#define X 1\n")
        kernel_shim.stub_includes([write(os.path.join(d, "a.S"), "#include <asm/page.h>\n")], os.path.join(d, "inc"))
        self.assertEqual(open(os.path.join(d, "inc", "asm", "page.h")).read(), "#define X 1\n")


class Constants(unittest.TestCase):
    def test_the_shim_defines_every_feature_of_both_generations(self):
        known = kernel_shim.defined()
        for name in ("X86_FEATURE_REP_GOOD", "X86_FEATURE_ERMS", "X86_FEATURE_FSRM", "X86_FEATURE_FSRS",
                     "ARM64_HAS_NO_HW_PREFETCH", "ARM64_HAS_MOPS", "SYM_FUNC_ALIAS_MEMFUNC", "SYM_PIC_ALIAS",
                     "__stringify"):
            self.assertIn(name, known)

    def test_an_unknown_constant_is_found_and_comments_are_not_read(self):
        d = tmpdir(self)
        src = write(os.path.join(d, "m.S"), "/* X86_FEATURE_IN_A_COMMENT */\n"
                                            "ALTERNATIVE \"\", \"\", X86_FEATURE_NEWER // ARM64_NOPE\n"
                                            "ALTERNATIVE \"\", \"\", X86_FEATURE_FSRS\n")
        self.assertEqual(kernel_shim.unknown_constants([src]), [(src, "X86_FEATURE_NEWER")])
        message = kernel_shim.unknown_message(kernel_shim.unknown_constants([src]))
        self.assertIn("the kernel constant X86_FEATURE_NEWER", message)
        self.assertIn("no --extern gives it", message)

    def test_a_config_nothing_defines_is_named_and_one_given_is_not(self):
        d = tmpdir(self)
        src = write(os.path.join(d, "m.S"), "/* #ifdef CONFIG_IN_A_COMMENT */\n#ifdef CONFIG_64BIT\n#endif\n"
                                            "#ifndef CONFIG_KASAN\n#endif\n#if defined(CONFIG_GIVEN) || "
                                            "IS_ENABLED(CONFIG_PAIR)\n#endif\n#ifdef CONFIG_KASAN\n#endif\n")
        shim = write(os.path.join(d, "shim.h"), "#define CONFIG_64BIT 1\n")
        self.assertEqual(kernel_shim.configs_off([src], ["-DCONFIG_GIVEN=1", "-D", "CONFIG_PAIR"], shim),
                         ["CONFIG_KASAN"])
        self.assertEqual(kernel_shim.configs_off([src], [], shim), ["CONFIG_KASAN", "CONFIG_GIVEN", "CONFIG_PAIR"])

    def test_the_shim_defines_config_64bit_for_riscv64s_memset(self):
        # 6.1's arch/riscv/lib/memset.S halves its jump into its unrolled
        # stores under it: built without it, the sweep crashed.
        self.assertIn("CONFIG_64BIT", kernel_shim.defined())

    def test_the_shim_in_tree_flags_makes_a_kernel_routine(self):
        self.assertTrue(kernel_shim.uses_shim(["-I", "x", "-include", kernel_shim.SHIM]))
        self.assertTrue(kernel_shim.uses_shim(["-include" + os.path.relpath(kernel_shim.SHIM)]))
        self.assertFalse(kernel_shim.uses_shim(["-include", "config.h"]))
        self.assertFalse(kernel_shim.uses_shim(["-include"]))


class ExtableTypeReg(unittest.TestCase):
    """The C half's _ASM_EXTABLE_TYPE_REG (zoo/kernel/shim_c.h): the entry's
    data word carries the operand's register number, and an operand that
    is not a general register stops the build, never a wrong entry."""

    def compile(self, operand):
        d = tmpdir(self)
        src = write(os.path.join(d, "t.c"),
                    "unsigned long f(unsigned long n, unsigned long *m)\n{\n"
                    '\tasm volatile("1: nop\\n2:\\n" _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_UCOPY_LEN4, %%0)'
                    " : %s);\n\treturn n;\n}\n" % operand)
        obj = os.path.join(d, "t.o")
        done = subprocess.run(["cc", "-O2", "-c", "-include", kernel_shim.SHIM, "-o", obj, src],
                              capture_output=True, text=True)
        return done, obj

    def test_a_register_operand_is_numbered_as_the_kernel_numbers_it(self):
        done, obj = self.compile('"+c"(n)')
        self.assertEqual(done.returncode, 0, done.stderr)
        raw = obj + ".bin"
        subprocess.run(["objcopy", "-O", "binary", "--only-section=__ex_table", obj, raw], check=True)
        with open(raw, "rb") as f:
            data = int.from_bytes(f.read()[8:12], "little")
        self.assertEqual(data, 19 | (4 << 16) | (1 << 8))  # UCOPY_LEN, imm 4, register 1 (cx)

    def test_a_memory_operand_stops_the_build(self):
        done, _ = self.compile('"+m"(*m)')
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("_ASM_EXTABLE_TYPE_REG: not a general register", done.stderr)


class Contract(unittest.TestCase):
    def test_the_kernel_shim_defaults_to_the_kernel_contract_and_contract_wins(self):
        self.assertEqual(gate_context.default_contract({"kernel_shim": True}, "memcpy"), "kernel")
        self.assertEqual(gate_context.default_contract({"kernel_shim": False}, "memcpy"), "user")
        self.assertEqual(gate_context.default_contract({"kernel_shim": False}, "clear_page"), "kernel")
        self.assertEqual(gate_context.default_contract({"kernel_shim": True, "contract": "user"}, "memset"), "user")

    def test_kernel_flag_parses_once(self):
        self.assertTrue(gate_options.parse(["--kernel", "f.S"])["kernel"])
        self.assertFalse(gate_options.parse(["f.S"])["kernel"])
        with self.assertRaises(gate_options.Usage):
            gate_options.parse(["--kernel", "--kernel", "f.S"])


@unittest.skipUnless(shutil.which("gcc"), "gcc is not installed")
class AssemblerConstants(unittest.TestCase):
    def obj(self, text):
        d = tmpdir(self)
        src = write(os.path.join(d, "c.S"), text)
        out = os.path.join(d, "c.o")
        subprocess.run(["gcc", "-c", "-o", out, src], check=True)
        return out

    def test_a_name_no_relocation_uses_is_an_assembler_constant(self):
        o = self.obj(".text\n.globl f\nf:\n.if (0) & (TREE_CONST)\nnop\n.endif\nret\n")
        problems = submission.inspect(o, "gcc", "f", [])
        self.assertEqual(len(problems), 1)
        self.assertIn("uses assembler constants it does not define: TREE_CONST", problems[0])
        self.assertIn("not data for --extern", problems[0])

    def test_a_datum_the_code_reads_is_still_data(self):
        o = self.obj(".text\n.globl f\nf:\nmovq tree_datum(%rip), %rax\nret\n")
        problems = submission.inspect(o, "gcc", "f", [])
        self.assertEqual(len(problems), 1)
        self.assertIn("references symbols it does not define: tree_datum", problems[0])
        self.assertEqual(submission.inspect(o, "gcc", "f", ["tree_datum"]), [])


class Features(unittest.TestCase):
    def test_fsrs_is_a_requires_fact_with_the_harness_bit(self):
        self.assertIn("fsrs", gate_options.FEATURES)
        self.assertIn("fsrs", isa_features.FACTS)
        bit = gate_options.FEATURE_BITS["fsrs"]
        header = open(os.path.join(ROOT, "harness", "engine", "variant.h")).read()
        self.assertRegex(header, rf"MG_FEAT_FSRS = 1u << {bit},")
        self.assertEqual(len(set(gate_options.FEATURE_BITS.values())), len(gate_options.FEATURE_BITS))
        names = open(os.path.join(ROOT, "harness", "engine", "cpu.c")).read()
        self.assertIn('{MG_FEAT_FSRS, "fsrs"}', names)

    def test_glibc_master_memset_threshold_has_its_default(self):
        defaults = dict(submission.GLIBC_X86_DEFAULTS)
        self.assertEqual(defaults["__x86_memset_non_temporal_threshold"],
                         defaults["__x86_shared_non_temporal_threshold"])
        text = submission.defaults_source({"__x86_shared_non_temporal_threshold"})
        self.assertIn("long __x86_memset_non_temporal_threshold = 786432L;", text)
        self.assertFalse(re.search(r"long __x86_shared_non_temporal_threshold =", text))


if __name__ == "__main__":
    unittest.main()

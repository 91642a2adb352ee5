"""The gate's --convention parser (scripts/orchestration/convention.py,
docs/conventions.md): what it accepts, its canonical text, the one-line
reason naming the bad token for what it refuses, and the fit to an op; the
C parser (harness/engine/convention.c) says the same, which
tests/run.d/conventions.sh checks through the gate and memgate."""
import unittest

from orchestration import convention

MOVS = "args=rdi,rsi,rcx ret=rcx clobbers=rax"
CLEAR = "args=rdi,rcx zero=rax"


class Parse(unittest.TestCase):
    def test_rep_movs_alternative(self):
        self.assertEqual(convention.parse(MOVS), {"args": ["rdi", "rsi", "rcx"], "ret": "rcx",
                                                   "clobbers": ["rax"], "zero": []})

    def test_clear_pages_unrolled(self):
        self.assertEqual(convention.parse(CLEAR), {"args": ["rdi", "rcx"], "ret": None,
                                                    "clobbers": [], "zero": ["rax"]})

    def test_c_is_no_convention(self):
        self.assertIsNone(convention.parse("c"))

    def test_canonical_text(self):
        self.assertEqual(convention.text_of(convention.parse("  zero=rax   args=rdi,rcx ")), CLEAR)
        self.assertEqual(convention.text_of(convention.parse("clobbers=rax ret=rcx args=rdi,rsi,rcx")), MOVS)

    def refused(self, text, reason, arch="x86_64"):
        with self.assertRaises(ValueError) as e:
            convention.parse(text, arch)
        self.assertEqual(str(e.exception), reason)

    def test_bad_tokens_are_named(self):
        self.refused("args=rdi,rsi,rcz ret=rcx", "unknown register 'rcz' (valid: rax, rcx, rdx, rbx, rbp, "
                     "rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15)")
        self.refused("args=rdi frobs=rax", "'frobs=rax' is not KEY=REGISTERS (keys: args, ret, clobbers, zero)")
        self.refused("args=rdi ret", "'ret' is not KEY=REGISTERS (keys: args, ret, clobbers, zero)")
        self.refused("args=rdi,rsi,rcx,rdx", "'args=' names more than 3 registers ('rdx')")
        self.refused("args=rdi ret=rax,rdx", "'ret=' names more than 1 register ('rdx')")
        self.refused("args=rdi,,rcx", "'args=' has an empty register name")
        self.refused("args=", "'args=' names no register")
        self.refused("args=rdi,rdi", "'rdi' named twice in 'args='")
        self.refused("args=rdi args=rsi", "'args=' given twice")
        self.refused("ret=rax", "no 'args=' (the registers of the arguments, in order)")
        self.refused("", "no 'args=' (the registers of the arguments, in order)")

    def test_the_stack_pointer_is_none_of_them(self):
        self.refused("args=rdi clobbers=rsp", "'rsp' is the stack pointer: no argument, result or clobber")

    def test_one_register_says_one_thing(self):
        self.refused("args=rdi,rcx zero=rcx", "'rcx' is an argument and zero= too")
        self.refused("args=rdi,rcx clobbers=rdi", "'rdi' is an argument, so may change already: not in clobbers=")
        self.refused("args=rdi ret=rax clobbers=rax", "'rax' is the result: not in clobbers=")

    def test_i386_has_its_own_registers(self):
        conv = convention.parse("args=eax,edx,ecx ret=eax", "i386")
        self.assertEqual((conv["args"], conv["ret"]), (["eax", "edx", "ecx"], "eax"))
        self.refused("args=eax clobbers=esp", "'esp' is the stack pointer: no argument, result or clobber",
                     arch="i386")

    def test_other_arches_say_why_not(self):
        self.refused(CLEAR, "unknown register 'rdi' (valid: eax, ecx, edx, ebx, ebp, esi, edi)", arch="i386")
        self.refused(CLEAR, "register conventions are implemented for x86-64 and i386 only, not aarch64",
                     arch="aarch64")


class Fits(unittest.TestCase):
    def fits(self, text, op):
        convention.check_fits(convention.parse(text), op)

    def misfit(self, text, op, reason):
        with self.assertRaises(ValueError) as e:
            self.fits(text, op)
        self.assertEqual(str(e.exception), reason)

    def test_each_op_takes_its_operands(self):
        self.fits(MOVS, "copy_from_user")
        self.fits(MOVS, "copy_to_user")
        self.fits("args=rdi,rcx ret=rcx", "clear_user")
        self.fits("args=rdi,rsi,rdx ret=rax clobbers=rcx", "memcpy")
        self.fits("args=rdi,rax,rcx ret=rdi", "memset")
        self.fits("args=rdi", "clear_page")
        self.fits(CLEAR, "clear_page")  # a page routine may take its length
        self.fits("args=rdi,rsi,rcx", "copy_page")

    def test_misfits_say_what_the_op_takes(self):
        self.misfit(CLEAR, "copy_from_user", "copy_from_user takes 3 arguments, and args= names 2")
        self.misfit("args=rdi,rsi,rcx zero=rax", "clear_page",
                    "clear_page takes 1 argument (and may take the length, 4096, after them), and args= names 3")
        self.misfit("args=rdi,rsi,rcx", "copy_from_user", "copy_from_user returns a value: ret= names its register")
        self.misfit("args=rdi,rcx ret=rcx", "clear_page", "clear_page returns nothing: no ret=")


if __name__ == "__main__":
    unittest.main()

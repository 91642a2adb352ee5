"""The uaccess audit (uaccess_audit; docs/contract.md, U9, AK6): x86's
listed user accesses must lie, along every path from the entry, between
a stac and a clac (the records MG_STAC/MG_CLAC and the kernel shim leave,
or the instructions themselves), a fixup in the state of its fault; a
routine with no brackets of its own is its caller's (n/a); arm64's listed
user accesses must be ldtr/sttr forms. The self-tests and their twins."""
import unittest

from common import ROOT, assemble, context, tmpdir
from orchestration import check_view, gate_isa, uaccess, uaccess_audit as U

HEAD = '#include "asmdefs.h"\n\t.text\n\t.globl f\n\t.type f, @function\nf:\n'


def outside(test, text, symbol="f", name="t"):
    rule, results = U.audit(assemble(test, text, name=name), [symbol])
    return [(where, why.split(" ")[0]) for where, _, why in results[0].outside], results[0], rule


class X86(unittest.TestCase):
    def test_the_self_test_and_its_twin(self):
        for arch, name in (("x86_64", "t"), ("i386", "t32")):
            bad = assemble(self, f'#include "{ROOT}/tests/bad/x86/bad_copy_to_user_stores_after_clac.S"\n', name=name)
            rule, results = U.audit(bad, [f"mg_{arch}_bad_copy_to_user_stores_after_clac"])
            found = U.findings(rule, results, "v", bad)
            self.assertEqual([(f["kind"], f["instruction"].split(" ")[0]) for f in found], [("smap-unbracketed", "mov")])
            self.assertIn("outside the SMAP brackets", found[0]["detail"])
            good = assemble(self, f'#include "{ROOT}/tests/bad/x86/copy_to_user_bracketed.S"\n', name=name)
            rule, results = U.audit(good, [f"mg_{arch}_copy_to_user_bracketed"])
            self.assertEqual((results[0].accesses, results[0].outside), (3, []))

    def test_a_fixup_that_returns_with_the_brackets_open(self):
        for arch, name in (("x86_64", "t"), ("i386", "t32")):
            bad = assemble(self, f'#include "{ROOT}/tests/bad/x86/bad_copy_to_user_fault_leaves_stac.S"\n', name=name)
            rule, results = U.audit(bad, [f"mg_{arch}_bad_copy_to_user_fault_leaves_stac"])
            found = U.findings(rule, results, "v", bad)
            self.assertEqual([(f["kind"], f["instruction"]) for f in found], [("smap-left-open", "ret")])
            self.assertEqual(results[0].outside, [])
            good = assemble(self, f'#include "{ROOT}/tests/bad/x86/copy_to_user_bracketed.S"\n', name=name)
            rule, results = U.audit(good, [f"mg_{arch}_copy_to_user_bracketed"])
            self.assertEqual(results[0].open_returns, [])

    def test_a_callee_returns_to_its_caller_not_out_of_the_routine(self):
        # g's ret, inside f's brackets, returns to f, which closes them; f's
        # own fixup returning with them open is the one found.
        body = "\tMG_STAC\n\tcall g\n\tMG_CLAC\n\tret\n\t.type g, @function\ng:\n1: movb %al, (%rdi)\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 2f)\n2: ret\n"
        _, result, _ = outside(self, HEAD + body)
        self.assertEqual([w.split("+")[0] for w, _ in result.open_returns], [])
        body = body.replace("\tcall g\n", "\tjmp g\n")  # a tail call: g's ret is f's own
        _, result, _ = outside(self, HEAD + body)
        self.assertEqual([w.split("+")[0] for w, _ in result.open_returns], ["g", "g"])

    def test_before_the_stac_and_after_the_clac(self):
        body = "1: movb (%rsi), %al\n\tMG_STAC\n2: movb %al, (%rdi)\n\tMG_CLAC\n3: movb %al, 1(%rdi)\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 4f)\n\tMG_EXTABLE_UA(2b, 4f)\n\tMG_EXTABLE_UA(3b, 4f)\n4: ret\n"
        where, result, _ = outside(self, HEAD + body)
        self.assertEqual([w for w, _ in where], ["f+0x0", "f+0xa"])
        self.assertEqual((result.accesses, result.brackets), (3, 2))

    def test_one_path_without_the_stac_is_enough(self):
        body = "\ttestq %rdx, %rdx\n\tjz 2f\n\tMG_STAC\n2:\n1: movb %al, (%rdi)\n\tMG_CLAC\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 3f)\n3: ret\n"
        where, _, _ = outside(self, HEAD + body)
        self.assertEqual(len(where), 1)

    def test_a_fixup_runs_in_the_state_of_its_fault(self):
        # The fixup's own access (a tail retry) is inside: the brackets are
        # open where the fault was; its clac closes them.
        body = "\tMG_STAC\n1: movq (%rsi), %rax\n\tMG_CLAC\n\tret\n2: movb (%rsi), %al\n\tMG_CLAC\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 2b)\n\tMG_EXTABLE_UA(2b, 3f)\n3: ret\n"
        where, result, _ = outside(self, HEAD + body)
        self.assertEqual((where, result.accesses), ([], 2))

    def test_stac_and_clac_written_as_instructions(self):
        body = "\tstac\n1: movb %al, (%rdi)\n\tclac\n2: movb %al, (%rdi)\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 3f)\n\tMG_EXTABLE_UA(2b, 3f)\n3: ret\n"
        where, _, _ = outside(self, HEAD + body)
        self.assertEqual([w for w, _ in where], ["f+0x8"])

    def test_a_jump_to_a_global_symbol_is_followed(self):
        # The assembler leaves a relocation for it: the target is read from it.
        body = "\tMG_STAC\n\tjmp g\n\t.globl g\n\t.type g, @function\ng:\n1: movb %al, (%rdi)\n\tMG_CLAC\n\tret\n" \
               "\tMG_EXTABLE_UA(1b, 2f)\n2: ret\n"
        where, result, _ = outside(self, HEAD + body)
        self.assertEqual((where, result.accesses), ([], 1))

    def test_without_brackets_of_its_own_the_caller_brackets_it(self):
        body = "1: movb %al, (%rdi)\n\tret\n\tMG_EXTABLE_UA(1b, 2f)\n2: ret\n"
        where, result, rule = outside(self, HEAD + body)
        self.assertEqual((where, result.brackets), ([], 0))
        self.assertFalse(U.applies([result], rule))
        self.assertIn("its caller brackets it", U.note(rule, [result]))

    def test_an_entry_not_defined_is_bad_input(self):
        obj = assemble(self, HEAD + "\tret\n")
        with self.assertRaises(U.elf_code.BadObject):
            U.audit(obj, ["missing"])


class Arm64(unittest.TestCase):
    def test_the_self_test_and_its_twin(self):
        bad = assemble(self, f'#include "{ROOT}/tests/bad/aarch64/bad_copy_to_user_plain_store.S"\n', "aarch64-linux-gnu")
        rule, results = U.audit(bad, ["mg_aarch64_bad_copy_to_user_plain_store"])
        found = U.findings(rule, results, "v", bad)
        self.assertEqual([(f["kind"], f["instruction"]) for f in found], [("pan-privileged-access", "strb w4, [x0]")])
        good = assemble(self, f'#include "{ROOT}/impls/aarch64/copy_to_user_bytes.S"\n', "aarch64-linux-gnu")
        rule, results = U.audit(good, ["mg_aarch64_copy_to_user_bytes"])
        self.assertEqual((results[0].accesses, results[0].outside, U.applies(results, rule)), (1, [], True))

    def test_every_unprivileged_form_and_a_kernel_access(self):
        body = ("\t.text\n\t.globl f\n\t.type f, %function\nf:\n"
                "\tMG_USER(1f, ldtrb w2, [x1])\n\tMG_USER(1f, sttrh w1, [x0])\n\tMG_USER(1f, ldtrsw x1, [x1])\n"
                "2:\tldr x2, [x1]\n\tMG_EXTABLE(2b, 1f, MG_EX_TYPE_KACCESS_ERR_ZERO, 0)\n1:\tret\n")
        obj = assemble(self, '#include "asmdefs.h"\n' + body, "aarch64-linux-gnu")
        rule, results = U.audit(obj, ["f"])
        self.assertEqual((results[0].accesses, results[0].outside), (3, []))


class GateRow(unittest.TestCase):
    def test_no_row_for_an_op_that_is_no_user_copy(self):
        # x86 memcpy: neither below-sp (aarch64's) nor uaccess applies
        # (store-order, x86's, does).
        rows = gate_isa.static_checks(context(tmpdir(self), foreign="", host="x86_64"))
        self.assertEqual([row.name for row, _, _ in rows], ["store-order"])

    def test_an_unreadable_object_could_not_be_judged(self):
        ctx = context(tmpdir(self), foreign="", host="x86_64")
        ctx.entries = [{"op": "copy_from_user", "symbol": "f", "family": "usercopy", "contract": "kernel"}]
        check, found, _ = uaccess.run(check_view.of(ctx))
        self.assertEqual((check.name, check.status, found), ("uaccess", "error", []))


if __name__ == "__main__":
    unittest.main()

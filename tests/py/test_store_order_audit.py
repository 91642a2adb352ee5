"""The store-order audit (store_order_audit; docs/contract.md, M1): on x86
every path from a non-temporal store to a return of the routine passes a
fence. The self-tests and their twins, and one test per way a path can
go: a fence on one branch only, a locked instruction, a callee that
fences, a fixup, a jump the audit cannot follow."""
import dataclasses
import unittest

from common import ROOT, assemble, context, tmpdir
from orchestration import check_view, store_order, store_order_audit as S

HEAD = '#include "asmdefs.h"\n\t.text\n\t.globl f\n\t.type f, @function\nf:\n'
SELF_TESTS = (("bad_copy_page_nt_unfenced", "copy_page_nt_fenced"),
              ("bad_memset_nt_unfenced", "memset_nt_fenced"))


def audit(test, text, symbol="f", name="t"):
    applies, results = S.audit(assemble(test, text, name=name), [symbol])
    test.assertTrue(applies)
    return results[0]


def unfenced(test, body, name="t"):
    """[(return's text, store's text)] of f = HEAD + body."""
    return [(ret, store.split(" ")[0]) for _, ret, _, store in audit(test, HEAD + body, name=name).unfenced]


class SelfTests(unittest.TestCase):
    def test_each_unfenced_routine_and_its_fenced_twin(self):
        for arch, name in (("x86_64", "t"), ("i386", "t32")):
            for bad, good in SELF_TESTS:
                obj = assemble(self, f'#include "{ROOT}/tests/bad/x86/{bad}.S"\n', name=name)
                _, results = S.audit(obj, [f"mg_{arch}_{bad}"])
                found = S.findings(results, "v", obj)
                self.assertEqual([(f["kind"], f["instruction"]) for f in found], [("unfenced-nt-store", "ret")],
                                 f"{arch} {bad}")
                self.assertRegex(found[0]["detail"], rf"^movnti .* at mg_{arch}_{bad}\+0x[0-9a-f]+ reaches ret at "
                                 rf"mg_{arch}_{bad}\+0x[0-9a-f]+ with no fence after it")
                obj = assemble(self, f'#include "{ROOT}/tests/bad/x86/{good}.S"\n', name=name)
                _, results = S.audit(obj, [f"mg_{arch}_{good}"])
                self.assertEqual((results[0].stores, results[0].unfenced, results[0].limits), (1, [], []),
                                 f"{arch} {good}")


class Paths(unittest.TestCase):
    def test_no_store_no_finding(self):
        r = audit(self, HEAD + "\tmovq %rsi, (%rdi)\n\tret\n")
        self.assertEqual((r.stores, r.unfenced), (0, []))
        self.assertIn("no weakly ordered store", S.note([r]))

    def test_a_fence_on_one_branch_only(self):
        self.assertEqual(unfenced(self, "\tmovntdq %xmm0, (%rdi)\n\ttestq %rdx, %rdx\n\tjz 1f\n\tsfence\n1:\tret\n"),
                         [("ret", "movntdq")])

    def test_the_fences(self):
        for fence in ("sfence", "mfence", "lock addl $0, (%rsp)", "xchgq %rax, (%rsp)", "cpuid"):
            self.assertEqual(unfenced(self, f"\tvmovntdq %ymm0, (%rdi)\n\t{fence}\n\tret\n"), [], fence)

    def test_lfence_is_no_store_fence(self):
        self.assertEqual(unfenced(self, "\tmovnti %rax, (%rdi)\n\tlfence\n\tret\n"), [("ret", "movnti")])

    def test_a_callee_that_fences_fences_for_its_caller(self):
        tail = "\tret\ng:\n\tsfence\n\tret\n"
        self.assertEqual(unfenced(self, "\tmovntps %xmm0, (%rdi)\n\tcall g\n" + tail), [])
        # and one that stores returns its stores unfenced to its caller
        self.assertEqual(unfenced(self, "\tcall h\n\tret\nh:\n\tmovnti %rax, (%rdi)\n\tret\n"),
                         [("ret", "movnti")])

    def test_a_fixup_is_a_path(self):
        # The second store's fault goes on at its fixup, which returns with
        # the first unfenced (the faulting store itself never happened).
        body = ("\tmovnti %rax, (%rdi)\n1:\tmovnti %rax, 8(%rdi)\n\tsfence\n\tret\n2:\tmovl $1, %eax\n\tret\n"
                "\t.section __ex_table, \"a\"\n\t.long 1b - .\n\t.long 2b - .\n\t.long 0\n\t.previous\n")
        self.assertEqual(unfenced(self, body), [("ret", "movnti")])

    def test_a_jump_it_cannot_follow_with_a_store_pending_is_a_limit(self):
        for leave in ("jmp *%rax", "jmp somewhere_else"):
            r = audit(self, HEAD + f"\tmovnti %rax, (%rdi)\n\t{leave}\n")
            self.assertEqual(r.unfenced, [])
            self.assertEqual(len(r.limits), 1, leave)
        # An object with no weakly ordered store anywhere has nothing to fence.
        self.assertEqual(audit(self, HEAD + "\tmovq %rax, (%rdi)\n\tjmp *%rax\n").limits, [])

    def test_the_first_limit_names_how_many_more(self):
        a, b = S.Result("a"), S.Result("b")
        self.assertEqual(S.first_limit([a, b]), "")
        a.limits, b.limits = ["jmp *%rax at a+0x4"], ["jmp x at b+0x9", "ret at b+0xc"]
        self.assertEqual(S.first_limit([a, b]), "jmp *%rax at a+0x4 (and 2 more)")

    def test_a_jump_table_reached_fenced_may_go_anywhere_in_its_function(self):
        # glibc's ssse3 copies dispatch through `jmp *reg`: every instruction
        # of the (sized) function may come next, and what it reaches counts.
        table = "\tjmp *%rax\n\tret\n2:\tmovnti %rax, (%rdi)\n\t{fence}\n\tret\n\t.size f, . - f\n"
        self.assertEqual(unfenced(self, table.format(fence="nop")), [("ret", "movnti")])
        r = audit(self, HEAD + table.format(fence="sfence"))
        self.assertEqual((r.stores, r.unfenced, r.limits), (1, [], []))
        # A call through a register may reach a helper of the object that
        # stores unfenced: not followed, so a limit where such stores exist.
        r = audit(self, HEAD + "\tsfence\n\tcall *%rax\n\tret\nh:\tmovnti %rax, (%rdi)\n\tret\n")
        self.assertEqual((r.unfenced, len(r.limits)), ([], 1))
        self.assertEqual(audit(self, HEAD + "\tcall *%rax\n\tret\n").limits, [])

    def test_i386(self):
        self.assertEqual(unfenced(self, "\tmovntq %mm0, (%edi)\n\temms\n\tret\n", name="t32"), [("ret", "movntq")])


class GateRow(unittest.TestCase):
    def view(self, obj, symbol, host="x86_64", foreign=""):
        ctx = context(tmpdir(self), foreign=foreign, host=host)
        ctx.entries = [{"op": "memset", "symbol": symbol, "family": "memset", "contract": "user"}]
        return dataclasses.replace(check_view.of(ctx), merged=obj)

    def test_the_row_and_its_finding(self):
        obj = assemble(self, f'#include "{ROOT}/tests/bad/x86/bad_memset_nt_unfenced.S"\n')
        row, found, _ = store_order.run(self.view(obj, "mg_x86_64_bad_memset_nt_unfenced"))
        self.assertEqual((row.name, row.status, [f["kind"] for f in found]),
                         ("store-order", "fail", ["unfenced-nt-store"]))
        self.assertEqual(found[0]["symbol"], "mg_x86_64_bad_memset_nt_unfenced")

    def test_a_path_it_cannot_follow_is_could_not_judge(self):
        obj = assemble(self, HEAD + "\tmovnti %rax, (%rdi)\n\tjmp *%rax\n")
        row, found, _ = store_order.run(self.view(obj, "f"))
        self.assertEqual((row.status, found), ("error", []))
        self.assertIn("indirect jump or call the audit cannot follow", row.note)

    def test_only_x86(self):
        ctx = context(tmpdir(self), foreign="aarch64", host="x86_64")
        self.assertFalse(store_order.applies(check_view.of(ctx)))
        self.assertTrue(store_order.applies(check_view.of(context(tmpdir(self), foreign="i386", host="x86_64"))))


if __name__ == "__main__":
    unittest.main()

"""The below-sp audit (sp_audit; docs/contract.md, A4, AK4): an aarch64
load or store at sp minus an offset, without write-back, is found with its
symbol+offset; pre-indexed pushes, post-indexed pops, prefetches and
offsets above sp are not; off aarch64 the gate's row is n/a."""
import unittest

from common import ROOT, context, tmpdir
from orchestration import below_sp, check_view, sp_audit
from test_bti import assemble, function


class Audit(unittest.TestCase):
    def test_the_self_test_and_its_twin(self):
        bad = assemble(self, f'#include "{ROOT}/tests/gate/stack/below_sp.S"\n', "bad")
        good = assemble(self, f'#include "{ROOT}/tests/gate/stack/below_sp_frame.S"\n', "good")
        found = sp_audit.findings(sp_audit.audit(bad), "below_sp")
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["detail"].split(" below sp")[0],
                         "stur xzr, [sp, #-0x10] at below_sp+0x0 (and 2 more) writes")
        self.assertEqual(sp_audit.audit(good).below, [])

    def test_what_does_not_reach_below_sp(self):
        body = "stp x29, x30, [sp, #-16]!\n\tldp x29, x30, [sp], #16\n\tprfum pldl1keep, [sp, #-64]\n\tldr x0, [sp, #8]"
        self.assertEqual(sp_audit.audit(assemble(self, function("f", body))).below, [])

    def test_loads_read_and_stores_write(self):
        result = sp_audit.audit(assemble(self, function("f", "ldp x2, x3, [sp, #-32]\n\tstr q0, [sp, #-16]")))
        self.assertEqual([(w, a) for w, _, a in result.below], [("f+0x0", "reads"), ("f+0x4", "writes")])

    def test_the_gate_row_off_aarch64(self):
        check, found, _ = below_sp.run(check_view.of(context(tmpdir(self), foreign="", host="x86_64")))
        self.assertEqual((check.name, check.status, found), ("below-sp", "n/a", []))


if __name__ == "__main__":
    unittest.main()

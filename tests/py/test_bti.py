"""The BTI audit (bti_audit, elf_code.aarch64_features; docs/contract.md,
A16): a BTI-marked aarch64 object's global functions start with a landing
pad; an unmarked object promises none; the gate's row is n/a off aarch64."""
import os
import shutil
import subprocess
import unittest

from common import ROOT, context, tmpdir
from orchestration import bti_audit, elf_code, gate_isa

NOTE = """
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4, 16, 5
	.asciz	"GNU"
	.word	0xc0000000, 4, {bits}, 0
	.popsection
"""


def assemble(test, text, name="t"):
    if not shutil.which("clang"):
        test.fail("clang is not installed (scripts/install-deps installs it)")
    d = tmpdir(test)
    src, obj = os.path.join(d, name + ".S"), os.path.join(d, name + ".o")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["clang", "--target=aarch64-linux-gnu", "-c", src, "-o", obj], check=True)
    return obj


def function(name, first):
    return f"\t.text\n\t.globl {name}\n\t.type {name}, %function\n{name}:\n\t{first}\n\tret\n\t.size {name}, .-{name}\n"


class Audit(unittest.TestCase):
    def test_the_self_test_and_its_twin(self):
        bad = assemble(self, f'#include "{ROOT}/tests/gate/bti/no_landing_pad.S"\n', "bad")
        good = assemble(self, f'#include "{ROOT}/tests/gate/bti/landing_pad.S"\n', "good")
        result = bti_audit.audit(bad)
        self.assertTrue(result.marked)
        self.assertEqual(result.missing, [("no_landing_pad", "movz x3, #0")])
        found = bti_audit.findings(result, "no_landing_pad")
        self.assertEqual([f["kind"] for f in found], ["abi-violation"])
        self.assertIn("no_landing_pad starts with movz x3, #0, not bti c or paciasp", found[0]["detail"])
        self.assertEqual(bti_audit.audit(good).missing, [])

    def test_each_pad_a_call_may_land_on(self):
        for first in ("hint 34", "hint 38", "hint 25", "hint 27"):  # bti c, bti jc, paciasp, pacibsp
            obj = assemble(self, function("f", first) + NOTE.format(bits=3))
            self.assertEqual(bti_audit.audit(obj).missing, [], first)
        for first, text in (("hint 36", "bti j"), ("hint 32", "bti"), ("nop", "nop")):
            obj = assemble(self, function("f", first) + NOTE.format(bits=1))
            self.assertEqual(bti_audit.audit(obj).missing, [("f", text)], first)

    def test_local_functions_owe_nothing(self):
        obj = assemble(self, function("f", "hint 34") + "\t.type g, %function\ng:\n\tnop\n\tret\n"
                       + NOTE.format(bits=1))
        self.assertEqual(bti_audit.audit(obj).entries, ["f"])

    def test_unmarked_objects_promise_nothing(self):
        for note in ("", NOTE.format(bits=2)):  # none; PAC alone
            result = bti_audit.audit(assemble(self, function("f", "nop") + note))
            self.assertFalse(result.marked)
            self.assertEqual(result.missing, [])
        self.assertEqual(elf_code.aarch64_features(elf_code.Object(
            assemble(self, function("f", "nop") + NOTE.format(bits=2)))), 2)

    def test_no_rows_off_aarch64(self):
        ctx = context(tmpdir(self), foreign="", host="x86_64")
        self.assertEqual(gate_isa.static_checks(ctx), [])
        check, found = gate_isa.bti_check(ctx)
        self.assertEqual((check.name, check.status, found), ("bti", "n/a", []))


if __name__ == "__main__":
    unittest.main()

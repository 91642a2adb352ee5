"""BTI, aarch64's row of the landing-pad rule (landing_pads; docs/contract.md,
A16): a BTI-marked aarch64 object's entries start with a landing pad; an
unmarked object promises none. The objects are assembled here (clang)."""
import os
import shutil
import subprocess
import unittest

from common import ROOT, tmpdir
from orchestration import landing_pads as L

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


class Bti(unittest.TestCase):
    def test_the_self_test_and_its_twin(self):
        bad = assemble(self, f'#include "{ROOT}/tests/gate/bti/no_landing_pad.S"\n', "bad")
        good = assemble(self, f'#include "{ROOT}/tests/gate/bti/landing_pad.S"\n', "good")
        pad, claimed, shstk, lacking = L.missing(bad, ["no_landing_pad"])
        self.assertEqual((pad.feature, claimed, shstk), ("BTI", True, False))
        self.assertEqual(lacking, [("no_landing_pad", "03 00 80 d2")])  # movz x3, #0
        found = L.findings(bad, ["no_landing_pad"], lambda s: "v")
        self.assertEqual((found[0]["kind"], found[0]["signature"]), ("landing-pad", "v landing-pad no_landing_pad"))
        self.assertIn("not bti c or bti jc or paciasp or pacibsp", found[0]["detail"])
        self.assertEqual(L.missing(good, ["landing_pad"])[1:], (True, False, []))

    def test_each_pad_a_call_may_land_on(self):
        for first in ("hint 34", "hint 38", "hint 25", "hint 27"):  # bti c, bti jc, paciasp, pacibsp
            obj = assemble(self, function("f", first) + NOTE.format(bits=3))
            self.assertEqual(L.missing(obj, ["f"])[3], [], first)
        for first in ("hint 36", "hint 32", "nop"):  # bti j, bti, nop: no pad for a call
            obj = assemble(self, function("f", first) + NOTE.format(bits=1))
            self.assertEqual([s for s, _ in L.missing(obj, ["f"])[3]], ["f"], first)

    def test_unmarked_objects_promise_nothing(self):
        for note in ("", NOTE.format(bits=2)):  # none; PAC alone
            _pad, claimed, _shstk, lacking = L.missing(assemble(self, function("f", "nop") + note), ["f"])
            self.assertEqual((claimed, lacking), (False, []))


if __name__ == "__main__":
    unittest.main()

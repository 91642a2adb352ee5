"""The landing-pad rule (docs/contract.md, X17): which objects claim IBT,
and which entries of a marked object lack endbr64 / endbr32. The objects
are assembled here (gcc, and gcc -m32 for i386)."""

import os
import shutil
import subprocess
import tempfile
import unittest

from common import ROOT  # noqa: F401  (puts scripts/ on sys.path)
from orchestration import elf_code, landing_pads as L

NOTE = """
	.section .note.gnu.property, "a"
	.p2align {align}
	.long 4, {descsz}, 5
	.asciz "GNU"
	.long 0xc0000002, 4, {bits}
	{pad}
"""


def assemble(test, body, bits, m32=False):
    if not shutil.which("gcc"):
        test.skipTest("no gcc")
    d = tempfile.mkdtemp(prefix="mg-pads-")
    test.addCleanup(shutil.rmtree, d, True)
    src, obj = os.path.join(d, "t.S"), os.path.join(d, "t.o")
    note = "" if bits is None else NOTE.format(align=2 if m32 else 3, descsz=12 if m32 else 16, bits=bits,
                                               pad="" if m32 else ".long 0")
    with open(src, "w") as f:
        f.write("\t.text\n\t.globl f, g\nf:\n" + body + "\n\tret\ng:\n\tendbr64\n\tret\n" + note)
    rc = subprocess.run(["gcc"] + (["-m32"] if m32 else []) + ["-c", "-o", obj, src], capture_output=True)
    if rc.returncode:
        test.skipTest("gcc cannot assemble it" + (" for i386" if m32 else ""))
    return obj


class LandingPads(unittest.TestCase):
    def test_marked_entry_without_endbr64(self):
        obj = assemble(self, "\tnop", 3)
        pad, claimed, shstk, lacking = L.missing(obj, ["f", "g"])
        self.assertEqual((pad.feature, claimed, shstk), ("IBT", True, True))
        self.assertEqual(lacking, [("f", "90 c3 f3 0f")])
        found = L.findings(obj, ["f"], lambda s: "v")
        self.assertEqual((found[0]["kind"], found[0]["symbol"], found[0]["signature"]),
                         ("landing-pad", "f", "v landing-pad f"))
        self.assertIn("not endbr64", found[0]["detail"])

    def test_marked_entry_with_endbr64(self):
        obj = assemble(self, "\tendbr64", 1)
        self.assertEqual(L.missing(obj, ["f", "g"])[1:], (True, False, []))

    def test_unmarked_or_shadow_stack_only_asks_nothing(self):
        for bits in (None, 2):
            obj = assemble(self, "\tnop", bits)
            _pad, claimed, shstk, lacking = L.missing(obj, ["f"])
            self.assertEqual((claimed, shstk, lacking), (False, bits == 2, []))

    def test_i386_wants_endbr32(self):
        obj = assemble(self, "\tendbr64", 1, m32=True)
        self.assertEqual(elf_code.Object(obj).arch, "i386")
        self.assertEqual([s for s, _ in L.missing(obj, ["f"])[3]], ["f"])
        obj = assemble(self, "\tendbr32", 1, m32=True)
        self.assertEqual(L.missing(obj, ["f"])[3], [])

    def test_a_symbol_not_defined_here_is_not_judged(self):
        obj = assemble(self, "\tnop", 1)
        self.assertEqual(L.missing(obj, ["elsewhere"])[3], [])


if __name__ == "__main__":
    unittest.main()

"""The ISA audit's RISC-V opcode map (riscv_decode): each instruction's
length and extension, and where it cannot judge. Checked word by word
(encodings as llvm-mc 14 gives them), and against llvm-objdump over the
tree's riscv64 sources and, where installed, glibc's riscv64 string
routines: an instruction is an extension's exactly when llvm-objdump
decodes it only with that extension enabled."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from common import ROOT
from orchestration import elf_code, isa_audit as A, riscv_decode as R

# Little-endian encodings, as llvm-mc --triple=riscv64 --show-encoding gives them.
WORDS = {
    "minu t2, t2, a2": ("b3d3c30a", "zbb"), "sh3add t6, t5, a1": ("b36fbf20", "zba"),
    "bseti a0, a1, 3": ("13953528", "zbs"), "bexti a0, a1, 63": ("13d5f54b", "zbs"),
    "rori a0, a1, 7": ("13d57560", "zbb"), "orc.b a0, a1": ("13d57528", "zbb"),
    "rev8 a0, a1": ("13d5856b", "zbb"), "zext.h a0, a1": ("3bc50508", "zbb"),
    "add.uw a0, a1, a2": ("3b85c508", "zba"), "slli.uw a0, a1, 5": ("1b955508", "zba"),
    "cpopw a0, a1": ("1b952560", "zbb"), "vsetvli t1, a2, e8, m8, ta, ma": ("5773360c", "v"),
    "vle8.v v0, (a1)": ("07800502", "v"), "vse8.v v0, (t0)": ("27800202", "v"),
    "csrr a0, vlenb": ("732520c2", "v"),
    # RV64GC: no extension.
    "frcsr a0": ("73253000", ""), "fence.i": ("0f100000", ""), "fence rw, rw": ("0f003003", ""),
    "fcvt.s.d fa0, fa1": ("53f51540", ""), "fcvt.d.s fa0, fa1": ("53850542", ""),
    "fmv.x.d a0, fa0": ("530505e2", ""), "lr.d a0, (a1)": ("2fb50510", ""),
    "amoadd.w a0, a1, (a2)": ("2f25b600", ""), "mulw a0, a1, a2": ("3b85c502", ""),
    "c.addi a0, 1": ("0505", ""), "slli a0, a1, 63": ("1395f503", ""), "srai a0, a1, 1": ("13d51540", ""),
    # Neither: the audit cannot judge them.
    "clmul a0, a1, a2": ("3395c50a", "zbc"), "cbo.zero (a0)": ("0f204500", "zicboz"),
    "custom-0": ("0b000000", R.OTHER), "c.lbu (Zcb)": ("0081", R.OTHER), "mret": ("73002030", R.OTHER),
    "fcvt.s.h fa0, fa1": ("53f52540", R.OTHER),
}


def one(hexbytes):
    insns = list(R.decode(bytes.fromhex(hexbytes), 0, len(hexbytes) // 2))
    return insns


class Words(unittest.TestCase):
    def test_each_instruction_its_extension(self):
        for text, (hexbytes, want) in WORDS.items():
            insns = one(hexbytes)
            self.assertEqual(len(insns), 1, text)
            self.assertEqual(insns[0][1].size, len(hexbytes) // 2, text)
            self.assertEqual(insns[0][1].extension, want, text)

    def test_b_extensions_are_named(self):
        self.assertTrue(one("b3d3c30a")[0][1].text.startswith("minu (.insn 0x0ac3d3b3)"))
        self.assertTrue(one("b36fbf20")[0][1].text.startswith("sh3add"))

    def test_longer_than_32_bits_ends_the_walk(self):
        insns = one("1f00000000000505")  # a 48-bit encoding, then c.addi: not read
        self.assertEqual([(off, i.size, i.extension) for off, i in insns], [(0, 0, R.OTHER)])
        self.assertEqual([(i.size, i.extension) for _, i in one("b3d3c3")], [(0, R.OTHER)])  # cut

    def test_audit_finds_zbb_and_cannot_judge_zbc(self):
        result = A.audit_bytes("riscv64", bytes.fromhex("b3d3c30a" "0505"))
        self.assertEqual((result.limits, result.needed(), result.instructions), ([], ["zbb"], 2))
        self.assertEqual(A.findings(result, [], "f")[0]["cover"], "zbb")
        self.assertEqual(A.findings(result, ["zbb"], "f"), [])
        result = A.audit_bytes("riscv64", bytes.fromhex("3395c50a"))
        self.assertIn("clmul (.insn 0x0ac59533) at code+0x0 needs zbc, which --requires cannot declare", result.limits[0])
        result = A.audit_bytes("riscv64", bytes.fromhex("0b000000"))
        self.assertIn("is neither RV64GC nor an extension --requires knows", result.limits[0])


# llvm-objdump's --mattr for RV64GC, and what each extension adds.
GC = "+m,+a,+f,+d,+c"
EXTENSIONS = ("v", "zba", "zbb", "zbs")
VECTOR_CSRS = ("vstart", "vxsat", "vxrm", "vcsr", "vl", "vtype", "vlenb")
LINE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$")


def objdump(paths, mattr):
    """{(path, offset in .text): its text} as llvm-objdump decodes the
    objects with `mattr` (one run for all of them)."""
    out = subprocess.run(["llvm-objdump", "-d", "--section=.text", f"--mattr={mattr}", *paths],
                         capture_output=True, text=True, check=True).stdout
    found, path = {}, None
    for line in out.splitlines():
        head = re.match(r"^(\S.*):\s+file format ", line)
        if head:
            path = head.group(1)
            continue
        m = LINE.match(line)
        if m:
            found[(path, int(m.group(1), 16))] = m.group(3).strip()
    return found


def their_extension(decoded, where):
    """The extension llvm-objdump needed to decode the instruction at
    `where` (decoded: {extension: objdump()}), "" for RV64GC."""
    base = decoded[""].get(where, "")
    if base and not base.startswith("<unknown>"):
        csr = base.startswith("csr") and any(n in re.split(r"[\s,]+", base) for n in VECTOR_CSRS)
        return "v" if csr else ""
    for ext in EXTENSIONS:
        text = decoded[ext].get(where, "")
        if text and not text.startswith("<unknown>"):
            return ext
    return R.OTHER


@unittest.skipUnless(shutil.which("llvm-objdump") and shutil.which("clang"), "needs clang and llvm-objdump")
class AgainstObjdump(unittest.TestCase):
    def compare(self, paths):
        """How many instructions of the objects' .text were compared."""
        decoded = {"": objdump(paths, GC)}
        decoded.update({ext: objdump(paths, f"{GC},+{ext}") for ext in EXTENSIONS})
        n = 0
        for path in paths:
            obj = elf_code.Object(path)
            text = obj.section_named(".text")
            for start, end in elf_code.code_ranges(obj, text) if text else ():
                for off, insn in R.decode(text.data, start, end):
                    if insn.word == 0 and insn.size == 2:
                        continue  # zero padding, which llvm-objdump prints as "..."
                    n += 1
                    mine = insn.extension if insn.extension in ("",) + EXTENSIONS else R.OTHER
                    self.assertEqual(mine, their_extension(decoded, (path, off)), f"{path}+{off:#x}: {insn.text}")
        return n

    def test_the_trees_riscv64_sources(self):
        sources = sorted(glob.glob(os.path.join(ROOT, "impls/riscv64/*.S"))
                         + glob.glob(os.path.join(ROOT, "tests/bad/riscv64/*.S")))
        self.assertTrue(sources)
        with tempfile.TemporaryDirectory() as tmp:
            objects = []
            for src in sources:
                objects.append(os.path.join(tmp, os.path.basename(src) + ".o"))
                subprocess.run(["clang", "--target=riscv64-linux-gnu", "-march=rv64gcv_zba_zbb_zbs",
                                "-I", os.path.join(ROOT, "harness/arch"), "-c", src, "-o", objects[-1]], check=True)
            self.assertGreater(self.compare(objects), 500)

    @unittest.skipUnless(os.path.exists("/usr/riscv64-linux-gnu/lib/libc.a"), "needs libc6-dev-riscv64-cross")
    def test_glibc_string_routines(self):
        with tempfile.TemporaryDirectory() as tmp:
            members = subprocess.run(["ar", "t", "/usr/riscv64-linux-gnu/lib/libc.a"], capture_output=True,
                                     text=True, check=True).stdout.split()
            wanted = [m for m in members if re.match(r"(mem|str|wmem|bzero|bcopy)", m)]
            subprocess.run(["ar", "x", "/usr/riscv64-linux-gnu/lib/libc.a", *wanted], cwd=tmp, check=True)
            self.assertGreater(self.compare([os.path.join(tmp, m) for m in wanted]), 1000)


if __name__ == "__main__":
    unittest.main()

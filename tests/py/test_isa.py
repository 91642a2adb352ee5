"""The ISA audit's mapping (isa_audit, isa_features): Capstone 4.0.2's
groups and the documented rules give each instruction its feature; what
runs everywhere needs none; --requires, the baseline and the implications
decide what is undeclared; a missing Capstone is an error, never a pass."""
import sys
import unittest

from common import ROOT  # noqa: F401  (puts scripts/ on sys.path)
from orchestration import gate_options, isa_audit as A, isa_features as F

# Bytes as GNU as 2.40 assembles them (objdump -d).
X86 = {
    "shlx %rax,%rbx,%rcx": ("c4e2f9f7cb", "bmi2"),
    "bzhi %rax,%rbx,%rcx": ("c4e2f8f5cb", "bmi2"),
    "sarx %rax,%rbx,%rcx": ("c4e2faf7cb", "bmi2"),
    "tzcnt %rax,%rbx": ("f3480fbcd8", "bmi1"),
    "lzcnt %rax,%rbx": ("f3480fbdd8", "lzcnt"),
    "popcnt %rax,%rbx": ("f3480fb8d8", "popcnt"),
    "movbe (%rax),%rbx": ("480f38f018", "movbe"),
    "vmovdqu (%rax),%ymm0": ("c5fe6f00", "avx"),
    "vmovdqu64 (%rax),%zmm0": ("62f1fe486f00", "avx512f"),
    "vmovdqu8 (%rax),%zmm1": ("62f17f486f08", "avx512bw"),
    "pshufb %xmm1,%xmm2": ("660f3800d1", "ssse3"),
    "xbegin": ("c7f800000000", "rtm"),
}
# Run on every x86-64 CPU: no feature, no false alarm.
X86_NOTHING = {"rep movsb": "f3a4", "cpuid": "0fa2", "xgetbv": "0f01d0", "prefetchw (%rax)": "0f0d08",
               "prefetcht0 (%rax)": "0f1808", "nopw 0(%rax,%rax,1)": "660f1f440000", "endbr64": "f30f1efa",
               "movdqu (%rax),%xmm0": "f30f6f00", "cmove %rax,%rbx": "480f44d8", "lfence": "0faee8"}


def features(arch, hexbytes):
    result = A.audit_bytes(arch, bytes.fromhex(hexbytes))
    return result, sorted(result.needed())


class Groups(unittest.TestCase):
    def test_each_instruction_its_feature(self):
        for text, (hexbytes, want) in X86.items():
            result, got = features("x86_64", hexbytes)
            self.assertEqual(result.limits, [], text)
            self.assertIn(want, got, text)

    def test_what_every_cpu_runs_needs_nothing(self):
        for text, hexbytes in X86_NOTHING.items():
            result, got = features("x86_64", hexbytes)
            self.assertEqual((result.limits, got), ([], []), text)

    def test_i386_baseline_has_no_sse(self):
        _, got = features("i386", "f30f6f00")  # movdqu (%eax),%xmm0
        self.assertEqual(got, ["sse2"])
        _, got = features("i386", "0f44d8")  # cmove %eax,%ebx: i686
        self.assertEqual(got, [])

    def test_aarch64_armv8_0_and_its_groups(self):
        # ldp q0,q1,[x1]; dc zva,x0; prfm; ld1 {v0.16b}: baseline. crc32b: crc32.
        _, got = features("aarch64", "200040ad" "20740bd5" "200080f9" "2070404c")
        self.assertEqual(got, [])
        _, got = features("aarch64", "2040c21a")
        self.assertEqual(got, ["crc32"])


class Armhf(unittest.TestCase):
    """armhf: Capstone's ARM groups, the d16-d31 operand rule, ARM and
    Thumb (encodings as llvm-mc 14 gives them)."""

    def test_arm_state(self):
        self.assertEqual(features("armhf", "0d0a21f4")[1], ["neon"])  # vld1.8 {d0, d1}, [r1]!
        self.assertEqual(features("armhf", "000bd0ed")[1], ["vfpd32"])  # vldr d16, [r0]
        self.assertEqual(features("armhf", "008b90ed" "0130d1e4")[1], [])  # vldr d8; ldrb: baseline

    def test_thumb_state(self):
        result = A.Result("armhf")
        data = bytes.fromhex("21f90d0a" "11f8013b" "0346" "d0ed000b")
        A.audit_range(A.decoder("armhf", "thumb"), result, data, 0, len(data), lambda off: f"t+{off:#x}")
        self.assertEqual((result.limits, sorted(result.needed()), result.instructions), ([], ["neon", "vfpd32"], 4))

    def test_neon_covers_the_32_double_registers(self):
        result, _ = features("armhf", "0d0a21f4" "000bd0ed")
        self.assertEqual(result.minimal(), ["neon"])
        self.assertEqual(A.findings(result, ["neon"], "f"), [])

    def test_what_it_does_not_map_is_a_limit(self):
        for hexbytes in ("020ba1ee", "11f230e7"):  # vfma.f64 (VFPv4), udiv (the divide extension)
            result, _ = features("armhf", hexbytes)
            self.assertIn("is not mapped to a feature", result.limits[0], hexbytes)


class Rules(unittest.TestCase):
    def test_evex_capstone_cannot_decode(self):
        # vpcmpeqb %zmm1,%zmm2,%k1; vpternlogd $0xff,%zmm1,%zmm2,%zmm3 (imm8, map 0F3A);
        # vpminub through EVEX at 256 bits is VL.
        self.assertEqual(A.evex_rule(bytes.fromhex("62f16d4874c9"), True), (6, ["avx512f"]))
        self.assertEqual(A.evex_rule(bytes.fromhex("62f36d4825d9ff"), True), (7, ["avx512f"]))
        self.assertEqual(A.evex_rule(bytes.fromhex("62f16d2874c9"), True), (6, ["avx512f", "avx512vl"]))
        self.assertIsNone(A.evex_rule(bytes.fromhex("62f16d48"), True))  # cut short
        self.assertIsNone(A.evex_rule(bytes.fromhex("620000000000"), False))  # i386: bound

    def test_opmask_capstone_cannot_decode(self):
        self.assertEqual(A.kmask_rule(bytes.fromhex("c5fb93c1"), True), (4, ["avx512bw"]))  # kmovd %k1,%eax
        self.assertEqual(A.kmask_rule(bytes.fromhex("c4e1fb93c1"), True), (5, ["avx512bw"]))  # kmovq %k1,%rax
        self.assertEqual(A.kmask_rule(bytes.fromhex("c4e1f898d1"), True), (5, ["avx512bw"]))  # kortestq
        self.assertIsNone(A.kmask_rule(bytes.fromhex("c5fe6f00"), True))  # vmovdqu: no opmask

    def test_a_whole_evex_run_resyncs(self):
        # vpcmpeqb, kmovd, then ret: all decoded, nothing left.
        result, got = features("x86_64", "62f16d4874c9" "c5fb93c1" "c3")
        self.assertEqual((result.limits, got, result.instructions), ([], ["avx512bw", "avx512f"], 3))

    def test_aarch64_sve_and_mops_words(self):
        for word, want in ((0xA400A020, "sve"), (0x25211C00, "sve"), (0x45A2C020, "sve"),
                           (0x19010440, "mops"), (0x19C24420, "mops"), (0x1D010440, "mops"),
                           (0xF8200041, None), (0x1EE22820, None)):
            self.assertEqual(A.aarch64_rule(word), want, hex(word))

    def test_undecodable_is_a_limit(self):
        result, _ = features("aarch64", "410020f8")  # ldadd (LSE): Capstone 4 does not know it
        self.assertEqual(len(result.limits), 1)
        self.assertIn("cannot decode 0xf8200041", result.limits[0])
        result, _ = features("x86_64", "660f38f818")  # movdir64b
        self.assertIn("no rule applies", result.limits[0])


class Coverage(unittest.TestCase):
    def test_implications_and_minimal(self):
        self.assertTrue(F.covered("avx", ["avx2"], "x86_64"))
        self.assertTrue(F.covered("avx", ["avx512bw"], "x86_64"))
        self.assertFalse(F.covered("bmi2", ["avx2"], "x86_64"))
        self.assertTrue(F.covered("sse2", [], "x86_64"))
        self.assertFalse(F.covered("sse2", [], "i386"))
        self.assertEqual(F.minimal(["avx", "avx512f", "avx512bw", "sse2"], "x86_64"), ["avx512bw"])
        self.assertEqual(F.minimal(["sve", "sve2"], "aarch64"), ["sve2"])

    def test_undeclared_and_cover(self):
        result, _ = features("x86_64", "c5fe6f00" "c4e2f8f5cb" "62f1fe486f00")  # avx, bmi2, avx512f
        self.assertEqual([f for f, _ in result.undeclared([])], ["bmi2", "avx512f"])
        found = A.findings(result, ["avx2", "erms"], "v")
        self.assertEqual([f["feature"] for f in found], ["bmi2", "avx512f"])
        self.assertEqual(found[0]["cover"], "avx2,avx512f,bmi2,erms")  # avx512f implies avx, not avx2
        self.assertEqual(found[0]["signature"], "v undeclared-feature bmi2")
        self.assertIn("bzhi", found[0]["detail"])

    def test_every_audited_feature_is_a_requires_name(self):
        for f in F.X86 + F.AARCH64:
            self.assertIn(f, gate_options.FEATURES, f)
        for f in set(F.X86_GROUPS.values()) | set(F.AARCH64_GROUPS.values()) | set(F.X86_MNEMONICS.values()):
            self.assertTrue(f in F.X86 + F.AARCH64 or f in sum(F.BASELINE.values(), ()), f)

    def test_host_lacks(self):
        text = "processor: 0\nflags\t\t: fpu sse sse2 pni avx avx2 bmi1\n"
        self.assertEqual(F.host_lacks(["sse3", "avx2", "bmi2", "bmi1"], text), ["bmi2"])


class Cli(unittest.TestCase):
    def test_emit_c_added_to_a_finding_repro_line_says_why_there_is_no_program(self):
        from orchestration import cli, isa_cli
        for argv in (["--arch=armhf", "x.o", "--emit-c", "case.c"], ["--emit-c=case.c", "x.o"]):
            with self.assertRaisesRegex(cli.Usage, r"^--emit-c: an ISA audit finding is of the code itself "
                                        r".*: this command without --emit-c shows it$"):
                isa_cli.parse(argv)


class FailsClosed(unittest.TestCase):
    def test_missing_capstone_is_cannot_audit(self):
        saved, where = sys.modules.get("capstone"), A.DEBIAN_DIST
        sys.modules["capstone"] = None  # import raises ImportError
        A.DEBIAN_DIST = "/nonexistent"
        try:
            with self.assertRaises(A.CannotAudit) as e:
                A.decoder("x86_64")
            self.assertIn("Capstone is not installed", str(e.exception))
        finally:
            A.DEBIAN_DIST = where
            if saved is None:
                del sys.modules["capstone"]
            else:
                sys.modules["capstone"] = saved


if __name__ == "__main__":
    unittest.main()


class Zoo(unittest.TestCase):
    def test_compare_with_what_the_zoo_declares(self):
        from orchestration import zoo_isa
        # glibc's avx512 memset before the zoo's table knew its BMI2.
        self.assertEqual(zoo_isa.compare(["avx512bw", "avx512vl", "bmi2"], ["avx512bw", "avx512f", "avx512vl"],
                                         "x86_64"), (["bmi2"], []))
        # A selector's condition the code does not use is named; the baseline is not.
        self.assertEqual(zoo_isa.compare(["avx512vl"], ["avx512vl", "avx512bw", "bmi2", "sse2"], "x86_64"),
                         ([], ["avx512bw", "bmi2"]))
        self.assertEqual(zoo_isa.compare(["sve"], ["sve", "zva256"], "aarch64"), ([], []))

    def test_a_gate_report_entry_gives_the_row_its_audit(self):
        from orchestration import zoo_isa
        self.assertEqual(zoo_isa.of_entry({"isa": {"minimal_requires": ["avx512f"], "declared": []}}),
                         {"minimal_requires": ["avx512f"], "declared": []})
        self.assertIsNone(zoo_isa.of_entry({"verdict": "accepted"}))

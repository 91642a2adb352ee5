"""The misaligned check (riscv64 under qemu: misaligned.py, docs/arches.md,
"Misaligned accesses"): where it applies, how the plugin's records are
read, and the verdict under each contract and with --requires
misaligned_fast."""
import os
import struct
import unittest

from common import context, tmpdir
from orchestration import misaligned, misaligned_verify
from orchestration.check_result import Check

LOAD = {"record": "misaligned", "pc": "0x4000025d5a", "start_code": "0x4000000000", "symbol": "mg_gate_f",
        "address": "0x41039fef7f", "width": 8, "access": "load", "pid": 1, "at": "mg_gate_f+0x8"}
STORE = dict(LOAD, pc="0x4000025d5e", address="0x4104a0ff7f", access="store", at="mg_gate_f+0xc")


def riscv(tmp, **over):
    return context(tmp, **dict({"host": "x86_64", "arch": "riscv64", "foreign": "riscv64",
                                "emulated": "qemu-riscv64"}, **over))


class Applies(unittest.TestCase):
    def test_riscv64_under_qemu_only(self):
        tmp = tmpdir(self)
        self.assertEqual(misaligned.not_applicable(riscv(tmp)), "")
        self.assertIn("x86_64 hardware performs", misaligned.not_applicable(context(tmp)))
        self.assertIn("natively", misaligned.not_applicable(riscv(tmp, emulated="")))

    def test_the_plugin_value(self):
        ctx = riscv(tmpdir(self), B="build/riscv64")
        value = misaligned.plugin_value(ctx, "/r/m.jsonl", ["mg_gate_f", "helper"])
        self.assertTrue(value.startswith("file=/"))
        self.assertTrue(value.endswith("/build/riscv64/qemu-misaligned.so,out=/r/m.jsonl,sym=mg_gate_f,sym=helper"))


def fake_qemu(test, help_text):
    """A qemu-user whose -h prints help_text."""
    path = os.path.join(tmpdir(test), "qemu-riscv64")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nprintf '%s\\n' '{help_text}'\n")
    os.chmod(path, 0o755)
    return path


class Plugins(unittest.TestCase):
    """The watch is a plugin: a qemu that loads none (a static build, as
    bookworm-backports') cannot run it, and says so."""

    def test_which_qemu_loads_plugins(self):
        self.assertTrue(misaligned.loads_plugins(fake_qemu(self, "-plugin   QEMU_PLUGIN  [file=]<file>")))
        self.assertFalse(misaligned.loads_plugins(fake_qemu(self, "-d item1[,...]")))
        self.assertFalse(misaligned.loads_plugins("/nonexistent/qemu-riscv64"))

    def test_a_qemu_without_plugins_cannot_watch(self):
        tmp = tmpdir(self)
        os.makedirs(os.path.join(tmp, "build/riscv64"))
        open(os.path.join(tmp, "build/riscv64", misaligned.PLUGIN), "w").close()
        qemu = fake_qemu(self, "-d item1[,...]")
        symbols, problem = misaligned.watched_symbols(riscv(tmp, B=os.path.join(tmp, "build/riscv64"), emulated=qemu))
        self.assertEqual(symbols, [])
        self.assertEqual(problem, f"{qemu} loads no plugins (a static build): the watch needs a qemu-user that "
                         "does, as Debian 12's (QEMU_RISCV64 names it)")


class Log(unittest.TestCase):
    def write(self, lines):
        path = os.path.join(tmpdir(self), "m.jsonl")
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path

    def test_one_record_per_instruction(self):
        import json
        first = {k: v for k, v in LOAD.items() if k != "at"}
        again = dict(first, address="0x1001", pid=2)  # a forked child's first
        self.assertEqual(misaligned.read_log(self.write([json.dumps(first), json.dumps(again)])), [first])

    def test_an_empty_file_is_nothing_misaligned_and_a_missing_one_an_error(self):
        self.assertEqual(misaligned.read_log(self.write([])), [])
        with self.assertRaises(OSError):
            misaligned.read_log(os.path.join(tmpdir(self), "none.jsonl"))
        with self.assertRaises(ValueError):
            misaligned.read_log(self.write(['{"record": "other"}']))

    def test_the_first_code_segment(self):
        header = bytearray(64)
        header[:4] = b"\x7fELF"
        struct.pack_into("<Q", header, 32, 64)
        struct.pack_into("<HH", header, 54, 56, 2)
        data = struct.pack("<IIQQ", 1, 4, 0, 0x1000).ljust(56, b"\0") + struct.pack("<IIQQ", 1, 5, 0, 0x2000).ljust(56, b"\0")
        self.assertEqual(misaligned.first_code_segment(bytes(header) + data), 0x2000)


class Verdict(unittest.TestCase):
    def judge(self, seen, contract="user", requires=(), sweep="pass"):
        ctx = riscv(tmpdir(self), contract=contract, requires=list(requires))
        return misaligned.verdict(ctx, seen, Check("sweep", sweep, 100), "REPRO", ["mg_gate_f"])

    def test_kernel_code_gets_a_finding_per_instruction(self):
        check, findings, warnings = self.judge([LOAD, STORE], contract="kernel")
        self.assertEqual((check.status, len(findings), warnings), ("fail", 2, []))
        self.assertEqual(findings[0]["kind"], "misaligned-access")
        self.assertTrue(findings[0]["detail"].startswith(
            "misaligned access: a 8-byte load at 0x41039fef7f (address % 8 = 7) by mg_gate_f+0x8: kernel"))
        self.assertEqual(findings[1]["signature"], "bytecopy misaligned-access mg_gate_f+0xc")
        self.assertEqual(findings[0]["repro"], "REPRO")

    def test_user_code_gets_one_warning(self):
        check, findings, warnings = self.judge([LOAD, STORE])
        self.assertEqual((check.status, findings, len(warnings)), ("pass", [], 1))
        self.assertEqual(warnings[0]["name"], "misaligned-access")
        self.assertIn("2 instructions made misaligned accesses, first a 8-byte load", warnings[0]["text"])

    def test_misaligned_fast_allows_them(self):
        for contract in ("kernel", "user"):
            check, findings, warnings = self.judge([LOAD], contract=contract, requires=["misaligned_fast"])
            self.assertEqual((check.status, findings, warnings), ("pass", [], []))
            self.assertIn("which --requires misaligned_fast allows", check.note)

    def test_none_seen(self):
        check, _, _ = self.judge([], contract="kernel")
        self.assertEqual(check.status, "pass")
        self.assertIn("watched by qemu's plugin in mg_gate_f", check.note)
        # A sweep that stopped at its first finding watched only part of it.
        self.assertEqual(self.judge([], sweep="fail")[0].status, "n/a")


if __name__ == "__main__":
    unittest.main()


class MakeVerify(unittest.TestCase):
    """The same watch around make verify's memgate verify of the tree's
    variants (misaligned_verify): each variant judged by its code and row."""
    ROWS = [("k_bad", "mg_gate_f", "kernel", misaligned_verify.EXPECT_WATCHED),
            ("k_twin", "mg_k_twin", "kernel", "pass"), ("k_plain", "mg_gate_f2", "kernel", "pass"),
            ("u_words", "mg_u", "user", "pass"), ("k_missed", "mg_k_missed", "kernel", misaligned_verify.EXPECT_WATCHED)]

    def test_each_variant_by_its_code_and_row(self):
        seen = [LOAD, dict(STORE, symbol="mg_gate_f2", at="mg_gate_f2+0xc"), dict(LOAD, symbol="mg_u", at="mg_u+0x8")]
        verdicts = {r["variant"]: r["verdict"] for r in misaligned_verify.judge(self.ROWS, seen)}
        self.assertEqual(verdicts, {"k_bad": "caught", "k_twin": "pass", "k_plain": "misaligned-access",
                                    "u_words": "warning", "k_missed": "not-caught"})

    def test_the_lines(self):
        records = misaligned_verify.judge(self.ROWS, [dict(STORE, symbol="mg_gate_f2", at="mg_gate_f2+0xc")])
        lines = [misaligned_verify.line_of(r) for r in records]
        self.assertIn("FAIL misaligned-access: k_plain (kernel code): 1 instruction(s), first a 8-byte store at "
                      "0x4104a0ff7f (address % 8 = 7) by mg_gate_f2+0xc", lines)
        self.assertIn("FAIL not caught: k_bad expects a misaligned access, and the watch saw none", lines)

    def test_the_command(self):
        findings, runner, memgate, options = misaligned_verify.parse(
            ["--findings=F", "--", "qemu-riscv64", "-cpu", "rv64", "build/riscv64/memgate", "verify", "--set",
             "selftest", "--variant=a,b", "--huge=off"])
        self.assertEqual((findings, runner, memgate), ("F", ["qemu-riscv64", "-cpu", "rv64"], "build/riscv64/memgate"))
        self.assertEqual(misaligned_verify.choosers(options), ["--set=selftest", "--variant=a,b"])
        for bad in (["qemu-riscv64", "build/riscv64/memgate", "run"], ["build/riscv64/memgate", "verify"]):
            with self.assertRaises(misaligned_verify.cli.Usage):
                misaligned_verify.parse(["--"] + bad)

"""CPU models, --extern value lists and the contract (issue 14, items 4-6):
which qemu models a routine runs under, the runs and their labels, the
contract macro the build gets, and a verdict per run."""
import types
import unittest

from common import ROOT
from orchestration import cpu_models, gate, gate_options, gate_runs, gate_verdict, submission
from orchestration.check_result import Check
from orchestration.run_labels import label_of

FILE = ROOT + "/tests/gate/bytecopy.c"


def opts(*argv):
    return gate.validate(gate.parse(list(argv) + [FILE]))


class Models(unittest.TestCase):
    def test_models_for_facts(self):
        self.assertEqual(cpu_models.models_for([]), ["max", "cortex-a57", "a64fx"])
        self.assertEqual(cpu_models.models_for(["zva64"]), ["cortex-a57"])
        self.assertEqual(cpu_models.models_for(["sve", "avx2"]), ["max", "a64fx"])
        self.assertEqual(cpu_models.models_for(["sve", "zva64"]), [])

    def test_riscv64_models(self):
        vlen = lambda n: f"rv64,v=true,vlen={n},vext_spec=v1.0"
        rv64gc = "rv64,v=false,zba=false,zbb=false,zbc=false,zbs=false"
        # A scalar routine: the first model and RV64GC, where undeclared V or B faults.
        self.assertEqual(cpu_models.models_for([], "riscv64"), [vlen(128), rv64gc])
        # One that requires v: every VLEN, and never RV64GC.
        self.assertEqual(cpu_models.models_for(["v", "zbb"], "riscv64"), [vlen(n) for n in (128, 256, 512, 1024)])
        self.assertEqual(cpu_models.models_for(["zba"], "riscv64"), [vlen(128)])
        self.assertEqual(cpu_models.model_facts("", "riscv64"), ("v", "zba", "zbb", "zbs"))
        self.assertEqual(cpu_models.model_facts(rv64gc, "riscv64"), ())

    def test_cpu_keeps_the_named_models_in_their_order(self):
        ctx = types.SimpleNamespace(opts=opts("--op=memcpy", "--cpu", "a64fx", "--cpu=max"), arch="aarch64",
                                    emulated="qemu", requires=[])
        self.assertEqual(gate_runs.chosen_models(ctx, ["max", "cortex-a57", "a64fx"]), ["max", "a64fx"])
        self.assertEqual(gate_verdict.models_left_out(ctx), "not run under cpu cortex-a57 (--cpu)")
        self.assertEqual(gate_verdict.cpu_models_not_run(ctx), ["cortex-a57"])
        # Of those the routine runs under: with sve, cortex-a57 is none of them.
        ctx.requires = ["sve"]
        self.assertEqual(gate_verdict.models_left_out(ctx), "")

    def test_without_cpu_every_model_runs(self):
        ctx = types.SimpleNamespace(opts=opts("--op=memcpy"), arch="aarch64", emulated="qemu", requires=[])
        self.assertEqual(gate_runs.chosen_models(ctx, ["max", "a64fx"]), ["max", "a64fx"])
        self.assertEqual(gate_verdict.models_left_out(ctx), "")

    def test_cpu_refused_where_it_picks_nothing(self):
        ctx = types.SimpleNamespace(opts=opts("--op=memcpy", "--cpu", "cortex-a57"), arch="aarch64", emulated="qemu")
        with self.assertRaisesRegex(gate_options.Usage, r"^--cpu cortex-a57: not a model this routine runs "
                                    r"under \(valid: max, a64fx\)$"):
            gate_runs.chosen_models(ctx, ["max", "a64fx"])
        ctx = types.SimpleNamespace(opts=opts("--op=memcpy", "--cpu", "max"), arch="x86_64", emulated="")
        with self.assertRaisesRegex(gate_options.Usage, "x86_64 code runs natively here"):
            gate_runs.chosen_models(ctx, [""])

    def test_a_user_copy_only_where_the_exception_table_is_emulated(self):
        entry = lambda op: {"op": op, "family": "usercopy" if op.endswith("_user") else "memcpy"}
        refused = lambda op, arch: gate_runs.user_copy_refused(
            types.SimpleNamespace(entries=[entry(op)], arch=arch, host="x86_64"))
        for arch in ("x86_64", "i386", "aarch64", "generic"):
            self.assertEqual(refused("copy_from_user", arch), "", arch)
        self.assertEqual(refused("memcpy", "armhf"), "")
        self.assertEqual(refused("clear_user", "riscv64"),
                         "clear_user: the kernel's exception table is emulated for x86_64, i386 and aarch64 "
                         "(docs/usercopy.md), not riscv64: a fault in the user buffer could not be resumed as "
                         "the kernel resumes it, so a user copy cannot be judged there")

    def test_facts_of_another_arch(self):
        self.assertEqual(cpu_models.foreign_facts(["v", "sve", "avx2"], "riscv64"), ["sve"])
        self.assertEqual(cpu_models.foreign_facts(["v"], "aarch64"), ["v"])
        self.assertEqual(cpu_models.arch_of_fact("zbs"), "riscv64")

    def test_riscv64_march_follows_requires(self):
        from orchestration import gate_build
        self.assertEqual(gate_build.riscv_march([]), "-march=rv64gc")
        self.assertEqual(gate_build.riscv_march(["zbb", "v", "fpu"]), "-march=rv64gcv_zbb")

    def test_none_has_names_the_facts(self):
        self.assertEqual(cpu_models.none_has(["sve", "zva64"]),
                         "needs sve,zva64: no qemu model here has both sve and a 64-byte ZVA block")
        self.assertEqual(cpu_models.none_has(["mops"]), "needs mops: no qemu model here has mops")
        self.assertIn("all of mops, sve and a 64-byte ZVA block", cpu_models.none_has(["zva64", "sve", "mops"]))


class Externs(unittest.TestCase):
    def test_value_lists(self):
        self.assertEqual(submission.parse_extern_values("t=1,0x10"), ("t", [1, 16], None))
        self.assertEqual(submission.parse_extern_values("t=5"), ("t", [5], None))
        with self.assertRaises(ValueError):
            submission.parse_extern_values("t=1,x")
        with self.assertRaises(ValueError):
            submission.parse_extern_values("t=1,0x1")

    def test_a_range_runs_its_ends_their_neighbours_and_powers_of_two_between(self):
        self.assertEqual(submission.parse_extern_values("t=8..0x10000"),
                         ("t", [8, 9, 16, 1024, 32768, 65535, 65536], (8, 65536)))
        # A 64-bit count's range: 2^32 (a 32-bit truncation) and 2^63 (the sign) among them.
        self.assertEqual(submission.range_values(0, 2**64 - 1),
                         [0, 1, 2, 2**32, 2**63, 2**64 - 2, 2**64 - 1])
        self.assertEqual(submission.range_values(5, 6), [5, 6])
        self.assertEqual(submission.range_values(-5, 3), [-5, -4, 2, 3])
        for bad in ("t=9..8", "t=4..4", "t=1..x", "t=..5"):
            with self.assertRaises(ValueError, msg=bad):
                submission.parse_extern_values(bad)

    def test_a_range_is_recorded_for_the_reports(self):
        o = opts("--op=memcpy", "--extern", "a=16..64", "--extern", "b=3")
        self.assertEqual(o["extern_ranges"], {"a": (16, 64)})
        self.assertEqual([s[0][1] for s in o["extern_sets"]], [16, 17, 32, 63, 64])

    def test_one_run_per_combination(self):
        o = opts("--op=memcpy", "--extern", "a=1,2", "--extern", "b=3")
        self.assertEqual(o["extern_sets"], [[("a", 1), ("b", 3)], [("a", 2), ("b", 3)]])
        self.assertEqual(o["extern"], [("a", 1), ("b", 3)])

    def test_labels(self):
        runs = [("", [("t", 16)]), ("", [("t", 0x100000)])]
        self.assertEqual(label_of("", [("t", 16)], runs), "t=16")
        self.assertEqual(label_of("", [("t", 0x100000)], runs), "t=0x100000")
        self.assertEqual(label_of("max", [("t", 1)], [("max", [("t", 1)])]), "cpu max")


class Contract(unittest.TestCase):
    def macro(self, *argv):
        o = opts(*argv)
        ctx = gate.Context(o)
        return ctx.contract, gate.contract_macro(ctx, ctx.entries[0])

    def test_defaults(self):
        self.assertEqual(self.macro("--op=copy_page"),
                         ("kernel", "MG_CONTRACT_KERNEL(4096, 4096, 4096, 4096, MG_KERNEL)"))
        self.assertEqual(self.macro("--op=memcpy"), ("user", "MG_CONTRACT(1, 1, 1)"))

    def test_declared_fpu_and_user_pages(self):
        self.assertEqual(self.macro("--op=clear_page", "--requires=fpu")[1],
                         "MG_CONTRACT_KERNEL(4096, 4096, 4096, 4096, MG_KERNEL | MG_KERNEL_USES_FPU)")
        self.assertEqual(self.macro("--op=copy_page", "--contract=user")[1], "MG_CONTRACT_PAGE")
        self.assertEqual(self.macro("--op=memcpy", "--contract=kernel", "--src-align=8")[1],
                         "MG_CONTRACT_KERNEL(8, 1, 1, 0, MG_KERNEL)")

    def test_each_entry_its_own_default(self):
        ctx = gate.Context(opts("--entry=memcpy=a", "--entry=copy_page=b"))
        self.assertEqual([gate.contract_macro(ctx, e) for e in ctx.entries],
                         ["MG_CONTRACT(1, 1, 1)", "MG_CONTRACT_KERNEL(4096, 4096, 4096, 4096, MG_KERNEL)"])

    def test_bad_contract(self):
        with self.assertRaises(gate.Usage):
            opts("--op=memcpy", "--contract=both")


class PerRun(unittest.TestCase):
    def test_a_verdict_per_run(self):
        results = []
        for run, status in (("cpu max", "pass"), ("cpu cortex-a57", "fail")):
            c = Check("sweep", status, 10, 1.0, "quick profile")
            c.run = run
            results.append(c)
        build = Check("build", "pass")
        findings = [{"check": "sweep", "run": "cpu cortex-a57", "kind": "wrong-result", "signature": "s"}]
        self.assertEqual(gate.run_verdicts([build] + results, findings),
                         ["  cpu max: ACCEPTED", "  cpu cortex-a57: REJECTED, 1 finding(s)"])
        self.assertEqual(gate.verdict_of(results, findings), "rejected")

    def test_a_static_finding_is_every_runs(self):
        results = []
        for run in ("cpu max", "cpu a64fx"):
            c = Check("sweep", "pass", 10, 1.0, "quick profile")
            c.run = run
            results.append(c)
        static = Check("uaccess", "fail", 5, 0.0, "")
        findings = [{"check": "uaccess", "kind": "pan-privileged-access", "signature": "s"}]
        self.assertEqual(gate.run_verdicts([static] + results, findings),
                         ["  cpu max: REJECTED, 1 finding(s)", "  cpu a64fx: REJECTED, 1 finding(s)"])


class Reports(unittest.TestCase):
    def test_a_finding_belongs_to_its_own_run(self):
        from orchestration import report
        checks = [{"name": "sweep", "status": "pass", "run": "cpu max"},
                  {"name": "sweep", "status": "fail", "run": "cpu cortex-a57"}]
        f = {"check": "sweep", "run": "cpu cortex-a57", "kind": "wrong-result", "detail": "d", "input": "",
             "repro": "r", "signature": "s"}
        report.validate_finding(f, checks, "here")
        with self.assertRaises(report.BadWorkdir):
            report.validate_finding(dict(f, run="cpu max"), checks, "here")


if __name__ == "__main__":
    unittest.main()

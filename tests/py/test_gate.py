"""The gate's command line and its verdict: bad usage is one line; the
verdict line names what is n/a, skipped or could not be judged."""
import unittest

from common import ROOT
from orchestration import gate, gate_context
from orchestration.checks import Check

FILE = ROOT + "/tests/gate/bytecopy.c"


def usage(argv):
    try:
        gate.validate(gate.parse(argv))
    except gate.Usage as e:
        return str(e)
    return None


class Options(unittest.TestCase):
    def test_bad_usage(self):
        cases = {
            ("--op", "memfrob", FILE): "unknown op 'memfrob'",
            (FILE,): "--op is required",
            ("--op", "memcpy", "/nope.c"): "/nope.c: no such file",
            ("--fast", "--op", "memcpy", FILE): "unknown option '--fast'",
            ("--op", "memcpy", "--src-align=3", FILE): "--src-align 3 is not a power of two",
            ("--op", "memcpy", "--seconds=99999999999999999999", FILE): "--seconds 99999999999999999999 is too large",
            ("--op", "memcpy", "--requires=avx9", FILE): "unknown feature 'avx9'",
            ("--op", "copy_page", "--returns=dst", FILE): "page routines return void",
            ("--op", "memcpy", "--skip=sweep", FILE): "the sweep and its ABI checks always run",
            ("--op", "memcpy", "--extern", "x", FILE): "--extern 'x' is not NAME=VALUE",
            ("--op", "memcpy", "--extern=x=1", "--extern=x=2", FILE): "--extern names one symbol twice",
            ("--op", "memcpy", "--seconds=0", FILE): "--seconds '0' is not a positive whole number",
            ("--op", "memcpy", "--seconds=-5", FILE): "--seconds '-5' is not a positive whole number",
            ("--op", "memcpy", "--seconds=1.5", FILE): "--seconds '1.5' is not a positive whole number",
            ("--op", "memcpy", "--seconds=Least", FILE): "--seconds 'Least' is not a positive whole number",
            ("--op", "memcpy", "--max-slowdown=0", FILE): "--max-slowdown '0' is not a number above 0",
            ("--op", "memcpy", "--max-slowdown=1.1x", FILE): "--max-slowdown '1.1x' is not a number above 0",
        }
        for argv, want in cases.items():
            self.assertIn(want, usage(list(argv)) or "accepted", argv)

    def test_defaults(self):
        o = gate.validate(gate.parse(["--op=memcpy", "--extern", "t=0x40", FILE]))
        self.assertEqual((o["symbol"], o["seconds"], o["returns"], o["extern"]), ("bytecopy", 60, "dst", [("t", 64)]))


class Budget(unittest.TestCase):
    """--seconds bounds the checks of every run together: CPU models,
    --extern value sets and entry points divide it, never multiply it."""

    def ctx(self, seconds, entries=1):
        from orchestration import gate_runs
        c = gate.Context(gate.validate(gate.parse(["--op=memcpy", f"--seconds={seconds}", FILE])))
        c.entries = [{}] * entries
        return c, gate_runs.share_of

    def test_cpu_models_divide_the_budget(self):
        ctx, share_of = self.ctx(60)
        runs = [(m, []) for m in ("max", "cortex-a57", "a64fx")]
        shares = [share_of(ctx, m, e, runs) for m, e in runs]
        self.assertEqual([s for s, _ in shares], [30, 15, 15])
        self.assertLessEqual(sum(s for s, _ in shares), 60)
        self.assertIn("15 s of --seconds 60, divided over 3 CPU models", shares[1][1])

    def test_the_default_grows_with_cpu_models(self):
        """No --seconds: the first model keeps the default 60 s, each
        further model adds its part (120 s in all for three models)."""
        from orchestration import gate_runs
        ctx = gate.Context(gate.validate(gate.parse(["--op=memcpy", FILE])))
        ctx.entries = [{}]
        runs = [(m, []) for m in ("max", "cortex-a57", "a64fx")]
        shares = [gate_runs.share_of(ctx, m, e, runs) for m, e in runs]
        self.assertEqual([s for s, _ in shares], [60, 30, 30])
        self.assertIn("30 s of the default 120 s, divided over 3 CPU models", shares[1][1])

    def test_the_default_grows_with_extern_sets(self):
        """No --seconds: each set of --extern values gets the default
        60 s (its checks as thorough as a run with one value)."""
        from orchestration import gate_runs
        ctx = gate.Context(gate.validate(gate.parse(["--op=memcpy", FILE])))
        ctx.entries = [{}]
        runs = [("", [("t", 1)]), ("", [("t", 2)])]
        shares = [gate_runs.share_of(ctx, m, e, runs) for m, e in runs]
        self.assertEqual([s for s, _ in shares], [60, 60])
        self.assertIn("60 s of the default 120 s, divided over 2 sets", shares[0][1])

    def test_one_run_is_not_divided(self):
        ctx, share_of = self.ctx(60)
        self.assertEqual(share_of(ctx, "", [], [("", [])]), (60, ""))

    def test_every_division_together(self):
        ctx, share_of = self.ctx(120, entries=2)
        runs = [(m, e) for e in ([("t", 1)], [("t", 2)]) for m in ("max", "cortex-a57")]
        total = sum(share_of(ctx, m, e, runs)[0] for m, e in runs) * len(ctx.entries)
        self.assertLessEqual(total, 120)
        self.assertEqual(share_of(ctx, "max", [("t", 1)], runs)[0], 20)  # 60 per set, 40 of it for max, 2 entries


class Verdict(unittest.TestCase):
    def test_verdicts(self):
        ok, bad, err = Check("sweep", "pass"), Check("sweep", "fail"), Check("huge", "error", note="x")
        self.assertEqual(gate.verdict_of([ok], []), "accepted")
        self.assertEqual(gate.verdict_of([ok, err], []), "could-not-judge")
        self.assertEqual(gate.verdict_of([bad, err], [{"check": "sweep"}]), "rejected")

    def test_qualifiers(self):
        results = [Check("sweep", "pass"), Check("valgrind", "n/a", note="needs rtm, which valgrind hides"),
                   Check("fuzz", "skip", note="--skip"), Check("bench", "skip", note="--no-bench")]
        self.assertEqual(gate.qualifiers(results),
                         "valgrind n/a: needs rtm, which valgrind hides; skipped: fuzz, bench")

    def test_reasons_grouped(self):
        results = [Check("abi", "error", note="r1"), Check("sweep", "error", note="r1"), Check("fuzz", "error", note="r2")]
        self.assertEqual(gate.by_reason(results), ["abi, sweep: r1", "fuzz: r2"])

    def test_dedupe(self):
        f = {"check": "fuzz", "signature": "s"}
        self.assertEqual(gate.dedupe([f, dict(f), dict(f, check="sweep")]), [f, dict(f, check="sweep")])



class FuzzBudget(unittest.TestCase):
    def budget(self, **over):
        from common import context, tmpdir
        ctx = context(tmpdir(self), **over)
        ctx.deadline.remaining = lambda: 60.0
        return ctx.fuzz_budget()

    def test_fuzzing_leaves_time_for_the_checks_after_it(self):
        # Regressions, valgrind and the bench are kept back from fuzzing (a
        # bench killed at the deadline was "could not judge" on i386).
        r, v, b = gate_context.AFTER_FUZZ_REGRESSIONS, gate_context.AFTER_FUZZ_VALGRIND, gate_context.AFTER_FUZZ_BENCH
        self.assertEqual(self.budget(foreign="", emulated=""), 60 - r - v - b)
        self.assertEqual(self.budget(foreign="i386", emulated=""), 60 - r - b)
        self.assertEqual(self.budget(foreign="aarch64", emulated="qemu-aarch64"), 60 - r)
        self.assertEqual(self.budget(foreign="", emulated="", bench=False), 60 - r - v)


class BudgetRecord(unittest.TestCase):
    """gate.json's budget: what the checks were given and where programs
    are stopped, as numbers (the deadline test bounds the gate from it)."""

    def record(self, seconds):
        return gate.Context(gate.validate(gate.parse(["--op=memcpy", f"--seconds={seconds}", FILE]))).budget()

    def test_a_plain_budget_is_hard(self):
        self.assertEqual(self.record("30"), {"seconds": 30, "given": "seconds", "stretch": 1})

    def test_a_raised_budget_may_stretch(self):
        ctx = gate.Context(gate.validate(gate.parse(["--op=memcpy", "--seconds=8+", FILE])))
        ctx.opts["seconds"], ctx.raised_from = 21, 8  # as gate_plan.decide raises it
        self.assertEqual(ctx.budget(), {"seconds": 21, "given": "raise", "stretch": gate_context.RAISED_STRETCH,
                                        "raised_from": 8})
        self.assertEqual(self.record("least")["given"], "least")


if __name__ == "__main__":
    unittest.main()

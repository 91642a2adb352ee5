"""The gate's command line and its verdict: bad usage is one line; the
verdict line names what is n/a, skipped or could not be judged."""
import unittest

from common import ROOT
from orchestration import gate, gate_options
from orchestration.check_result import Check

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
        self.assertEqual((o["symbol"], o["seconds"], o["returns"], o["extern"]), ("bytecopy", gate_options.DEFAULT_SECONDS, "dst", [("t", 64)]))


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


class BudgetRecord(unittest.TestCase):
    """gate.json's budget: the deadline of the checks and how it was given
    (the deadline test bounds the gate from it)."""

    def record(self, *seconds):
        return gate.Context(gate.validate(gate.parse(["--op=memcpy", *seconds, FILE]))).budget()

    def test_a_given_deadline(self):
        self.assertEqual(self.record("--seconds=30"), {"seconds": 30, "given": "seconds"})

    def test_the_default_deadline(self):
        self.assertEqual(self.record(), {"seconds": gate_options.DEFAULT_SECONDS, "given": "default"})

    def test_least_and_raise_are_the_default_or_more(self):
        # Written for the plan that sized the checks to the budget: the
        # profile decides the cases now, so both are the default deadline.
        self.assertEqual(self.record("--seconds=least"), self.record())
        self.assertEqual(self.record("--seconds=8+")["seconds"], gate_options.DEFAULT_SECONDS)
        self.assertEqual(self.record("--seconds=5000+")["seconds"], 5000)


if __name__ == "__main__":
    unittest.main()

"""The plan's look at the submission (gate_probe) and what it does to the
plan (gate_plan.adjusted, Planner.probed): a slow routine's sweep and
4 GiB+ check, and a busy machine, make the needs larger, so the budget is
refused before any check runs; a fast routine on a machine as busy as two
gates at once keeps the calibration's plan; the refusal says what was
measured; a run past its share says which check ran over."""
import os
import unittest

from common import ROOT, context, tmpdir
from orchestration import gate, gate_plan, gate_probe, gate_runs
from orchestration.checks import Check

FILE = ROOT + "/tests/gate/bytecopy.c"
CAL = {"own": 1.0, "own_share": 0.01, "rest": 40.0, "huge": 4.0}
FUZZ = [("libfuzzer", 3, 2.0)]


def calibrated_plan():
    needs = {"sweep": gate_plan.need(gate_plan.sweep_time(CAL, gate_plan.FLOOR)), "huge": gate_plan.need(4.0),
             "fuzz": 3 + gate_plan.need(2.0), "valgrind": 2, "regressions": 1,
             "bench": gate_plan.need(gate_plan.bench_time((8.0, 4)))}
    return gate_plan.Plan(needs, dict(CAL), list(FUZZ), (8.0, 4))


class Factors(unittest.TestCase):
    def test_a_factor_is_never_below_one_and_rounds_up(self):
        self.assertEqual(gate_probe.factor(100, 200), 1.0)  # the submission faster: the checks' work stays
        self.assertEqual(gate_probe.factor(100, 100), 1.0)
        self.assertEqual(gate_probe.factor(100, 31), 3.3)
        self.assertEqual(gate_probe.factor(0, 31), 1.0)  # nothing measured

    def test_the_load_counts_only_past_two_gates_at_once(self):
        self.assertEqual(gate_probe.load_factor(1.0), 1.0)
        self.assertEqual(gate_probe.load_factor(gate_probe.LOADED_SHARE), 1.0)
        self.assertEqual(gate_probe.load_factor(1 / 3), 2.0)
        self.assertEqual(gate_probe.load_factor(0.0), 1.0)  # not measured

    def test_large_moves_sum_each_variants_hot_rows_and_want_the_end_line(self):
        tmp = tmpdir(self)
        tsv = os.path.join(tmp, "speed.tsv")
        rows = ["# variant\tcache\talign\tlen\tcycles\tns", "sub\thot\t0/0\t16777216\t1\t300.0",
                "base\thot\t0/0\t16777216\t1\t100.0", "sub\thot\t1/3 ovl\t16777216\t1\t900.0",
                "base\thot\t1/3 ovl\t16777216\t1\t100.0", "sub\tcold\t0/0\t16777216\t1\t5000.0"]
        with open(tsv, "w") as f:
            f.write("\n".join(rows) + "\n")
        self.assertIsNone(gate_probe.large_moves(tsv, "sub", "base"))  # cut short: no "# end:" line
        with open(tsv, "a") as f:
            f.write("# end: 5 rows\n")
        self.assertEqual(gate_probe.large_moves(tsv, "sub", "base"), (1200.0, 200.0))

    def test_random_cases_found_something_is_no_rate(self):
        tmp = tmpdir(self)
        path = os.path.join(tmp, "r.jsonl")
        with open(path, "w") as f:
            f.write('{"record":"summary","command":"random","complete":true,"cases":500,"failed":3}\n')
        self.assertEqual(gate_probe.random_cases(path), (500, False))
        with open(path, "w") as f:
            f.write('{"record":"summary","command":"random","complete":true,"cases":500,"failed":0}\n')
        self.assertEqual(gate_probe.random_cases(path), (500, True))


class Adjusted(unittest.TestCase):
    def test_nothing_measured_beyond_the_calibration_keeps_the_plan(self):
        plan = calibrated_plan()
        self.assertIs(gate_plan.adjusted(plan), plan)

    def test_a_slow_routine_needs_more_sweep_and_huge(self):
        plan = calibrated_plan()
        slow = gate_plan.adjusted(plan, rate=10.0, large=3.0)
        self.assertEqual(slow.needs["sweep"], gate_plan.need(gate_plan.sweep_time(dict(CAL, own=10.0, rest=400.0),
                                                                                   gate_plan.FLOOR)))
        self.assertEqual(slow.needs["huge"], gate_plan.need(12.0))
        # The bench times the submission beside 4 incumbents: 3 times one of them.
        self.assertEqual(slow.needs["bench"], gate_plan.need(8.0 * 7 / 4))
        # Neither the fuzz nor the replays depend on the routine's speed.
        for check in ("fuzz", "valgrind", "regressions"):
            self.assertEqual(slow.needs[check], plan.needs[check])
        # The sweep's division counts the submission's rate: its share at a budget is smaller.
        self.assertLess(slow.sweep_share(20), plan.sweep_share(20))

    def test_a_busy_machine_stretches_every_need_but_the_fuzzers_own_seconds(self):
        plan = calibrated_plan()
        busy = gate_plan.adjusted(plan, load=2.0)
        self.assertEqual(busy.needs["huge"], gate_plan.need(8.0))
        self.assertEqual(busy.needs["valgrind"], 4)
        self.assertEqual(busy.needs["fuzz"], 3 + gate_plan.need(4.0))
        self.assertEqual(busy.fuzz_cal, FUZZ)

    def test_a_fallback_huge_is_scaled_too(self):
        plan = gate_plan.Plan({"sweep": 1, "huge": gate_plan.FALLBACK["huge"]}, None, [])
        self.assertEqual(gate_plan.adjusted(plan, large=2.0, load=1.5).needs["huge"], 30)


class Refusing(unittest.TestCase):
    def ctx(self, *argv):
        ctx = gate.Context(gate.validate(gate.parse(["--op=memcpy"] + list(argv) + [FILE])))
        ctx.name, ctx.progress = "bytecopy", lambda stage: None
        ctx.entries = [dict(e, name=e["symbol"]) for e in ctx.entries]
        return ctx

    def planner(self, ctx, probe):
        runs = [("", [])]
        planner = gate_plan.Planner(ctx, runs, gate_runs.splitter(ctx, runs), probe=lambda *a: probe)
        planner.outcome = ({(0, "bytecopy"): calibrated_plan()}, [])
        planner.thread = type("Done", (), {"join": lambda self: None})()
        return planner

    def probe(self, rate=1.0, large=1.0, load=1.0, share=None):
        p = gate_probe.Probe()
        p.rate[("", "bytecopy")], p.large["bytecopy"], p.load, p.share = rate, large, load, share
        return p

    def test_a_budget_the_routine_fits_but_the_submission_does_not_is_refused_with_what_was_measured(self):
        ctx = self.ctx("--seconds=40")
        self.assertLessEqual(calibrated_plan().total(), 40)
        with self.assertRaises(gate.Usage) as e:
            self.planner(ctx, self.probe(rate=4.0, large=5.0)).plan()
        self.assertRegex(str(e.exception), r"^--seconds 40 is too small here: the required checks need at least "
                                           r"[0-9]+ s \(sweep [0-9]+, huge 25, .*; as measured for it here now: "
                                           r"bytecopy's cases run 4x slower than the calibration's routine's; its 4M moves 5x slower$")

    def test_a_busy_machine_is_named_in_the_refusal(self):
        ctx = self.ctx("--seconds=40")
        with self.assertRaises(gate.Usage) as e:
            self.planner(ctx, self.probe(load=2.0, share=1 / 3)).plan()
        self.assertIn("a program gets 33% of a core now, so every need is 2x its CPU time", str(e.exception))

    def test_a_fast_routine_on_a_machine_as_busy_as_planned_keeps_the_plan(self):
        ctx = self.ctx("--seconds=40")
        plans = self.planner(ctx, self.probe()).plan()
        self.assertEqual(plans[(0, "bytecopy")].needs, calibrated_plan().needs)

    def test_a_budget_the_calibration_refuses_is_refused_without_probing(self):
        ctx = self.ctx("--seconds=5")

        def never(*_):
            raise AssertionError("probed a budget already too small")
        planner = self.planner(ctx, None)
        planner.probe = never
        with self.assertRaises(gate.Usage):
            planner.plan()

    def test_a_budget_even_the_largest_factors_fit_is_kept_without_probing(self):
        ctx = self.ctx("--seconds=2000")

        def never(*_):
            raise AssertionError("probed a budget no measurement could refuse")
        planner = self.planner(ctx, None)
        planner.probe = never
        self.assertEqual(planner.plan()[(0, "bytecopy")].needs, calibrated_plan().needs)

    def test_under_qemu_an_ample_budget_is_probed_still(self):
        ctx = self.ctx("--seconds=2000")
        ctx.emulated = "qemu-aarch64"
        probed = []
        planner = self.planner(ctx, None)
        planner.probe = lambda *a: probed.append(1) or self.probe()
        planner.plan()
        self.assertEqual(probed, [1])


class Overran(unittest.TestCase):
    def test_a_run_past_its_share_names_the_check_past_its_plan(self):
        ctx = context(tmpdir(self))
        ctx.plan = calibrated_plan()
        ctx.start_clock(40)
        ctx.verify_took = {"sweep": 10.0, "huge": 21.3}
        results = [Check("sweep", "pass", 10, 24.9), Check("huge", "pass", 70, 21.3), Check("fuzz", "pass", 1, 9.0),
                   Check("bench", "pass", 0, 22.6)]
        self.assertEqual(gate_runs.overran(ctx, results, 48.4),
                         f"checks 48 s of 40 s: huge 21 s of the {ctx.plan.needs['huge']} planned, bench 23 s of the "
                         f"{ctx.plan.needs['bench']} planned")
        self.assertEqual(gate_runs.overran(ctx, results, 40.5), "")


if __name__ == "__main__":
    unittest.main()

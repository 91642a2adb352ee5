"""The gate's plan (gate_plan): a --seconds too small for the required
checks is refused with the least that works, a default too small is
raised, the sweep's part keeps FLOOR of its cases, a cut below the floor
could not be judged, and every verdict line names the sweep's cut."""
import json
import os
import time
import unittest

from common import ROOT, context, tmpdir
from orchestration import checks, gate, gate_cache, gate_plan, gate_runs, gate_verdict
from orchestration.checks import Check

FILE = ROOT + "/tests/gate/bytecopy.c"
# A sweep whose own cases take 1 s (1% of them), the rest 40 s more.
CAL = {"own": 1.0, "own_share": 0.01, "rest": 40.0}


def plan_of(needs, cal=CAL, fuzz=()):
    return gate_plan.Plan(dict(needs), cal, list(fuzz))


class Planning(unittest.TestCase):
    def ctx(self, *argv):
        ctx = gate.Context(gate.validate(gate.parse(["--op=memcpy"] + list(argv) + [FILE])))
        ctx.name, ctx.progress = "bytecopy", lambda stage: None
        ctx.entries = [dict(e, name=e["symbol"]) for e in ctx.entries]
        return ctx

    def planned(self, ctx, needs_by_run, runs=(("", []),)):
        runs = list(runs)
        real = gate_plan.plans_of
        gate_plan.plans_of = lambda c, r, *_: {(i, e["name"]): plan_of(needs_by_run[i]) for i in range(len(r))
                                           for e in c.entries}
        try:
            return gate_plan.plan(ctx, runs, gate_runs.splitter(ctx, runs))
        finally:
            gate_plan.plans_of = real

    def test_too_small_is_refused_with_the_least_that_works(self):
        ctx = self.ctx("--seconds=10")
        needs = {"sweep": 9, "huge": 8, "fuzz": 2, "valgrind": 3, "regressions": 2}
        with self.assertRaises(gate.Usage) as e:
            self.planned(ctx, [needs])
        self.assertRegex(str(e.exception), r"^--seconds 10 is too small here: the required checks need at least 24 s "
                                           r"\(sweep 9, huge 8, fuzz 2, valgrind 3, regressions 2\)")

    def test_a_budget_that_fits_is_kept(self):
        ctx = self.ctx("--seconds=24")
        self.planned(ctx, [{"sweep": 9, "huge": 8, "fuzz": 2, "valgrind": 3, "regressions": 2}])
        self.assertEqual((ctx.opts["seconds"], ctx.least_seconds), (24, 24))

    def test_the_least_counts_the_division_over_cpu_models(self):
        # Three models: the first gets 2 parts of 4, the others 1 each.
        ctx = self.ctx("--seconds=20")
        runs = [("max", []), ("cortex-a57", []), ("a64fx", [])]
        with self.assertRaises(gate.Usage) as e:
            self.planned(ctx, [{"sweep": 10}, {"sweep": 6}, {"sweep": 6}], runs)
        self.assertIn("need at least 24 s", str(e.exception))

    def test_a_default_too_small_is_raised(self):
        ctx = self.ctx()
        self.planned(ctx, [{"sweep": 50, "huge": 30}])
        self.assertEqual(ctx.opts["seconds"], 80)

    def test_least_is_never_refused_and_takes_the_least(self):
        ctx = self.ctx("--seconds=least")
        said = []
        ctx.progress = said.append
        self.planned(ctx, [{"sweep": 50, "huge": 30}])
        self.assertEqual((ctx.opts["seconds"], ctx.seconds, ctx.least_seconds), (80, 80, 80))
        self.assertEqual(said, ["--seconds least is 80 s: the required checks need that here (sweep 50, huge 30)"])

    def test_least_lowers_a_budget_above_it(self):
        ctx = self.ctx("--seconds=least")
        self.planned(ctx, [{"sweep": 9, "huge": 8}])
        self.assertEqual(ctx.opts["seconds"], 17)

    def test_least_counts_the_division_over_cpu_models(self):
        ctx = self.ctx("--seconds=least")
        runs = [("max", []), ("cortex-a57", []), ("a64fx", [])]
        self.planned(ctx, [{"sweep": 10}, {"sweep": 6}, {"sweep": 6}], runs)
        self.assertEqual(ctx.opts["seconds"], 24)


class SweepShare(unittest.TestCase):
    def test_the_floor_costs_the_own_cases_and_a_share_of_the_rest(self):
        # 5% of the cases: the own 1% and 4/99 of the rest, at TAKE.
        want = 1.0 + (0.05 - 0.01) / 0.99 * 40.0 / gate_plan.TAKE
        self.assertAlmostEqual(gate_plan.sweep_time(CAL, gate_plan.FLOOR), want)
        self.assertAlmostEqual(gate_plan.share_at(CAL, want), gate_plan.FLOOR)
        self.assertEqual(gate_plan.share_at(CAL, 1000), 1.0)

    def test_the_sweep_gets_at_least_its_floor_and_no_more_than_the_rest_leave(self):
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.plan = plan_of({"sweep": 7, "huge": 8, "fuzz": 4, "valgrind": 2, "regressions": 1})
        ctx.start_clock(25)
        self.assertEqual(ctx.sweep_budget(), 10)  # 40% of 25
        ctx.start_clock(22)
        self.assertEqual(ctx.sweep_budget(), 7)  # 40% is 8, but the others need 15
        ctx.start_clock(100)
        self.assertEqual(ctx.sweep_budget(), 40)

    def test_fuzzing_keeps_back_what_the_later_checks_were_planned(self):
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.plan = plan_of({"sweep": 7, "fuzz": 6, "valgrind": 3, "regressions": 2, "bench": 2},
                           fuzz=[("libfuzzer", 2, 1.0), ("afl", 1, 1.0)])
        ctx.start_clock(30)
        # 30 s but valgrind 3, regressions 2, bench 2 and the drivers' 3 s past their --seconds.
        self.assertIn(ctx.fuzz_budget(), (19, 20))  # whole seconds of what is left
        self.assertEqual(checks.engine_seconds(ctx, ["libfuzzer", "afl"], 7), {"libfuzzer": 4, "afl": 3})


def verify_records(cases, planned):
    return [{"record": "variant", "variant": "bytecopy", "stage": "sweep", "status": "pass", "cases": cases,
             "planned": planned, "seconds": 3.0, "warnings": []},
            {"record": "summary", "command": "verify", "complete": True}]


class Cut(unittest.TestCase):
    def test_a_cut_below_the_floor_could_not_be_judged(self):
        ctx = context(tmpdir(self))
        out, _, _ = checks.judge_verify(ctx, verify_records(95295, 7107918), 3.0, "full", False)
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("the sweep ran 1.3% of its cases (95295 of 7107918), below the floor of 5%", out["sweep"].note)

    def test_a_sweep_stopped_by_its_findings_is_no_thin_pass_and_names_no_cut(self):
        ctx = context(tmpdir(self))
        recs = verify_records(6, 2231170)
        recs[0]["status"] = "fail"
        recs.insert(0, {"record": "finding", "variant": "bytecopy", "stage": "sweep", "class": "abi-violation",
                        "detail": "rbx clobbered", "replay": ["memgate", "run"], "case": {"len": 1}})
        out, findings, _ = checks.judge_verify(ctx, recs, 3.0, "full", False)
        self.assertEqual(out["abi"].status, "fail")
        self.assertEqual(out["sweep"].status, "pass")
        self.assertIn("stopped at the first findings, after 6 of 2231170 cases", out["sweep"].note)
        self.assertIsNone(out["sweep"].cut())
        _, line, _ = gate_verdict.verdict_line(ctx, [out["abi"], out["sweep"]], findings, "1.0 s")
        self.assertNotIn("cut to", line)

    def test_a_cut_above_the_floor_passes_and_every_verdict_line_names_it(self):
        ctx = context(tmpdir(self))
        out, _, _ = checks.judge_verify(ctx, verify_records(668322, 7107918), 3.0, "full", False)
        self.assertEqual(out["sweep"].status, "pass")
        results = [out["abi"], out["sweep"]]
        cut = "sweep cut to 9.4% of its cases (668322 of 7107918)"
        _, line, _ = gate_verdict.verdict_line(ctx, results, [], "1.0 s")
        self.assertRegex(line, r"^ACCEPTED \(" + cut.replace("(", r"\(").replace(")", r"\)"))
        finding = {"check": "fuzz", "kind": "crash", "detail": "x", "signature": "s"}
        _, line, _ = gate_verdict.verdict_line(ctx, results, [finding], "1.0 s")
        self.assertIn(cut, line)
        _, line, _ = gate_verdict.verdict_line(ctx, results + [checks.cannot("fuzz", "no time")], [], "1.0 s")
        self.assertIn(cut, line)
        self.assertEqual(Check.from_dict(out["sweep"].as_dict()).cut(), out["sweep"].cut())

    def test_a_whole_sweep_names_no_cut(self):
        ctx = context(tmpdir(self))
        out, _, _ = checks.judge_verify(ctx, verify_records(4405966, 4405966), 3.0, "full", False)
        _, line, _ = gate_verdict.verdict_line(ctx, [out["abi"], out["sweep"]], [], "1.0 s")
        self.assertEqual(line, "ACCEPTED: bytecopy passed every check (1.0 s)")

    def test_a_smoke_sweep_is_named_first_on_an_accepted_line(self):
        ctx = context(tmpdir(self))
        ctx.profile = "smoke"
        out, _, _ = checks.judge_verify(ctx, verify_records(120606, 120606), 3.0, "smoke", False)
        _, line, _ = gate_verdict.verdict_line(ctx, [out["abi"], out["sweep"]], [], "1.0 s")
        self.assertEqual(line, "ACCEPTED (smoke sweep): bytecopy passed every check (1.0 s)")


class Calibrating(unittest.TestCase):
    """The calibration runs what is missing at once, and a budget that
    even the least of what is still running cannot fit is refused at
    REFUSE_BY with what was measured, the rest named."""

    def setUp(self):
        self.tmp = tmpdir(self)
        old = os.environ.get("MEMGATE_GATE_CALIBRATION")
        os.environ["MEMGATE_GATE_CALIBRATION"] = self.tmp
        self.addCleanup(lambda: os.environ.__setitem__("MEMGATE_GATE_CALIBRATION", old) if old is not None
                        else os.environ.pop("MEMGATE_GATE_CALIBRATION", None))
        real, refuse = gate_plan.plans_of, gate_plan.REFUSE_BY
        self.addCleanup(lambda: (setattr(gate_plan, "plans_of", real), setattr(gate_plan, "REFUSE_BY", refuse)))
        gate_plan.REFUSE_BY = 0.5
        gate_plan.plans_of = self.plans
        self.ctx = context(self.tmp)
        self.ctx.t0 = time.monotonic()

    @staticmethod
    def fast(tmp, cancel, floor):
        return 5.0

    @staticmethod
    def slow(tmp, cancel, floor):
        if cancel.wait(3):
            raise gate_plan.Cancelled()
        return 20.0

    def plans(self, ctx, runs, cal):
        cal.asked = set()
        sweep = cal.get(("fast",), self.fast, "i1")
        huge = cal.get(("slow",), self.slow, "i2")
        return {(0, "bytecopy"): plan_of({"sweep": gate_plan.need(sweep), "huge": gate_plan.need(huge)})}

    def fits(self, total, plans):
        return total >= sum(p.total() for p in plans.values())

    def test_a_budget_too_small_is_refused_before_the_slow_one_ends(self):
        t = time.monotonic()
        self.ctx.opts.update(seconds=3, seconds_given=True)
        plans, missing = gate_plan.calibrated(self.ctx, [("", [])], self.fits, 3, True)
        self.assertLess(time.monotonic() - t, 2.5)
        self.assertEqual(missing, ["slow"])
        self.assertEqual(plans[(0, "bytecopy")].needs, {"sweep": 7, "huge": 1})
        with self.assertRaises(gate.Usage) as e:
            gate_plan.decide(self.ctx, [("", [])], self.fits, plans, missing)
        self.assertRegex(str(e.exception), r"need at least 8 s \(sweep 7, huge 1\), with the sweep at 5% of its "
                                           r"cases or more; a lower bound: slow not calibrated yet")
        # What was measured is kept; what was stopped is not.
        store = gate_cache.Calibration()
        self.assertEqual(store.value(json.dumps(["x86_64", "fast"]), "i1"), 5.0)
        self.assertIsNone(store.value(json.dumps(["x86_64", "slow"]), "i2"))

    def test_a_budget_that_fits_the_least_waits_for_every_measurement(self):
        plans, missing = gate_plan.calibrated(self.ctx, [("", [])], self.fits, 30, True)
        self.assertEqual((plans[(0, "bytecopy")].needs, missing), ({"sweep": 7, "huge": 25}, []))
        # Measured once: the next plan asks nothing.
        gate_plan.plans_of = lambda ctx, runs, cal: self.plans(ctx, runs, cal)
        cal = gate_plan.Calibrator(self.ctx)
        self.plans(self.ctx, None, cal)
        self.assertFalse(cal.waiting())

    def test_a_measurement_is_kept_under_what_its_rate_depends_on(self):
        gate_plan.calibrated(self.ctx, [("", [])], self.fits, 30, True)
        store = gate_cache.Calibration()
        self.assertIsNone(store.value(json.dumps(["x86_64", "fast"]), "another build"))


if __name__ == "__main__":
    unittest.main()

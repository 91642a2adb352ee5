"""The checks read records only, and fail closed: fixtures follow
docs/records.md."""
import json
import os
import unittest
from unittest import mock

from common import context, tmpdir
from orchestration import checks, records
from orchestration.records import CouldNotJudge


def summary(**kw):
    return dict({"record": "summary", "command": "verify", "complete": True, "cases": 10, "passed": 10,
                 "failed": 0, "errors": 0, "skipped": 0}, **kw)


def variant(stage, status, **kw):
    return dict({"record": "variant", "variant": "bytecopy", "op": "memcpy", "stage": stage, "status": status,
                 "expected": "pass", "cases": 100, "seconds": 1.5, "reason": None, "warnings": []}, **kw)


def finding(cls, stage="sweep", **kw):
    return dict({"record": "finding", "variant": "bytecopy", "op": "memcpy", "arch": "x86_64", "class": cls,
                 "level": "error", "detail": f"{cls} here", "signature": f"bytecopy {cls} site", "site": "site",
                 "stage": stage, "replay": ["build/memgate", "run", "--variant=bytecopy", "--len=4"],
                 "input": None, "case": {"len": 4}}, **kw)


class Verify(unittest.TestCase):
    def judge(self, recs, huge=True):
        ctx = context(tmpdir(self))
        # No build to encode the sweep's cases with.
        with mock.patch.object(checks, "sweep_input", lambda ctx, f, n: None):
            return checks.judge_verify(ctx, recs, 2.0, "quick", huge)

    def test_pass(self):
        out, found, _ = self.judge([variant("sweep", "pass"), variant("huge", "pass", cases=13), summary()])
        self.assertEqual([out[n].status for n in ("abi", "sweep", "huge")], ["pass"] * 3)
        self.assertEqual(out["huge"].cases, 13)
        self.assertEqual(found, [])

    def test_findings_go_to_their_check(self):
        recs = [variant("sweep", "fail"), finding("abi-violation"), finding("wrong-result"),
                variant("huge", "fail"), finding("wrong-result", stage="huge"), summary()]
        out, found, _ = self.judge(recs)
        self.assertEqual([out[n].status for n in ("abi", "sweep", "huge")], ["fail"] * 3)
        self.assertEqual([f["check"] for f in found], ["abi", "sweep", "huge"])
        self.assertEqual(found[2]["repro"], "build/gate/bytecopy-x/memgate run --variant=bytecopy --len=4")

    def test_a_pass_is_on_the_whole_profile(self):
        # The gate never cuts the sweep: a pass on fewer cases than planned
        # is no pass.
        out, _, _ = self.judge([variant("sweep", "pass", cases=380, planned=1000), variant("huge", "pass"), summary()])
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("380 of its 1000 cases", out["sweep"].note)

    def test_a_finding_stops_the_sweep_and_says_where(self):
        out, _, _ = self.judge([variant("sweep", "fail", cases=380, planned=1000), finding("wrong-result"),
                                variant("huge", "pass"), summary()])
        self.assertIn("stopped at the first findings, after 380 of 1000 cases", out["sweep"].note)

    def test_the_whole_profile_says_the_profile(self):
        out, _, _ = self.judge([variant("sweep", "pass", planned=100), variant("huge", "pass"), summary()])
        self.assertEqual(out["sweep"].note, "quick profile and placements")

    def test_a_part_not_judged_here_is_said_in_its_checks_note(self):
        # qemu-i386's sigreturn drops the x87 state: a pass, with the part
        # it could not judge named in the check it belongs to.
        parts = [{"name": "x87-after-signal", "check": "abi", "cases": 12, "text": "the x87 part of fpu-state"},
                 {"name": "x87-environment-under-step", "check": "interrupts", "cases": 1, "text": "the x87 envs"}]
        out, _, _ = self.judge([variant("sweep", "pass", not_judged=parts, interrupts="pass",
                                        interrupted_cases=40, threads="pass", threads_cases=8),
                                variant("huge", "pass"), summary()])
        self.assertEqual([out[n].status for n in ("abi", "sweep", "interrupts")], ["pass"] * 3)
        self.assertIn("; not judged here, in 12 cases: the x87 part of fpu-state", out["abi"].note)
        self.assertIn("; not judged here, in 1 case: the x87 envs", out["interrupts"].note)
        self.assertNotIn("not judged", out["sweep"].note + out["threads"].note)

    def test_the_sweep_runs_its_whole_profile(self):
        argv = checks.verify_argv(context(tmpdir(self)))[2]
        self.assertFalse([a for a in argv if a.startswith(("--sweep-seconds", "--sweep-floor"))])

    def test_no_summary_is_could_not_judge(self):
        with self.assertRaises(CouldNotJudge):
            self.judge([variant("sweep", "pass"), variant("huge", "pass")])

    def test_huge_error_record_is_could_not_judge_only_there(self):
        recs = [variant("sweep", "pass"),
                {"record": "error", "stage": "huge", "variant": "bytecopy", "reason": "cannot reserve the address space"},
                summary()]
        out, _, _ = self.judge(recs)
        self.assertEqual(out["sweep"].status, "pass")
        self.assertEqual((out["huge"].status, out["huge"].note), ("error", "cannot reserve the address space"))

    def test_huge_missing_is_could_not_judge(self):
        out, _, _ = self.judge([variant("sweep", "pass"), summary()])
        self.assertEqual(out["huge"].status, "error")

    def test_huge_skip_is_could_not_judge_and_na_is_na(self):
        out, _, _ = self.judge([variant("sweep", "pass"), variant("huge", "skip", reason="x"), summary()])
        self.assertEqual(out["huge"].status, "error")
        out, _, _ = self.judge([variant("sweep", "pass"), variant("huge", "n/a", reason="page"), summary()])
        self.assertEqual((out["huge"].status, out["huge"].note), ("n/a", "page"))

    def test_fail_without_a_finding_is_could_not_judge(self):
        out, _, _ = self.judge([variant("sweep", "fail"), variant("huge", "pass"), summary()])
        self.assertEqual(out["sweep"].status, "error")

    def test_the_threads_check_follows_its_stage(self):
        fields = {"interrupts": "pass", "interrupted_cases": 9, "interrupted_seconds": 0.5,
                  "interrupts_reason": None, "threads_cases": 96, "threads_seconds": 0.2, "threads_reason": None}
        out, _, _ = self.judge([variant("sweep", "pass", threads="pass", **fields), summary()], huge=False)
        self.assertEqual((out["threads"].status, out["threads"].cases), ("pass", 96))
        out, found, _ = self.judge([variant("sweep", "fail", threads="fail", **fields),
                                    finding("wrong-result", stage="threads"), summary()], huge=False)
        self.assertEqual((out["threads"].status, out["interrupts"].status), ("fail", "pass"))
        self.assertEqual([f["check"] for f in found], ["threads"])
        # A fail the stage wrote no finding for is could not judge, not a pass.
        out, _, _ = self.judge([variant("sweep", "fail", threads="fail", **fields),
                                finding("wrong-result", stage="interrupts"), summary()], huge=False)
        self.assertEqual(out["threads"].status, "error")
        fields["threads_reason"] = "the sweep, the placements or the interrupts found something, or stopped, first"
        out, _, _ = self.judge([variant("sweep", "fail", threads="not run", **fields),
                                finding("wrong-result", stage="interrupts"), summary()], huge=False)
        self.assertEqual(out["threads"].status, "n/a")

    def test_a_skipped_sweep_is_could_not_judge(self):
        out, _, _ = self.judge([variant("sweep", "skip", reason="this CPU lacks avx512f"), summary()], huge=False)
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("avx512f", out["sweep"].note)

    def test_warnings_are_kept(self):
        w = [{"name": "vzeroupper", "text": "AVX upper state left dirty"}]
        _, _, warned = self.judge([variant("sweep", "pass", warnings=w), variant("huge", "pass"), summary()])
        self.assertEqual(warned, [{"check": "sweep", "name": "vzeroupper", "text": "AVX upper state left dirty"}])


# memgate verify's output under ulimit -v, as the engine writes it.
ENGINE_ULIMIT_V = """\
{"record":"variant","variant":"bytecopy","op":"memcpy","arch":"x86_64","stage":"sweep","status":"pass","expected":"pass","row":"error","row_status":"ERROR (4GiB+: could not judge)","cases":2197056,"failures":0,"seconds":1.296,"reason":null,"warnings":[]}
{"record":"variant","variant":"bytecopy","op":"memcpy","arch":"x86_64","stage":"huge","status":"error","expected":"pass","row":"error","row_status":"ERROR (4GiB+: could not judge)","cases":0,"failures":0,"seconds":0.000,"reason":"cannot reserve the address space: Cannot allocate memory","warnings":[]}
{"record":"error","reason":"cannot reserve the address space: Cannot allocate memory","stage":"huge","variant":"bytecopy"}
{"record":"summary","command":"verify","complete":true,"cases":2197056,"passed":0,"failed":0,"errors":1,"skipped":0}
"""


class EngineOutput(unittest.TestCase):
    def test_ulimit_v(self):
        recs = records.parse_lines(ENGINE_ULIMIT_V, "verify")
        with mock.patch.object(checks, "sweep_input", lambda ctx, f, n: None):
            out, found, _ = checks.judge_verify(context(tmpdir(self)), recs, 1.3, "full", True)
        self.assertEqual([out[n].status for n in ("abi", "sweep", "huge")], ["pass", "pass", "error"])
        self.assertIn("cannot reserve the address space", out["huge"].note)


class Replay(unittest.TestCase):
    def test_complete(self):
        ctx = context(tmpdir(self))
        recs = [{"record": "case", "input": "a.in", "variant": "bytecopy", "class": "ok", "level": "error", "case": {}},
                finding("crash", stage="replay", input="corpus/x.in"), summary(command="replay", failed=1)]
        s, found = checks.judge_replay(ctx, "regressions", recs)
        self.assertEqual(found[0]["input"], "corpus/x.in")
        self.assertIn("scripts/repro --target=memcpy --variant=bytecopy corpus/x.in", found[0]["repro"])

    def test_failed_without_finding_records(self):
        with self.assertRaises(CouldNotJudge):
            checks.judge_replay(context(tmpdir(self)), "regressions", [summary(failed=2)])

    def test_error_record(self):
        with self.assertRaises(CouldNotJudge) as e:
            checks.judge_replay(context(tmpdir(self)), "regressions",
                                [{"record": "error", "reason": "corpus/x.in: not a memgate input", "stage": "replay",
                                  "variant": None}, summary()])
        self.assertIn("not a memgate input", str(e.exception))

    def test_unknown_class_is_could_not_judge(self):
        with self.assertRaises(CouldNotJudge):
            checks.judge_replay(context(tmpdir(self)), "regressions", [finding("segfault"), summary(failed=1)])


class Fuzz(unittest.TestCase):
    def write(self, d, recs):
        path = os.path.join(d, "summary.jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        return path

    def test_findings_and_flaky(self):
        d = tmpdir(self)
        ctx = context(d)
        path = self.write(d, [
            {"record": "engine", "engine": "libfuzzer", "execs": 1000, "seconds": 5, "status": "ran", "reason": None},
            finding("wrong-return", stage="fuzz", engine="libfuzzer", input="x.in", repro=["scripts/repro", "x.in"]),
            finding("flaky", stage="fuzz", engine="libfuzzer", input="y.in", repro=["scripts/repro", "y.in"],
                    fuzzer=["build/fuzz/libfuzzer/fuzz_memcpy", "y.in"]),
            {"record": "summary", "complete": True}])
        execs, found = checks.fuzz_summary(ctx, path, "libfuzzer")
        self.assertEqual(execs, 1000)
        self.assertEqual([f["kind"] for f in found], ["wrong-return", "flaky"])
        self.assertEqual(found[1]["fuzz_command"], "build/fuzz/libfuzzer/fuzz_memcpy y.in")
        self.assertTrue(found[0]["repro"].startswith("MEMGATE_BUILD=build/gate/bytecopy-x scripts/repro"))

    def test_an_engine_that_did_not_run(self):
        d = tmpdir(self)
        path = self.write(d, [{"record": "engine", "engine": "afl", "execs": 0, "seconds": 0, "status": "error",
                               "reason": "Fork server handshake failed"}, {"record": "summary", "complete": True}])
        with self.assertRaises(CouldNotJudge) as e:
            checks.fuzz_summary(context(d), path, "afl")
        self.assertIn("handshake", str(e.exception))

    def test_cut_short(self):
        d = tmpdir(self)
        path = self.write(d, [{"record": "engine", "engine": "afl", "execs": 5, "seconds": 1, "status": "ran"}])
        with self.assertRaises(CouldNotJudge):
            checks.fuzz_summary(context(d), path, "afl")

    def test_no_time_left_is_could_not_judge_for_every_check_not_skipped(self):
        from orchestration import gate_isa
        ctx = context(tmpdir(self), seconds=0, skip=["fuzz"])
        ctx.start_clock()
        self.assertTrue(ctx.past_deadline())
        out = {c.name: c for c in gate_isa.past_deadline(ctx, True)}
        self.assertEqual(out["fuzz"].status, "skip")
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("deadline (--seconds 0) had passed", out["sweep"].note)

    def test_the_profile_names_the_inputs(self):
        ctx = context(tmpdir(self), profile="smoke")
        started = []

        def engine(_ctx, name, runs, seeds=None):
            started.append((name, runs))

            def finish():
                return runs, []
            finish.child = mock.Mock(pid=None)
            return finish

        with mock.patch.object(checks, "run_fuzz_engine", engine), \
                mock.patch.object(checks, "fuzz_engines", lambda ctx: ["libfuzzer", "afl"]), \
                mock.patch.object(checks.procs, "stop", lambda child: None):
            check, found = checks.run_fuzz(ctx)
        lf, afl = checks.FUZZ_RUNS["libfuzzer"]["smoke"], checks.FUZZ_RUNS["afl"]["smoke"]
        self.assertEqual(started, [("libfuzzer", lf), ("afl", afl)])
        self.assertEqual((check.status, check.cases), ("pass", lf + afl))
        self.assertIn(f"libfuzzer {lf} and afl {afl} inputs from seed {checks.FUZZ_SEED}", check.note)


VALGRIND_XML = """<?xml version="1.0"?>
<valgrindoutput>
<error><unique>0x1</unique><kind>InvalidRead</kind><what>Invalid read of size 8</what>
<stack><frame><ip>0x1</ip><fn>mg_gate_bytecopy</fn></frame></stack></error>
<error><unique>0x2</unique><kind>InvalidWrite</kind><xwhat><text>Invalid write of size 1</text></xwhat>
<stack><frame><ip>0x2</ip><fn>mg_gate_bytecopy</fn></frame></stack></error>
</valgrindoutput>
"""


class Valgrind(unittest.TestCase):
    def test_xml_kinds_decide_the_class(self):
        d = tmpdir(self)
        path = os.path.join(d, "v.xml")
        with open(path, "w") as f:
            f.write(VALGRIND_XML)
        found = checks.valgrind_findings("v", ["valgrind", "x"], path)
        self.assertEqual([f["kind"] for f in found], ["out-of-bounds-read", "out-of-bounds-write"])

    def test_corrupt_xml(self):
        d = tmpdir(self)
        path = os.path.join(d, "v.xml")
        with open(path, "w") as f:
            f.write("<valgrindoutput><error>")
        with self.assertRaises(CouldNotJudge):
            checks.valgrind_findings("v", ["valgrind"], path)

    def test_missing_valgrind_is_could_not_judge(self):
        ctx = context(tmpdir(self), foreign="")
        ctx.env = dict(ctx.env, PATH="/nonexistent")
        check, _, _ = checks.run_valgrind(ctx)
        self.assertEqual(check.status, "error")
        self.assertIn("not on PATH", check.note)

    def test_hidden_feature_is_na(self):
        ctx = context(tmpdir(self), foreign="", requires=["rtm"])
        check, _, _ = checks.run_valgrind(ctx)
        self.assertEqual((check.status, check.note), ("n/a", "needs rtm, which valgrind hides"))

    def test_speed_only_features_are_not_hidden(self):
        # valgrind's CPUID hides fsrm and fsrs but it runs rep movsb and
        # rep stosb: a routine declaring only them is checked under it.
        for feature in ("erms", "fsrm", "fsrs"):
            self.assertNotIn(feature, checks.VALGRIND_HIDES)
        ctx = context(tmpdir(self), foreign="", requires=["fsrm", "fsrs"])
        ctx.env = dict(ctx.env, PATH="/nonexistent")
        check, _, _ = checks.run_valgrind(ctx)
        self.assertEqual(check.status, "error")
        self.assertIn("not on PATH", check.note)

    def test_foreign_is_na(self):
        check, _, _ = checks.run_valgrind(context(tmpdir(self), foreign="aarch64"))
        self.assertEqual(check.status, "n/a")


class Speed(unittest.TestCase):
    ROWS = ("bytecopy\thot\t0/0\t8\t20.0\t5.00\nmemcpy_erms\thot\t0/0\t8\t10.0\t2.50\n"
            "memcpy_avx2\thot\t0/0\t8\t5.0\t1.25\nbytecopy\thot\t0/0\t64\t10.0\t2.50\n"
            "memcpy_erms\thot\t0/0\t64\t10.0\t2.50\n")
    HEAD = "# variant\tcache\talign\tlen\tcycles\tns\n# under test: bytecopy\n"

    def tsv(self, text):
        path = os.path.join(tmpdir(self), "s.tsv")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_worst_ratio(self):
        path = self.tsv(self.HEAD + self.ROWS + "# end: 5 rows\n")
        self.assertEqual(checks.worst_ratio(path, "bytecopy", ["memcpy_erms", "memcpy_avx2"]), 4.0)

    def test_damaged_data_cannot_be_judged(self):
        """A short or garbled file could hide the slower point: never a pass."""
        damaged = {
            "cut short": self.HEAD + self.ROWS.split("memcpy_avx2")[0],
            "count wrong": self.HEAD + self.ROWS + "# end: 7 rows\n",
            "a garbled row": self.HEAD + self.ROWS.replace("\t5.0\t", "\tfive\t") + "# end: 5 rows\n",
            "a short row": self.HEAD + self.ROWS.replace("memcpy_avx2\thot\t0/0\t8\t5.0\t1.25", "memcpy_avx2\thot")
            + "# end: 5 rows\n",
            "not a number": self.HEAD + self.ROWS.replace("\t5.0\t", "\tnan\t") + "# end: 5 rows\n",
            "rows after the end": self.HEAD + self.ROWS + "# end: 5 rows\nbytecopy\thot\t0/0\t8\t99.0\t9.0\n",
            "empty": "",
            "no row of ours": self.HEAD + "memcpy_erms\thot\t0/0\t8\t10.0\t2.50\n# end: 1 rows\n",
            "no shared point": self.HEAD + "bytecopy\thot\t0/0\t8\t20.0\t5.0\nmemcpy_erms\tcold\t0/0\t8\t10.0\t2.5\n"
            "# end: 2 rows\n",
        }
        for what, text in damaged.items():
            with self.assertRaises(checks.CouldNotJudge, msg=what):
                checks.worst_ratio(self.tsv(text), "bytecopy", ["memcpy_erms"])

    def test_no_incumbent_is_no_ratio(self):
        path = self.tsv(self.HEAD + "bytecopy\thot\t0/0\t8\t20.0\t5.0\n# end: 1 rows\n")
        self.assertEqual(checks.worst_ratio(path, "bytecopy", []), 0.0)

    def test_bench_check_is_could_not_judge_on_damaged_data(self):
        """run_bench with --max-slowdown on a memgate speed that writes a
        file cut short: the bench check is an error, with the reason."""
        d = tmpdir(self)
        fake = os.path.join(d, "memgate")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nfor a; do case $a in --data=*) printf '%s' '" + self.HEAD + self.ROWS[:60]
                    + "' > \"${a#--data=}\";; esac; done\n")
        os.chmod(fake, 0o755)
        ctx = context(d, W=d, seconds=30)
        ctx.bench, ctx.emulated, ctx.max_slowdown, ctx.max_slowdown_text = True, None, 1.1, "1.1"
        ctx.start_clock()
        with mock.patch.object(type(ctx), "incumbents", lambda self: ["memcpy_erms"]), \
                mock.patch.object(type(ctx), "plot_speed", lambda self, tsv, inc: None):
            check, found = checks.run_bench(ctx)
        self.assertEqual((check.status, found), ("error", []))
        self.assertIn("cut short", check.note)


if __name__ == "__main__":
    unittest.main()


class VerifyProgram(unittest.TestCase):
    """run_verify on a stand-in memgate: its exit, its records, its end."""

    def run_with(self, script, seconds=30):
        d = tmpdir(self)
        fake = os.path.join(d, "memgate")
        with open(fake, "w") as f:
            f.write("#!/usr/bin/env python3\nimport os, signal, sys, time\n" + script)
        os.chmod(fake, 0o755)
        ctx = context(d, W=d, seconds=seconds)
        ctx.start_clock()
        with mock.patch.object(checks, "sweep_input", lambda ctx, f, n: None):
            results, found, _ = checks.run_verify(ctx)
        return {c.name: c for c in results}

    def test_exit_2_with_an_error_record_is_judged_per_check(self):
        out = self.run_with(f"sys.stdout.write({ENGINE_ULIMIT_V!r}); sys.exit(2)\n")
        self.assertEqual([out[n].status for n in ("abi", "sweep", "huge")], ["pass", "pass", "error"])

    def test_killed_midway_is_could_not_judge(self):
        out = self.run_with(f"sys.stdout.write({ENGINE_ULIMIT_V.splitlines()[0]!r} + '\\n'); sys.stdout.flush(); "
                            "os.kill(os.getpid(), signal.SIGKILL)\n")
        self.assertEqual([out[n].status for n in ("abi", "sweep", "huge")], ["error"] * 3)
        self.assertIn("SIGKILL", out["sweep"].note)

    def test_the_deadline_is_could_not_judge(self):
        out = self.run_with("signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n", seconds=1)
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("deadline", out["sweep"].note)

    def test_exit_2_without_records_is_could_not_judge(self):
        out = self.run_with("print('memgate verify: unknown option', file=sys.stderr); sys.exit(2)\n")
        self.assertEqual(out["sweep"].status, "error")
        self.assertIn("unknown option", out["sweep"].note)

"""scripts/fuzz end to end, on fake fuzzers and a fake build/replay
(fuzz_fakes): exit statuses, summary.jsonl, deduplication, flaky crashes,
fail-closed errors, the run-directory lock and interruption."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import common  # noqa: E402,F401  (the tools work in the tree: MEMGATE_OUT)
import fuzz_fakes  # noqa: E402
from orchestration import records  # noqa: E402

FUZZ = os.path.join(ROOT, "scripts", "fuzz")
VARIANT = "bad_memcpy_tail_overwrite"


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class FuzzRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="test-fuzz-")
        self.top = self.tmp.name
        self.build, self.bin = fuzz_fakes.make_build(self.top)
        self.out = os.path.join(self.top, "run")

    def tearDown(self):
        self.tmp.cleanup()

    def env(self, **extra):
        env = dict(os.environ)
        env["MEMGATE_BUILD"] = self.build
        env["PATH"] = self.bin + os.pathsep + env["PATH"]
        env.pop("FAKE_MODE", None)
        env.update(extra)
        return env

    def fuzz(self, *args, timeout=60, **extra):
        r = subprocess.run([FUZZ, *args], env=self.env(**extra), capture_output=True, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def summary(self, run=None):
        return records.read(os.path.join(run or self.out, "summary.jsonl"))

    def raw_summary(self):
        """summary.jsonl's records, complete or not."""
        with open(os.path.join(self.out, "summary.jsonl")) as f:
            return records.parse_lines(f.read(), "summary.jsonl")

    def findings(self, run=None):
        return records.of_kind(self.summary(run), "finding")

    # ------------------------------------------------------------ outcomes

    def test_clean_run_exit_0_and_complete_summary(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", "--jobs=2")
        self.assertEqual(rc, 0, err)
        self.assertIn(f"no findings on {VARIANT}", out)
        recs = self.summary()
        self.assertEqual(recs[-1], {"record": "summary", "command": "fuzz", "complete": True,
                                    "findings": 0, "execs": recs[0]["execs"], "errors": 0})
        engine = recs[0]
        self.assertEqual((engine["record"], engine["engine"], engine["target"], engine["status"]),
                         ("engine", "libfuzzer", "memcpy", "ran"))
        self.assertGreater(engine["execs"], 0)
        for key in ("execs", "seconds", "status", "reason"):
            self.assertIn(key, engine)
        with open(os.path.join(self.out, "summary.txt")) as f:
            self.assertEqual(f.read(), out)

    def test_findings_deduplicated_by_signature_and_minimised(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="bug")
        self.assertEqual(rc, 1, err)
        found = self.findings()
        self.assertEqual([f["signature"] for f in found],
                         [f"{VARIANT} out-of-bounds-write dst past the end 1",
                          f"{VARIANT} out-of-bounds-write dst past the end 2"])
        for f in found:
            self.assertEqual(f["engine"], "libfuzzer")
            self.assertEqual(f["stage"], "fuzz")
            self.assertTrue(os.path.isfile(f["input"]))
            with open(f["input"], "rb") as g:
                self.assertEqual(len(g.read()), 4)  # BUG<d>: the minimiser's cut
            self.assertEqual(f["repro"], ["scripts/repro", "--target=memcpy", f"--variant={VARIANT}", f["input"]])
            self.assertEqual(f["repro_env"], {"MEMGATE_BUILD": self.build})
            for key in ("variant", "op", "arch", "class", "level", "detail", "site", "case", "replay"):
                self.assertIn(key, f)
        # One raw input kept per signature, with its record beside it.
        raw = os.path.join(self.out, "memcpy", "raw")
        kept = sorted(n for n in os.listdir(raw) if not n.endswith((".json", ".txt")))
        self.assertEqual(len(kept), 2, kept)
        self.assertEqual(self.summary()[-1]["findings"], 2)
        self.assertIn("saved input(s) had this signature", out)

    def test_flaky_crash_is_a_flaky_finding_with_both_commands(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="flaky")
        self.assertEqual(rc, 1, err)
        found = self.findings()
        self.assertEqual(len(found), 1)
        f = found[0]
        self.assertEqual(f["class"], "flaky")
        self.assertIn(f["class"], records.CLASSES)
        self.assertEqual(f["fuzzer"][:2], ["env", f"MEMGATE_VARIANT={VARIANT}"])
        self.assertTrue(f["fuzzer"][2].endswith("fuzz/libfuzzer/fuzz_memcpy"))
        self.assertTrue(f["replay"][0].endswith("/replay"))
        self.assertEqual(f["repro"][0], "scripts/repro")
        self.assertTrue(os.path.isfile(f["input"]))
        self.assertIn("rerun:", out)

    # -------------------------------------------------------- fail closed

    def test_fuzzer_that_cannot_run_is_could_not_judge(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="fail")
        self.assertEqual(rc, 2)
        self.assertIn("fuzz: could not judge: libFuzzer exited with status 1: ERROR: the fake fuzzer cannot start", err)
        recs = self.raw_summary()
        self.assertEqual(recs[0]["status"], "error")
        self.assertEqual(records.of_kind(recs, "finding"), [])
        with self.assertRaises(records.CouldNotJudge):
            records.check_complete(recs, "summary")

    def test_missing_binary_is_could_not_judge(self):
        os.unlink(os.path.join(self.build, "fuzz", "libfuzzer", "fuzz_memcpy"))
        rc, _, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}")
        self.assertEqual(rc, 2)
        self.assertRegex(err, r"fuzz: could not judge: .*fuzz_memcpy is missing")

    def test_corrupt_corpus_file_is_could_not_judge_not_a_finding(self):
        rc, _, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}")
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.out, "corpus", "memcpy", "corrupt"), "wb") as f:
            f.write(b"BUG1" * 1500)
        rc, out, err = self.fuzz(f"--resume={self.out}", "--seconds=1")
        self.assertEqual(rc, 2, out + err)
        self.assertRegex(err, r"could not judge: corpus file .*corrupt is not a memgate fuzz input")
        recs = self.raw_summary()
        self.assertEqual(records.of_kind(recs, "finding"), [])

    def test_target_that_could_not_judge_an_input_is_could_not_judge(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="cannot-judge")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("fuzz_memcpy could not judge an input: cannot map the sandbox", err)
        self.assertEqual(records.of_kind(self.raw_summary(), "finding"), [])

    def test_oversized_saved_input_is_could_not_judge(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="big")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("not a memgate fuzz input", err)

    def test_replay_cut_short_is_could_not_judge(self):
        rc, _, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_REPLAY="cut")
        self.assertEqual(rc, 2)
        self.assertIn("ends before its summary", err)

    def test_write_error_is_could_not_judge(self):
        def small_files():
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))

        r = subprocess.run([FUZZ, f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}"],
                           env=self.env(FAKE_MODE="bug"), capture_output=True, text=True,
                           preexec_fn=small_files, timeout=60)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("could not judge", r.stderr)

    def test_afl_abort_is_could_not_judge(self):
        rc, _, err = self.fuzz("--engine=afl", f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                               "--jobs=1", FAKE_AFL="abort")
        self.assertEqual(rc, 2)
        self.assertIn("could not judge: afl-fuzz main could not run: PROGRAM ABORT : Fork server handshake failed", err)

    def test_afl_crash_is_taken_from_crashes_dir(self):
        rc, out, err = self.fuzz("--engine=afl", f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                                 "--jobs=1", FAKE_AFL="crash")
        self.assertEqual(rc, 1, out + err)
        found = self.findings()
        self.assertEqual([f["engine"] for f in found], ["afl"])
        self.assertEqual(self.summary()[0]["execs"], 4321)

    def test_afl_with_every_seed_failing_reports_the_seeds(self):
        rc, out, err = self.fuzz("--engine=afl", f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                                 "--jobs=1", FAKE_REPLAY="allfail")
        self.assertEqual(rc, 1, out + err)
        recs = self.summary()
        self.assertEqual(recs[0]["status"], "ran")
        self.assertIn("every seed fails", recs[0]["reason"])
        found = self.findings()
        self.assertEqual(len(found), 1)
        self.assertIn("seeds of corpus/memcpy", found[0]["note"])
        self.assertFalse(os.path.exists(os.path.join(self.out, "work", "memcpy", "afl")))

    def test_afl_target_killed_from_outside_is_could_not_judge(self):
        rc, out, err = self.fuzz("--engine=afl", f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                                 "--jobs=1", FAKE_AFL="killed")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("killed by SIGKILL", err)
        recs = self.raw_summary()
        self.assertEqual(records.of_kind(recs, "finding"), [])

    def test_call_that_never_returned_and_replays_is_a_finding(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="inflight-bug")
        self.assertEqual(rc, 1, out + err)
        found = self.findings()
        self.assertEqual([f["signature"] for f in found], [f"{VARIANT} out-of-bounds-write dst past the end 3"])
        raw = os.listdir(os.path.join(self.out, "memcpy", "raw"))
        self.assertFalse([n for n in raw if n.startswith("inflight-")], raw)

    def test_call_that_never_returned_and_passes_replay_is_could_not_judge(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="inflight-calm")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("ended during a call whose input passes build/replay", err)
        self.assertEqual(records.of_kind(self.raw_summary(), "finding"), [])

    # ------------------------------------------------- concurrency, signals

    def start_background(self, *args, **extra):
        return subprocess.Popen([FUZZ, *args], env=self.env(**extra), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)

    def wait_for(self, path, seconds=20):
        end = time.time() + seconds
        while time.time() < end:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                return
            time.sleep(0.05)
        self.fail(f"{path} did not appear")

    def test_second_run_on_one_directory_is_refused(self):
        pids = os.path.join(self.top, "pids")
        first = self.start_background(f"--variant={VARIANT}", "--seconds=20", f"--out={self.out}",
                                      FAKE_PIDS=pids)
        try:
            self.wait_for(pids)
            for args in ([f"--resume={self.out}"], [f"--out={self.out}", f"--variant={VARIANT}"]):
                rc, out, err = self.fuzz(*args, "--seconds=1")
                self.assertEqual(rc, 2, err)
                lines = err.strip().splitlines()
                self.assertEqual(len(lines), 1, err)
                self.assertRegex(lines[0], r"^fuzz: .* is in use by another scripts/fuzz run \(pid \d+\)")
        finally:
            os.killpg(first.pid, signal.SIGTERM)
            first.communicate(timeout=30)

    def interrupt(self, signum, to_group):
        pids = os.path.join(self.top, "pids")
        run = self.start_background(f"--variant={VARIANT}", "--seconds=60", f"--out={self.out}",
                                    FAKE_MODE="stubborn", FAKE_PIDS=pids)
        self.wait_for(pids)
        time.sleep(0.3)  # the stubborn fuzzer's forked child too
        if to_group:
            os.killpg(run.pid, signum)
        else:
            os.kill(run.pid, signum)
        _, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 128 + signum, err)
        self.assertRegex(err, rf"fuzz: interrupted by {signal.Signals(signum).name}; ")
        self.assertEqual(len(err.strip().splitlines()[-1:]), 1)
        with open(pids) as f:
            left = [int(p) for p in f.read().split() if alive(int(p))]
        self.assertEqual(left, [])
        self.assertTrue(os.path.isdir(os.path.join(self.out, "corpus", "memcpy")))
        self.assertFalse(os.path.exists(os.path.join(self.out, "summary.jsonl")))
        with open(os.path.join(self.out, "sessions.log")) as f:
            self.assertIn(f"session interrupted by {signal.Signals(signum).name}", f.read())

    def test_sigterm_to_the_group_exits_143_and_leaves_no_fuzzer(self):
        self.interrupt(signal.SIGTERM, to_group=True)

    # One test per signal, not subtests: tests/py/run.py counts tests.
    def test_sigterm_to_its_own_pid_leaves_no_fuzzer(self):
        self.interrupt(signal.SIGTERM, to_group=False)

    def test_sighup_to_its_own_pid_leaves_no_fuzzer(self):
        self.interrupt(signal.SIGHUP, to_group=False)

    def test_sigint_to_its_own_pid_leaves_no_fuzzer(self):
        self.interrupt(signal.SIGINT, to_group=False)

    def test_an_interrupted_resume_keeps_the_earlier_summary(self):
        rc, _, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}")
        self.assertEqual(rc, 0, err)
        before = {}
        for name in ("summary.txt", "summary.jsonl"):
            with open(os.path.join(self.out, name), "rb") as f:
                before[name] = f.read()
        pids = os.path.join(self.top, "pids")
        run = self.start_background(f"--resume={self.out}", "--seconds=60", FAKE_MODE="stubborn", FAKE_PIDS=pids)
        self.wait_for(pids)
        os.kill(run.pid, signal.SIGHUP)
        _, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 129, err)
        for name, data in before.items():
            with open(os.path.join(self.out, name), "rb") as f:
                self.assertEqual(f.read(), data, name)

    def test_deadline_kills_a_fuzzer_that_ignores_sigterm(self):
        pids = os.path.join(self.top, "pids")
        start = time.monotonic()
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                                 FAKE_MODE="stubborn", FAKE_PIDS=pids)
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(rc, 0, err)
        with open(pids) as f:
            self.assertEqual([p for p in f.read().split() if alive(int(p))], [])

    def test_a_job_that_died_in_a_call_before_the_deadline_is_could_not_judge(self):
        pids = os.path.join(self.top, "pids")
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}",
                                 FAKE_MODE="stubborn-dead-job", FAKE_PIDS=pids)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("ended during a call whose input passes build/replay", err)
        # The call the deadline ended is set aside, not judged.
        self.assertEqual(len(os.listdir(os.path.join(self.out, "work", "memcpy", "ended-by-stop"))), 1)

    def test_a_job_killed_between_calls_is_could_not_judge(self):
        rc, out, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="quiet-death")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("ended between calls with no finding and no crash report", err)

    def test_resume_keeps_settings_and_refuses_others(self):
        rc, _, err = self.fuzz(f"--variant={VARIANT}", "--seconds=1", f"--out={self.out}", FAKE_MODE="bug")
        self.assertEqual(rc, 1, err)
        rc, out, err = self.fuzz(f"--resume={self.out}", "--seconds=1")
        self.assertEqual(rc, 1, err)
        self.assertIn("the first in an earlier session of this run", out)
        rc, _, err = self.fuzz(f"--resume={self.out}", "--variant=memcpy_erms")
        self.assertEqual(rc, 2)
        self.assertRegex(err, rf"^fuzz: --resume: the run in .* has variant '{VARIANT}', not 'memcpy_erms'$")


if __name__ == "__main__":
    unittest.main()

"""The parts of scripts/fuzz on their own: options, build/replay's records,
names, the run-directory lock, process groups."""

import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))

from orchestration import fuzz, fuzz_engines, fuzz_findings, procs  # noqa: E402
from orchestration.records import CouldNotJudge  # noqa: E402


class Options(unittest.TestCase):
    def test_both_spellings_and_defaults(self):
        opts, given = fuzz.parse_args(["--target", "memset", "--seconds=5", "--sanitize"])
        self.assertEqual((opts["target"], opts["seconds"], opts["sanitize"], opts["engine"]),
                         ("memset", "5", "1", "libfuzzer"))
        self.assertEqual(given, {"target", "seconds", "sanitize"})

    def test_bad_usage_is_one_line(self):
        for argv, message in (
            (["--bogus"], "unknown option '--bogus' (valid: --target, "),
            (["stray"], "unexpected argument 'stray'"),
            (["--seconds"], "--seconds needs a value"),
            (["--sanitize=yes"], "--sanitize takes no value"),
        ):
            with self.assertRaises(fuzz.Usage) as e:
                fuzz.parse_args(argv)
            self.assertIn(message, str(e.exception))
            self.assertNotIn("\n", str(e.exception))

    def test_values_checked(self):
        for key, value, message in (
            ("seconds", "99999999999999999999", "bad value"),
            ("seconds", "0", "bad value"),
            ("jobs", "1000", "bad value"),
            ("engine", "honggfuzz", "unknown engine"),
            ("target", "strcpy", "unknown target"),
        ):
            opts, _ = fuzz.parse_args([])
            opts[key] = value
            with self.assertRaises(fuzz.Usage) as e:
                fuzz.check_options(opts)
            self.assertIn(message, str(e.exception))

    def test_runs_implies_one_job_a_seed_and_a_bound(self):
        opts, _ = fuzz.parse_args(["--runs=2000"])
        fuzz.check_options(opts)
        self.assertEqual((opts["runs"], opts["seed"], opts["jobs"], opts["seconds"]),
                         ("2000", "1", "1", str(fuzz.RUNS_SECONDS)))
        opts, _ = fuzz.parse_args(["--runs", "5", "--seed=7", "--seconds=9", "--jobs=1"])
        fuzz.check_options(opts)
        self.assertEqual((opts["seed"], opts["jobs"], opts["seconds"]), ("7", "1", "9"))

    def test_time_mode_defaults_unchanged(self):
        opts, _ = fuzz.parse_args([])
        fuzz.check_options(opts)
        self.assertEqual((opts["runs"], opts["seed"], opts["seconds"]), ("", "", "60"))

    def test_runs_refusals_are_one_line(self):
        for argv, message in (
            (["--runs=10", "--jobs=2"], "--runs runs one process: --jobs=2"),
            (["--seed=3"], "--seed needs --runs"),
            (["--runs=0"], "bad value '0' for --runs"),
            (["--runs=1000000000"], "bad value '1000000000' for --runs"),
            (["--runs=5", "--seed=0"], "bad value '0' for --seed"),
            (["--runs=5", "--seed=4294967296"], "bad value '4294967296' for --seed"),
        ):
            opts, _ = fuzz.parse_args(argv)
            with self.assertRaises(fuzz.Usage) as e:
                fuzz.check_options(opts)
            self.assertIn(message, str(e.exception))
            self.assertNotIn("\n", str(e.exception))

    def test_variant_family_from_the_tables(self):
        self.assertEqual(fuzz.variant_family("bad_memcpy_tail_overwrite"), "memcpy")
        self.assertEqual(fuzz.variant_family("memset_libc"), "memset")
        self.assertIsNone(fuzz.variant_family("nope"))


def finding(path, sig="v out-of-bounds-read src past the end", cls="out-of-bounds-read"):
    return {"record": "finding", "class": cls, "signature": sig, "input": path, "variant": "v"}


class ReplayRecords(unittest.TestCase):
    def test_cases_and_their_findings(self):
        recs = [
            {"record": "case", "input": "a", "class": "ok"},
            {"record": "case", "input": "b", "class": "out-of-bounds-read"},
            finding("b"),
            {"record": "summary", "complete": True},
        ]
        v = fuzz_findings.parse_replay(recs, "t")
        self.assertFalse(v["a"].failed)
        self.assertTrue(v["b"].failed)
        self.assertEqual(v["b"].signature, "v out-of-bounds-read src past the end")

    def test_a_failure_without_its_record_is_no_verdict(self):
        with self.assertRaises(CouldNotJudge):
            fuzz_findings.parse_replay([{"record": "case", "input": "b", "class": "crash"}], "t")

    def test_an_unknown_class_is_no_verdict(self):
        with self.assertRaises(CouldNotJudge):
            fuzz_findings.parse_replay([{"record": "case", "input": "b", "class": "skip"}], "t")

    def test_the_target_record_beside_an_input(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.in")
            open(p, "wb").close()
            self.assertIsNone(fuzz_findings.read_target_record(p))
            with open(os.path.join(d, "x.json"), "w") as f:
                f.write('{"record": "finding", "signature": "s"')  # cut short
            self.assertIsNone(fuzz_findings.read_target_record(p))
            with open(os.path.join(d, "x.json"), "w") as f:
                f.write('{"record": "finding", "signature": "s"}\n')
            self.assertEqual(fuzz_findings.read_target_record(p)["signature"], "s")


class Names(unittest.TestCase):
    def test_slug(self):
        self.assertEqual(fuzz_findings.slug("bad_memcpy_tail_overwrite out-of-bounds-write dst past the end"),
                         "bad_memcpy_tail_overwrite-out-of-bounds-write-dst-past-the-end")
        self.assertEqual(fuzz_findings.slug("v crash SIGILL at v+0x4 "), "v-crash-SIGILL-at-v-0x4")

    def test_sibling_paths(self):
        self.assertEqual(fuzz_findings.record_path("r/a-b.in"), "r/a-b.json")
        self.assertEqual(fuzz_findings.record_path("r/crash-12"), "r/crash-12.json")
        self.assertEqual(fuzz_findings.text_path("r/a.in"), "r/a.txt")

    def test_afl_abort_line(self):
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("[*] ok\n\x1b[1;91m[-] PROGRAM ABORT : \x1b[0mFork server handshake failed\x1b[1;91m\n"
                    "         Location : afl_fsrv_start()\n")
        try:
            self.assertEqual(fuzz_engines.afl_abort(f.name),
                             "PROGRAM ABORT : Fork server handshake failed Location : afl_fsrv_start()")
        finally:
            os.unlink(f.name)


class RunLock(unittest.TestCase):
    def test_second_lock_refused_while_the_first_is_held(self):
        with tempfile.TemporaryDirectory() as d:
            first = fuzz.Lock(d)
            with self.assertRaises(fuzz.Usage) as e:
                fuzz.Lock(d)
            self.assertIn(f"(pid {os.getpid()})", str(e.exception))
            os.close(first.fd)
            os.close(fuzz.Lock(d).fd)  # free again


class ProcessGroups(unittest.TestCase):
    def test_stop_all_ends_a_group_that_ignores_sigterm(self):
        child = procs.start(["sh", "-c", "trap '' TERM; sleep 60 & sleep 60"])
        time.sleep(0.2)
        start = time.monotonic()
        procs.stop_all(grace=0.5)
        self.assertLess(time.monotonic() - start, 5)
        self.assertIsNotNone(child.returncode)
        self.assertFalse(procs.group_alive(child.pid))
        self.assertEqual(procs.RUNNING, {})

    def test_run_stops_at_its_timeout(self):
        r = procs.run(["sleep", "30"], timeout=0.3)
        self.assertTrue(r.timed_out)
        self.assertEqual(r.signal, 15)


if __name__ == "__main__":
    unittest.main()


class AddRegression(unittest.TestCase):
    def test_cksum_is_posix_cksum(self):
        from orchestration.add_regression import cksum

        for data in (b"", b"abc", bytes(range(256)) * 3):
            r = subprocess.run(["cksum"], input=data, capture_output=True)
            self.assertEqual(cksum(data), int(r.stdout.split()[0]))

    def test_options(self):
        from orchestration import add_regression as ar

        self.assertEqual(ar.parse(["--variant=v", "--into=d", "x.in"]), (["--variant=v"], "x.in", None, "d"))
        self.assertEqual(ar.parse(["--case", "build/memgate run --len=1"])[2], "build/memgate run --len=1")
        for argv in (["a", "b"], ["--bogus"], ["--case"]):
            with self.assertRaises(ar.Usage):
                ar.parse(argv)

    def test_family_of_an_op(self):
        from orchestration.add_regression import family

        self.assertEqual([family(o) for o in ("memcpy", "copy_page", "clear_page")], ["memcpy", "page", "page"])


class FakeReplayer:
    """Verdicts by content: b"BUG<d>" fails with signature "v bug <d>"."""

    def __init__(self):
        self.replayed = []

    def run(self, paths, deadline, what=""):
        out = {}
        for p in paths:
            self.replayed.append(p)
            data = open(p, "rb").read()
            i = data.find(b"BUG")
            if i < 0:
                out[p] = fuzz_findings.Verdict("ok")
            else:
                sig = f"v bug {data[i + 3:i + 4].decode()}"
                out[p] = fuzz_findings.Verdict("crash", {"record": "finding", "class": "crash", "signature": sig,
                                                         "variant": "v", "input": p})
        return out


class Judging(unittest.TestCase):
    def saved(self, d, name, data, sig=None):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(data)
        if sig:
            with open(fuzz_findings.record_path(p), "w") as f:
                f.write('{"record": "finding", "class": "crash", "variant": "v", "signature": "%s"}\n' % sig)
        return p

    def test_one_replay_per_signature_when_it_confirms(self):
        with tempfile.TemporaryDirectory() as d:
            for i in range(5):
                self.saved(d, f"t{i}.in", b"x" * i + b"BUG1", "v bug 1")
            contents = fuzz_findings.gather(d, set(), 0)
            r = FakeReplayer()
            fuzz_findings.judge(contents, r, procs.Deadline(10))
            self.assertEqual(len(r.replayed), 1)  # the smallest only
            self.assertTrue(r.replayed[0].endswith("t0.in"))

    def test_a_record_the_replay_contradicts_is_replayed_in_full(self):
        with tempfile.TemporaryDirectory() as d:
            self.saved(d, "a.in", b"BUG2", "v bug 1")  # the smallest: mislabelled
            self.saved(d, "b.in", b"xxBUG1", "v bug 1")
            self.saved(d, "c.in", b"calm-crash", "v bug 1")
            contents = fuzz_findings.gather(d, set(), 0)
            fuzz_findings.judge(contents, FakeReplayer(), procs.Deadline(10))
            by_name = {os.path.basename(s.paths[0]): s for s in contents}
            self.assertEqual(by_name["a.in"].signature, "v bug 2")
            self.assertEqual(by_name["b.in"].signature, "v bug 1")
            self.assertFalse(by_name["c.in"].verdict.failed)  # a flaky one

    def test_same_bytes_are_one_content(self):
        with tempfile.TemporaryDirectory() as d:
            self.saved(d, "v-crash-1.in", b"BUG1", "v bug 1")
            self.saved(d, "crash-abc", b"BUG1")
            contents = fuzz_findings.gather(d, set(), 0)
            self.assertEqual(len(contents), 1)
            self.assertEqual(contents[0].main_path(), os.path.join(d, "v-crash-1.in"))

    def test_inflight_files(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "inflight-7"), "wb") as f:
                f.write((3).to_bytes(8, "little") + b"abc" + bytes(100))
            with open(os.path.join(d, "inflight-8"), "wb") as f:
                f.write(bytes(8 + 4096))
            made, quiet = fuzz_findings.take_inflight(d)
            self.assertEqual(made, [os.path.join(d, "ended-in-call-7.in")])
            self.assertEqual(quiet, [8])
            self.assertEqual(open(made[0], "rb").read(), b"abc")
            self.assertEqual(sorted(os.listdir(d)), ["ended-in-call-7.in"])
            with open(os.path.join(d, "inflight-9"), "wb") as f:
                f.write((5000).to_bytes(8, "little"))
            with self.assertRaises(CouldNotJudge):
                fuzz_findings.take_inflight(d)

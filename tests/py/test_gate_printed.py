"""What the gate prints works as printed, from where it is printed, and
says what is true (issue 44): a warning's repro line and the build it
names, the rows a finding stopped, the speed plot line, the runs of a
further value set, and the small lines a new user reads."""
import contextlib
import io
import os
import unittest
from unittest import mock

from common import ROOT, context, tmpdir
from orchestration import checks, gate, gate_build, gate_cache, gate_context, gate_runs, gate_tunables, gate_verdict, report, workspace
from orchestration.check_result import Check

REPRO = ("MEMGATE_BUILD=build/gate/__memmove_ssse3-bbbbbbbb scripts/repro --target=memmove "
         "--variant=__memmove_ssse3 findings/gate/r/__memmove_ssse3/run-7-boundary-0/sweep-1.in")


class Boundary(list):
    """A value set of the glibc model, as glibc_x86.plan makes them."""
    kind, label, full, producers = "boundary", "boundary 0", False, []


def fragile_warning():
    found = [{"check": "sweep", "kind": "out-of-bounds-write", "detail": "dst, 15 bytes before it",
              "repro": REPRO, "signature": "s"}]
    return gate_tunables.fragile(found, Boundary([("__x86_shared_cache_size_half", 0)]))[0]


class WarningRepro(unittest.TestCase):
    """Item 1: a warning's replay is a line of its own that works where it
    is printed, and the build it names is kept."""

    def test_fragile_tunable_keeps_its_replay_as_a_field(self):
        w = fragile_warning()
        self.assertEqual(w["repro"], REPRO)
        self.assertNotIn("repro", w["text"])
        self.assertTrue(w["text"].startswith("fails with __x86_shared_cache_size_half=0, a boundary value"))

    def test_the_repro_line_is_printed_as_a_findings_is(self):
        w = fragile_warning()
        self.assertEqual(gate_verdict.describe_warning(w).splitlines()[1], f"   repro: {REPRO}")
        self.assertEqual(gate_verdict.describe_warning(dict(w, repro="")).count("\n"), 0)

    def test_from_a_users_directory_it_runs_where_the_gate_worked(self):
        start = tmpdir(self)
        moved = workspace.Workspace(start, os.path.join(start, "memgate-results"))
        with mock.patch.object(workspace, "CURRENT", moved):
            line = gate_verdict.describe_warning(fragile_warning()).splitlines()[1]
        self.assertEqual(line, f"   repro: (cd memgate-results && {REPRO})")

    def test_the_reports_carry_it(self):
        doc = report.derived({"schema": report.SCHEMA, "variant": "v", "op": "memmove", "arch": "x86_64",
                              "symbol": "v", "files": ["tests/gate/bytecopy.c"], "verdict": "accepted",
                              "seconds": 1.0, "memgate": "m", "started": "2026-12-07T08:00:00Z",
                              "checks": [{"name": "sweep", "status": "pass", "cases": 1, "seconds": 0.1,
                                          "note": ""}], "findings": [], "warnings": [fragile_warning()]})
        result = report.to_sarif(doc)["runs"][0]["results"][0]
        self.assertIn(f"Replay: {REPRO}", result["message"]["text"])
        self.assertEqual(result["properties"]["repro"], REPRO)
        self.assertIn(f"replay: {REPRO}", report.to_junit(doc))

    def test_an_accepted_run_keeps_the_builds_its_warnings_name(self):
        builds = [f"build/gate/__memmove_ssse3-{c * 8}" for c in "abcd"]
        warned = [fragile_warning(), dict(fragile_warning(), repro=REPRO.replace("bbbbbbbb", "cccccccc"))]
        outcomes = [({}, [], [], warned[:1], 1.0), ({}, [], [], warned[1:], 1.0)]
        self.assertEqual(gate.unnamed_builds(builds, 0, outcomes), [builds[0], builds[3]])
        self.assertEqual(gate.unnamed_builds(builds, 0, [({}, [], [], [], 1.0)]), builds)
        self.assertEqual(gate.unnamed_builds(builds, 1, [({}, [], [], [], 1.0)]), [])

    def test_a_huge_findings_program_names_its_build(self):
        named = gate_cache.builds_named([{"repro": "build/gate/x-aaaaaaaa/memgate run --variant=x --len=3"},
                                         {"repro": "valgrind -q build/gate/aarch64/y-bbbbbbbb/replay --in-process"},
                                         {"repro": "QEMU_CPU=max MEMGATE_BUILD=build/gate/z-cccccccc scripts/repro f"}])
        self.assertEqual(named, {"build/gate/x-aaaaaaaa", "build/gate/aarch64/y-bbbbbbbb", "build/gate/z-cccccccc"})

    def test_further_builds_are_named_after_the_first_entry(self):
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.W = os.path.relpath(os.path.join(tmp, "__memmove_ssse3-aaaaaaaa"))
        ctx.entries = [{"name": "__memmove_ssse3"}, {"name": "__memcpy_ssse3"}, {"name": "__mempcpy_ssse3"}]
        ctx.name = "__mempcpy_ssse3"  # the entry the checks looked at last
        gate_runs.new_build_dir(ctx)
        self.assertTrue(os.path.basename(ctx.W).startswith("__memmove_ssse3-"), ctx.W)

    def test_the_compilers_log_named_on_stderr_is_kept_in_the_results(self):
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.W, ctx.root_R = os.path.join(tmp, "build"), os.path.join(tmp, "results")
        os.makedirs(ctx.W)
        os.makedirs(ctx.root_R)
        with open(os.path.join(ctx.W, "build.log"), "w") as f:
            f.write("f.c:1:1: warning: x\n" * 7)
        ctx.compiler_warned = ["f.c:1:1: warning: x"] * 7
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            gate_build.show_warnings(ctx)
        said = err.getvalue().splitlines()[-1]
        self.assertTrue(said.endswith(f"2 more warnings in {os.path.join(ctx.root_R, 'build.log')}"), said)
        self.assertTrue(os.path.isfile(os.path.join(ctx.root_R, "build.log")))


    def test_the_zoo_keeps_a_warnings_replay_in_its_rows(self):
        from orchestration import zoo
        self.assertEqual(zoo.warning_text(fragile_warning()), fragile_warning()["text"] + f"; repro: {REPRO}")
        self.assertEqual(zoo.warning_text({"text": "aligned-over-read: src"}), "aligned-over-read: src")


def sweep_record(status, cases, planned, **kw):
    return dict({"record": "variant", "variant": "bytecopy", "op": "memcpy", "stage": "sweep", "status": status,
                 "expected": "pass", "cases": cases, "planned": planned, "seconds": 1.5, "reason": None,
                 "warnings": [], "interrupts": "not run", "threads": "not run"}, **kw)


def finding_record(cls):
    return {"record": "finding", "variant": "bytecopy", "op": "memcpy", "arch": "x86_64", "class": cls,
            "level": "error", "detail": f"{cls} here", "signature": f"bytecopy {cls} site", "site": "site",
            "stage": "sweep", "replay": ["build/memgate", "run", "--variant=bytecopy", "--len=4"], "input": None}


SUMMARY = {"record": "summary", "command": "verify", "complete": True, "cases": 10, "passed": 0, "failed": 1,
           "errors": 0, "skipped": 0}


class StoppedRows(unittest.TestCase):
    """Item 2: a check another row's findings stopped says which; at a
    boundary value of the glibc model the stop is its warning's, never
    'found something'."""

    def judge(self, cls, externs=None):
        ctx = context(tmpdir(self))
        if externs is not None:
            ctx.externs = externs
        recs = [sweep_record("fail", 241, 2216448), finding_record(cls), SUMMARY]
        with mock.patch.object(checks, "sweep_input", lambda ctx, f, n: None):
            out, found, _ = checks.judge_verify(ctx, recs, 0.2, "quick", False)
        return out, found

    def test_the_sweep_stopped_by_the_abi_checks_findings_is_no_pass(self):
        out, found = self.judge("abi-violation")
        self.assertEqual([f["check"] for f in found], ["abi"])
        self.assertEqual(out["abi"].status, "fail")
        self.assertEqual((out["sweep"].status, out["sweep"].cases), ("n/a", 241))
        self.assertEqual(out["sweep"].note, "the abi check found something first: stopped after 241 of 2216448 "
                                            "cases, with none of its own")
        self.assertEqual(out["interrupts"].note, "the abi check found something first")
        self.assertEqual(out["threads"].note, "the abi check found something first")

    def test_the_abi_checks_stopped_by_the_sweeps_findings_say_so(self):
        out, _ = self.judge("wrong-result")
        self.assertEqual(out["sweep"].status, "fail")
        self.assertIn("stopped at the first findings, after 241 of 2216448 cases", out["sweep"].note)
        self.assertEqual((out["abi"].status, out["abi"].note),
                         ("n/a", "the sweep found something first: stopped after 241 of 2216448 cases, with none of "
                                 "its own"))
        self.assertEqual(out["interrupts"].note, "the sweep found something first")

    def test_a_boundary_values_failures_are_its_warnings_stop(self):
        boundary = Boundary([("__x86_shared_cache_size_half", 0)])
        out, found = self.judge("out-of-bounds-write", boundary)
        self.assertIn("stopped at this boundary value's first failures, after 241 of 2216448 cases",
                      out["sweep"].note)
        stop = "the sweep stopped at this boundary value's failures, the fragile-tunable warning"
        self.assertEqual([(out[n].status, out[n].note) for n in ("abi", "interrupts", "threads")], [("n/a", stop)] * 3)
        rows = [out[n] for n in ("abi", "sweep", "interrupts", "threads")]
        rows, found, warned = gate_runs.boundary_only(rows, found, [], boundary)
        self.assertEqual((found, [w["name"] for w in warned]), ([], ["fragile-tunable"]))
        self.assertEqual(rows[1].status, "pass")
        self.assertNotIn("found something", " ".join(c.note for c in rows))
        # Beside a produced set's run, where every check passed: one
        # qualifier for the three, naming the boundary run.
        for c in rows:
            c.run = "boundary 0"
        others = [Check(n, "pass") for n in ("abi", "sweep", "interrupts", "threads")]
        for c in others:
            c.run = "intel-core2"
        self.assertEqual(gate.qualifiers(others + rows), f"abi, interrupts, threads n/a in boundary 0: {stop}")

    def test_the_misaligned_watch_of_a_stopped_sweep_is_na_naming_why(self):
        from orchestration import misaligned
        sweep = Check("sweep", "n/a", 241, 0.2, "the abi check found something first: stopped after 241 of 2216448 "
                                               "cases, with none of its own")
        view = mock.Mock(requires=(), foreign="riscv64", host="x86_64", contract="user")
        check, _, _ = misaligned.verdict(view, [], sweep, "r", ["f"])
        self.assertEqual((check.status, check.note), ("n/a", f"the sweep did not run to its end: {sweep.note}"))


class SpeedPlot(unittest.TestCase):
    """Item 3: the speed plot the bench check drew is named under the
    table, by a path that works from where the gate was started."""

    def ctx(self):
        tmp = tmpdir(self)
        ctx = context(tmp)
        ctx.files = ["tests/gate/bytecopy.c"]
        entry = {"op": "memcpy", "symbol": "bytecopy", "family": "memcpy", "contract": "user", "name": "bytecopy",
                 "R": "findings/gate/bytecopy-20261207-080000-abcdefgh"}
        ctx.entries = [entry]
        ctx.select(entry)
        return ctx, entry

    def shown(self, ctx):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gate_verdict.show(ctx, [Check("bench", "pass", 0, 1.0, "vs memcpy_libc")], [], [])
        return [l for l in out.getvalue().splitlines() if l.startswith("speed plot:")]

    def test_the_plot_outlives_the_entry_being_selected_again(self):
        ctx, entry = self.ctx()
        with mock.patch.object(gate_context.submission, "capture", lambda argv, timeout: (0, "")):
            ctx.plot_speed("speed.tsv", ["memcpy_libc"])
        ctx.select(entry)  # as conclude() does before the table is shown
        self.assertEqual(self.shown(ctx), [f"speed plot: {entry['R']}/bytecopy-speed.svg"])

    def test_from_a_users_directory_the_path_is_theirs(self):
        ctx, entry = self.ctx()
        with mock.patch.object(gate_context.submission, "capture", lambda argv, timeout: (0, "")):
            ctx.plot_speed("speed.tsv", ["memcpy_libc"])
        start = tmpdir(self)
        moved = workspace.Workspace(start, os.path.join(start, "memgate-results"))
        with mock.patch.object(workspace, "CURRENT", moved):
            self.assertEqual(self.shown(ctx), [f"speed plot: memgate-results/{entry['R']}/bytecopy-speed.svg"])

    def test_no_plot_no_line(self):
        ctx, _ = self.ctx()
        with mock.patch.object(gate_context.submission, "capture", lambda argv, timeout: (1, "no gnuplot")):
            ctx.plot_speed("speed.tsv", ["memcpy_libc"])
        self.assertEqual(self.shown(ctx), [])

    def test_runs_that_share_a_report_folder_plot_apart(self):
        ctx, _ = self.ctx()
        ctx.opts = dict(ctx.opts, report="/tmp/r/report.json")
        ctx.label = "copy_threshold=16"
        with mock.patch.object(gate_context.submission, "capture", lambda argv, timeout: (0, "")):
            ctx.plot_speed("speed.tsv", ["memcpy_libc"])
        self.assertEqual(ctx.speed_plots, ["/tmp/r/bytecopy-copy_threshold=16-speed.svg"])


class FurtherSets(unittest.TestCase):
    """Item 4: every value of an --extern list runs every check of the
    profile; a further value set of the glibc model, the quick sweep and
    the regressions (docs/gate.md, "Profiles")."""

    def test_an_extern_lists_every_value_runs_every_check(self):
        opts = gate.validate(gate.parse(["--op", "memcpy", "--extern", "t=16,0x100000",
                                         os.path.join(ROOT, "tests/gate/extern_threshold.c")]))
        self.assertEqual(len(opts["extern_sets"]), 2)
        self.assertTrue(all(gate_runs.runs_every_check(s) for s in opts["extern_sets"]))

    def test_a_further_set_of_the_glibc_model_does_not(self):
        from orchestration import glibc_x86
        runs, _, _ = glibc_x86.plan(glibc_x86.Release(34), ["__x86_shared_cache_size"], 6, glibc_x86.ABIS["x86_64"])
        for i, s in enumerate(runs):  # as gate_tunables.model_runs marks them
            s.full = i == 0
        self.assertEqual([gate_runs.runs_every_check(s) for s in runs], [True] + [False] * (len(runs) - 1))


class SmallLines(unittest.TestCase):
    """Item 5: lines a new user reads once, each said once and plainly."""

    def test_an_extern_runs_label_is_not_repeated_as_its_values(self):
        given = {"run": "bad_nt_threshold=16", "values": {"bad_nt_threshold": 16}}
        self.assertEqual(gate_tunables.run_values(given), "  bad_nt_threshold=16")
        big = {"run": "copy_threshold=0x100000", "values": {"copy_threshold": 0x100000}}
        self.assertEqual(gate_tunables.run_values(big), "  copy_threshold=0x100000")
        produced = {"run": "intel-core2, amd-bulldozer", "values": {"__x86_shared_cache_size": 0x300000}}
        self.assertEqual(gate_tunables.run_values(produced),
                         "  intel-core2, amd-bulldozer: __x86_shared_cache_size=0x300000")
        alone = {"run": "the run", "values": {"copy_threshold": 64}}
        self.assertEqual(gate_tunables.run_values(alone), "  the run: copy_threshold=64")

    def test_a_cached_verdicts_time_says_it_is_the_reuses(self):
        ctx = context(tmpdir(self))
        self.assertEqual(gate_verdict.took_text(ctx, 5.24), "5.2 s")
        ctx.cached = {"from": "findings/gate/bytecopy-1", "date": "2026-12-07T08:24:05Z"}
        self.assertEqual(gate_verdict.took_text(ctx, 0.04, 5.2),
                         "0.0 s to reuse the verdict; cached: from findings/gate/bytecopy-1, 2026-12-07T08:24:05Z, "
                         "judged in 5.2 s")
        # A verdict kept by an older memgate has no time of its own.
        self.assertEqual(gate_verdict.took_text(ctx, 0.04),
                         "0.0 s to reuse the verdict; cached: from findings/gate/bytecopy-1, 2026-12-07T08:24:05Z")

    def test_a_cached_verdict_prints_the_lines_its_records_make(self):
        ctx = context(tmpdir(self))
        ctx.files = ["tests/gate/bytecopy.c"]
        ctx.entries = [{"op": "memcpy", "symbol": "bytecopy", "family": "memcpy", "contract": "user",
                        "name": "bytecopy", "R": ctx.R}]
        isa = {"minimal_requires": ["ssse3"], "declared": ["ssse3"]}
        symbols = {"reads": ["copy_threshold"], "model": [], "why_not": "it reads none of glibc's x86 tuning "
                   "variables", "sets": [{"run": "the run", "values": {"copy_threshold": 64}}], "ranges": {}}
        doc = {"variant": "bytecopy", "verdict": "accepted", "seconds": 4.5, "isa": isa, "data_symbols": symbols,
               "checks": [{"name": "sweep", "status": "pass", "cases": 1, "seconds": 0.1, "note": ""}],
               "findings": [], "warnings": []}
        hit = {"run": "findings/gate/bytecopy-1", "date": "2026-12-07T08:24:05Z", "seconds": 5.2, "docs": [doc]}
        seen = {}

        def conclude(ctx, outcomes):
            ctx.select(outcomes[0][0])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                gate_verdict.show(ctx, outcomes[0][1], [], [])
            seen["out"], seen["judged"] = out.getvalue(), (ctx.judged, outcomes[0][0]["judged"])
            return 0, [doc]
        with mock.patch.object(gate, "conclude", conclude):
            gate.reuse(ctx, hit)
        self.assertIn("\nminimal --requires: ssse3 (declared: ssse3)\n", seen["out"])
        self.assertIn("\ndata symbols read (from its relocations): copy_threshold\n", seen["out"])
        self.assertEqual(seen["judged"], (5.2, 4.5))

    def test_the_cache_keeps_how_long_judging_took(self):
        tmp = tmpdir(self)
        with mock.patch.dict(os.environ, {"MEMGATE_GATE_RESULTS": tmp}):
            doc = {"verdict": "accepted", "variant": "v", "findings": [], "warnings": []}
            self.assertTrue(gate_cache.store("k", 0, "r", "d", [doc], 5.24))
            self.assertEqual(gate_cache.lookup("k")["seconds"], 5.2)


class AdoptedName(unittest.TestCase):
    """Item 5: a file whose one function is not named after it is gated as
    that function, and the run's folders are named after it too, as its
    variant and later builds are (they kept the name guessed from the
    file: bad_memcpy_returns_end_submitted-... beside
    mg_generic_bad_memcpy_returns_end-...)."""

    def test_the_build_and_results_folders_take_the_entrys_name(self):
        tmp = tmpdir(self)
        here = os.getcwd()
        os.chdir(tmp)
        self.addCleanup(os.chdir, here)
        guess = "bad_memcpy_returns_end_submitted"
        w, r = f"build/gate/{guess}-abcdefgh", f"findings/gate/{guess}-20261207-080026-po91v21i"
        for d in (f"{w}/src", f"{r}/sources"):
            os.makedirs(d)
        for f in (f"{w}/src/0-f.c", f"{w}/build.log", f"{r}/sources/f.c"):
            open(f, "w").close()
        ctx = context(tmp)
        ctx.W, ctx.root_R, ctx.R = w, r, r
        ctx.sources, ctx.files = [f"{w}/src/0-f.c", os.path.abspath(f"{w}/src/0-f.c")], [f"{r}/sources/f.c", "t.c"]
        ctx.entries = [{"name": "mg_generic_bad_memcpy_returns_end", "R": r}]
        gate_build.rename_dirs(ctx, guess, "mg_generic_bad_memcpy_returns_end")
        self.assertTrue(ctx.W.startswith("build/gate/mg_generic_bad_memcpy_returns_end-"), ctx.W)
        self.assertTrue(ctx.root_R.startswith("findings/gate/mg_generic_bad_memcpy_returns_end-20261207-080026-"),
                        ctx.root_R)
        self.assertEqual(ctx.entries[0]["R"], ctx.root_R)
        self.assertFalse(os.path.exists(w) or os.path.exists(r))
        self.assertEqual(ctx.sources, [f"{ctx.W}/src/0-f.c", os.path.abspath(f"{ctx.W}/src/0-f.c")])
        self.assertEqual(ctx.files, [f"{ctx.root_R}/sources/f.c", "t.c"])
        self.assertTrue(all(os.path.isfile(p) for p in ctx.sources + ctx.files[:1] + [f"{ctx.W}/build.log"]))


class CachedBuilds(unittest.TestCase):
    """Item 1: a cached verdict whose printed lines name a build that is
    gone is judged again, not shown with lines that cannot work."""

    def setUp(self):
        self.tmp = tmpdir(self)
        old = os.environ.get("MEMGATE_GATE_RESULTS")
        os.environ["MEMGATE_GATE_RESULTS"] = self.tmp
        self.addCleanup(lambda: os.environ.__setitem__("MEMGATE_GATE_RESULTS", old) if old is not None
                        else os.environ.pop("MEMGATE_GATE_RESULTS", None))

    def test_a_verdict_naming_a_removed_build_is_not_reused(self):
        build = os.path.join(self.tmp, "build-kept")
        doc = {"verdict": "accepted", "variant": "v", "findings": [],
               "warnings": [{"check": "sweep", "name": "fragile-tunable", "text": "t",
                             "repro": f"MEMGATE_BUILD={build} scripts/repro x.in"}]}
        self.assertTrue(gate_cache.store("k1", 0, "r", "d", [doc]))
        self.assertIsNone(gate_cache.lookup("k1"))
        os.makedirs(build)
        self.assertIsNotNone(gate_cache.lookup("k1"))


if __name__ == "__main__":
    unittest.main()

"""The gate's checks. Each reads the records its program wrote (never its
human text) and returns Check results and findings; a program that did not
finish, or whose records are missing, cut short or say the harness failed,
makes its checks "could not judge" (status error), never a pass and never a
finding against the routine."""

import collections
import math
import os
import re
import shlex
import shutil
import signal as signals
import xml.etree.ElementTree as ET

from . import gate_isa, gate_tunables, procs, records, registry, submission
from .check_result import Check, cannot, na
from .gate_options import ILP32
from .records import CouldNotJudge

# As `make valgrind` runs it.
VALGRIND = ["valgrind", "-q", "--partial-loads-ok=no", "--vex-iropt-level=0", "--error-limit=no",
            "--leak-check=no"]
# CPU features valgrind's CPUID does not show a program: a routine that
# needs one cannot run under valgrind at all. Not fsrm and fsrs, which it
# hides too: they are speed-only (isa_features.SPEED_ONLY), and valgrind
# runs rep movsb and rep stosb.
VALGRIND_HIDES = ("avx512f", "avx512bw", "avx512vl", "avx512dq", "rtm")


def signal_name(number):
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ran_to_end(result, what):
    """Raises CouldNotJudge unless the child exited by itself; one stopped
    at the deadline says how long it ran."""
    if result.timed_out:
        raise CouldNotJudge(f"{what} did not finish before the gate's deadline (--seconds): "
                            f"stopped after {result.seconds:.0f} s")
    if result.signal:
        raise CouldNotJudge(f"{what} was killed by {signal_name(result.signal)}")


def last_line(path):
    """The last non-empty line a program printed on stderr, for a reason
    shown to people (never read for a verdict)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = [l for l in f.read().decode("utf-8", errors="replace").splitlines() if l.strip()]
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


def incomplete(result, what, err):
    """Why a program's records are not to be trusted: its exit, and what it
    said last."""
    said = last_line(err)
    return (f"{what} ended before its summary (exit status {result.returncode}"
            + (f": {said}" if said else "") + ")")


def read_complete(result, what, out, err):
    """The records of a program that must have run to its end: CouldNotJudge
    if it did not, or its output is cut short or malformed."""
    ran_to_end(result, what)
    recs = records.read(out, require_summary=False)
    if not recs or recs[-1]["record"] != "summary" or recs[-1].get("complete") is not True:
        raise CouldNotJudge(incomplete(result, what, err))
    return recs


def launch(ctx, argv, out, err, what, deadline=None, env=None):
    """Runs argv (under the arch's runner when it is a build's program) with
    stdout to `out`, stderr to `err`. CouldNotJudge if it cannot start."""
    try:
        return procs.run(argv, deadline=deadline or ctx.deadline, stdout=out, stderr=err,
                         env=env or ctx.env)
    except OSError as e:
        raise CouldNotJudge(f"{what} cannot start: {e.strerror or e}") from None


# --- findings from records -------------------------------------------------------

def repro_text(ctx, finding, input_path):
    """The command that replays a finding: scripts/repro on its input, else
    the record's own replay argv on this gate's build."""
    if input_path:
        valgrind = "--valgrind " if finding.get("stage") == "valgrind" else ""
        arch = f" --arch={ctx.foreign}" if ctx.foreign else ""
        strict = "MEMGATE_OVERREAD=strict " if getattr(ctx, "overread", "") == "strict" else ""
        return (f"{strict}MEMGATE_BUILD={ctx.W} scripts/repro{arch} {valgrind}--target={ctx.family} "
                f"--variant={ctx.name} {shlex.quote(input_path)}")
    argv = [ctx.W + "/memgate" if os.path.basename(a) == "memgate" else a for a in finding.get("replay") or []]
    return shlex.join(argv)


def sweep_input(ctx, finding, number):
    """A sweep finding's case as a fuzz input (memgate encode), so every
    finding has an input and a scripts/repro command; None when the case
    has a length only `memgate run` can take."""
    argv = finding.get("replay") or []
    if "run" not in argv:
        return None
    path = os.path.join(ctx.R, f"sweep-{number}.in")
    args = argv[argv.index("run") + 1:]
    try:
        result = procs.run(ctx.runner + [ctx.W + "/memgate", "encode", f"--output={path}"] + args,
                           deadline=ctx.deadline, env=ctx.env)
    except OSError:
        return None
    return path if result.returncode == 0 and os.path.isfile(path) else None


def finding_of(ctx, check, record, input_path=None):
    kind = record.get("class")
    if kind not in records.CLASSES:
        raise CouldNotJudge(f"{check}: a finding of unknown class '{kind}'")
    input_path = input_path or record.get("input") or ""
    site = record.get("site") or "-"
    found = {"check": check, "kind": kind, "detail": record.get("detail") or kind, "site": site,
             "input": input_path, "repro": repro_text(ctx, record, input_path),
             "signature": record.get("signature") or f"{ctx.name} {kind} {site}"}
    if record.get("called"):
        # A failure function the routine reached (harness/engine/noreturn.h).
        found["called"] = record["called"]
    return found


OVERREAD_FIELDS = ("buffer", "side", "distance", "width")


def warning_of(check, w):
    """A warning record's object as the gate keeps it; an aligned
    over-read's text says where and how wide."""
    out = {"check": check, "name": w["name"], "text": w.get("text", "")}
    if w["name"] == "aligned-over-read" and all(k in w for k in OVERREAD_FIELDS):
        out.update({k: w[k] for k in OVERREAD_FIELDS})
        side = "before the start" if w["side"] == "before" else "past the end"
        out["text"] = (f"{w['buffer']}, {w['distance']} byte{'s' if w['distance'] != 1 else ''} {side}, "
                       f"within an aligned {w['width']}-byte block: " + out["text"])
    return out


def warnings_of(check, recs):
    """The warnings of the variant (or case) records, one per name: for an
    aligned over-read, the widest."""
    out = {}
    for r in recs:
        for w in r.get("warnings") or []:
            if not (isinstance(w, dict) and w.get("name")):
                continue
            got = warning_of(check, w)
            kept = out.get(w["name"])
            if kept is None or got.get("width", 0) > kept.get("width", 0):
                out[w["name"]] = got
    return list(out.values())


# --- the sweep, its ABI checks and the 4 GiB+ check (memgate verify) -------------

def verify_argv(ctx):
    profile = ctx.profile
    huge = "off" if ctx.huge_off() else ("oracle" if ctx.emulated else "on")
    # The values the routine reads are lengths its paths may start at: the
    # sweep takes lengths around them (docs/tunables.md, "Lengths around
    # the thresholds").
    near = gate_tunables.thresholds(ctx)
    return profile, huge, ctx.runner + [
        ctx.W + "/memgate", "verify", f"--variant={ctx.name}", f"--profile={profile}", f"--huge={huge}",
        *([f"--thresholds={','.join(map(str, near))}"] if near else []),
        # The whole profile, however long it takes: the verdict is its
        # cases' (the deadline may end it, and then there is none).
        "--expect=pass", f"--findings={ctx.R}/verify", "--max-failures=5", "--format=jsonl"]


def sweep_note(profile, sweep, boundary=False):
    """The sweep's note: its profile (the sweep and the placements stage,
    which counts in its row), and where a finding stopped it (at a
    boundary value of the glibc model, its failures: a warning)."""
    cases, planned = sweep.get("cases") or 0, sweep.get("planned") or 0
    if stopped_early(sweep):
        first = "this boundary value's first failures" if boundary else "the first findings"
        return f"{profile} sweep and placements: stopped at {first}, after {cases} of {planned} cases"
    return f"{profile} profile and placements"


def stopped_early(sweep):
    """Whether memgate verify stopped its sweep before the profile's end:
    at its first failing cases (--max-failures), whichever row's they are
    (abi, sweep)."""
    cases, planned = sweep.get("cases") or 0, sweep.get("planned") or 0
    return sweep.get("status") == "fail" and planned > cases


# How a row of memgate verify's run is named when another row's failures
# stopped it.
ROW_NAMES = {"abi": "the abi check", "sweep": "the sweep", "interrupts": "the interrupts check",
             "threads": "the threads check"}


def boundary_run(ctx):
    """Whether this run is at a boundary value of the glibc model, where a
    failure is the warning fragile-tunable, never a finding
    (gate_runs.boundary_only)."""
    return getattr(getattr(ctx, "externs", None), "kind", "") == "boundary"


def stopped_by(rows, boundary):
    """Why a check of memgate verify's run stopped, or did not run: the
    failures of `rows`, checks before it. At a boundary value they are a
    warning, not a finding, and the note says so (the run's verdict is
    its warning: the cases left could only add to it)."""
    names = [ROW_NAMES.get(r, r) for r in rows]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if boundary:
        return f"{who} stopped at this boundary value's failures, the fragile-tunable warning"
    return f"{who} found something first"


def not_judged_note(sweep, check):
    """What the sweep's record says this machine could not judge of a
    check (a limit of the emulator: docs/records.md, "not_judged"), said
    after its note; the rest of the check ran as ever."""
    parts = [p for p in sweep.get("not_judged") or []
             if isinstance(p, dict) and p.get("check") == check and p.get("cases")]
    return "".join(f"; not judged here, in {p['cases']} case{'s' if p['cases'] != 1 else ''}: {p.get('text') or p.get('name')}"
                   for p in parts)


def threshold_note(sweep):
    """What the sweep's note says of the thresholds it was given (its
XX"""
    swept, rest = sweep.get("thresholds") or [], sweep.get("thresholds_past_sandbox") or []
    fmt = gate_tunables.glibc_x86.fmt
    text = f"; lengths around the values it reads: {', '.join(map(fmt, swept))}" if swept else ""
    if rest:
        text += (f"; {', '.join(map(fmt, rest))} past the sandbox's 16 MiB (the 4 GiB+ check's sparse "
                 "mid-size lengths only)")
    return text


def judge_verify(ctx, recs, seconds, profile, huge_wanted):
    """(checks, findings, warnings) from memgate verify's records."""
    summary_ok = bool(recs) and recs[-1]["record"] == "summary" and recs[-1].get("complete") is True
    if not summary_ok:
        raise CouldNotJudge("memgate verify ended before its summary (the program did not finish)")
    mine = [r for r in recs if r.get("variant") in (ctx.name, None)]
    errors = [r for r in mine if r["record"] == "error"]
    variants = [r for r in mine if r["record"] == "variant"]
    sweep = next((r for r in variants if r.get("stage") == "sweep"), None)
    huge = next((r for r in variants if r.get("stage") == "huge"), None)
    found = [r for r in mine if r["record"] == "finding"]
    out, findings = {}, []
    sweep_error = next((e for e in errors if e.get("stage") != "huge"), None)
    for n, r in enumerate(found, 1):
        check = (r.get("stage") if r.get("stage") in ("huge",) + SITUATIONS
                 else ("abi" if r.get("class") == "abi-violation" else "sweep"))
        findings.append(finding_of(ctx, check, r, sweep_input(ctx, r, n) if check != "huge" else None))
    rules = ctx.abi_rules()
    if sweep_error or sweep is None or sweep.get("status") not in ("pass", "fail"):
        reason = (sweep_error or {}).get("reason") or (sweep or {}).get("reason") or "memgate verify wrote no sweep result"
        if sweep is not None and sweep.get("status") in ("skip", "n/a"):
            reason = f"the sweep did not run: {reason}"
        for name in ("abi", "sweep") + SITUATIONS:
            out[name] = cannot(name, reason, seconds)
    else:
        cases, planned = sweep.get("cases") or 0, sweep.get("planned") or 0
        boundary = boundary_run(ctx)
        # The rows whose findings stopped the sweep early: the other of
        # abi and sweep ran part of the profile, found nothing in it, and
        # is n/a naming them, as the situations after it are.
        stoppers = [n for n in ("abi", "sweep") if any(f["check"] == n for f in findings)] if stopped_early(sweep) else []
        for name, note in (("abi", f"{rules}, on every call of the sweep"),
                           ("sweep", sweep_note(profile, sweep, boundary)
                            + (f", under {ctx.emulated}" if ctx.emulated else ""))):
            mine_ = [f for f in findings if f["check"] == name]
            if stoppers and not mine_:
                why = stopped_by(stoppers, boundary)
                out[name] = Check(name, "n/a", cases, seconds, why if boundary else
                                  f"{why}: stopped after {cases} of {planned} cases, with none of its own")
                continue
            out[name] = Check(name, "fail" if mine_ else "pass", cases, seconds, note)
        if sweep.get("status") == "pass" and "planned" in sweep and planned != cases:
            # A pass is on the whole profile or nothing.
            out["sweep"] = cannot("sweep", f"memgate verify passed the sweep on {cases} of its {planned} "
                                  "cases: a pass is on every case of the profile", seconds)
        if out["sweep"].status in ("pass", "fail"):
            out["sweep"].note += threshold_note(sweep)
        for name in SITUATIONS:
            out[name] = judge_situation(name, sweep, findings, seconds, boundary)
        for name in ("abi",) + SITUATIONS:
            if out[name].status in ("pass", "fail"):
                out[name].note += not_judged_note(sweep, name)
        if sweep.get("status") == "fail" and not any(f["check"] in ("abi", "sweep") + SITUATIONS for f in findings):
            reason = "memgate verify says the sweep failed but wrote no finding record"
            for name in ("abi", "sweep") + SITUATIONS:
                out[name] = cannot(name, reason, seconds)
    if huge_wanted:
        out["huge"] = judge_huge(ctx, huge, errors, findings)
    return out, findings, warnings_of("sweep", variants)


# The situations' checks (docs/contract.md, S1, S2), one per stage of
# memgate verify, in its order: the sweep record's fields for each (state,
# cases, seconds, reason), what its row says it did, and its n/a when
# nothing says why.
Situation = collections.namedtuple("Situation", "cases seconds reason note na")
SITUATION_FIELDS = {
    "interrupts": Situation("interrupted_cases", "interrupted_seconds", "interrupts_reason",
                            "stopped at every instruction: the stack below what the routine owns overwritten, "
                            "the bytes next to dst changed, the routine called from the handler",
                            "calls cannot be stepped here"),
    "threads": Situation("threads_cases", "threads_seconds", "threads_reason",
                         "each in 2 and in 4 threads at once, on buffers of their own, every thread's result "
                         "against the reference", "threads cannot be had here"),
}
SITUATIONS = registry.SITUATIONS


def judge_situation(name, sweep, findings, seconds, boundary=False):
    """A situation's check, from what the sweep's record says of the
    stage that ran in its process; one that did not run because a check
    before it failed is n/a naming that check (at a boundary value, its
    warning: stopped_by)."""
    fields = SITUATION_FIELDS[name]
    state, reason = sweep.get(name), sweep.get(fields.reason)
    mine = [f for f in findings if f["check"] == name]
    cases = sweep.get(fields.cases) or 0
    seconds = sweep.get(fields.seconds, seconds)
    earlier = ("abi", "sweep") + SITUATIONS[:SITUATIONS.index(name)]
    first = [n for n in earlier if any(f["check"] == n for f in findings)]
    if state == "n/a":
        return na(name, reason or fields.na)
    if state == "not run" and first:
        return na(name, stopped_by(first, boundary))
    if state in ("pass", "fail") and (state == "fail") == bool(mine):
        return Check(name, state, cases, seconds, f"{cases} case{'s' if cases != 1 else ''} {fields.note}")
    return cannot(name, reason or f"memgate verify says the {name} stage is '{state}'"
                  + (" but wrote no finding record" if state == "fail" else ""))


def overreads_explained(seen, warned):
    """memcheck's own reports, less the invalid reads the replay judged
    aligned over-reads (warnings): a real over-read in the same run is the
    replay's finding, so what is left is what the replay did not see."""
    if not any(w["name"] == "aligned-over-read" for w in warned):
        return seen
    return [f for f in seen if " (memcheck InvalidRead in " not in f["detail"]]


def judge_huge(ctx, huge, errors, findings):
    error = next((e for e in errors if e.get("stage") == "huge"), None)
    mine = [f for f in findings if f["check"] == "huge"]
    if error:
        return cannot("huge", error.get("reason") or "the 4 GiB+ check could not run")
    if huge is None:
        return cannot("huge", "memgate verify wrote no result for the 4 GiB+ check")
    status = huge.get("status")
    if status == "n/a":
        return na("huge", huge.get("reason") or "does not apply")
    note = "mid-size lengths 16 MiB to 1 GiB, lengths 2^31 to 2^32+4097"
    if ctx.op == "memmove":
        note += ", an overlapping move of 2^31+65 (dst = src +-1) in one mapping"
    if ctx.arch in ILP32:
        note = "an overlapping move of 2^31+65 (dst = src +-1) in one mapping: all a 32-bit size_t holds"
    elif ctx.emulated:
        note = "mid-size lengths, and guard-oracle cases only at 2 GiB+ (--huge=oracle): a 4 GiB copy takes about 20 s under qemu"
    if mine:
        return Check("huge", "fail", huge.get("cases") or 0, huge.get("seconds") or 0, note)
    if status == "pass":
        return Check("huge", "pass", huge.get("cases") or 0, huge.get("seconds") or 0, note)
    if status == "fail":
        return cannot("huge", "the 4 GiB+ check failed but wrote no finding record")
    return cannot("huge", huge.get("reason") or f"the 4 GiB+ check ended with status {status}")


def run_verify(ctx):
    """The abi, sweep and huge checks: one memgate verify."""
    profile, huge, argv = verify_argv(ctx)
    huge_wanted = ctx.huge_applies() and not ctx.skipped("huge")
    ctx.progress(f"ABI checks, {profile} sweep" + (" and lengths of 16 MiB to 1 GiB and of 2 GiB and more" if huge != "off" else "")
                 + (f", under {ctx.emulated}" if ctx.emulated else ""))
    out_path = os.path.join(ctx.R, "verify.jsonl")
    try:
        err = os.path.join(ctx.R, "verify.log")
        result = launch(ctx, argv, out_path, err, "memgate verify")
        ran_to_end(result, "memgate verify")
        recs = read_complete(result, "memgate verify", out_path, err)
        checks, findings, warnings = judge_verify(ctx, recs, result.seconds, profile, huge_wanted)
        # Exit 2 with an error record is judged above, check by check.
        if result.returncode not in (0, 1) and not records.of_kind(recs, "error"):
            reason = f"memgate verify exited with status {result.returncode}"
            for name in checks:
                if checks[name].status != "fail":
                    checks[name] = cannot(name, reason, result.seconds)
    except CouldNotJudge as e:
        checks = {n: cannot(n, str(e))
                  for n in ("abi", "sweep") + SITUATIONS + (("huge",) if huge_wanted else ())}
        findings, warnings = [], []
    if not huge_wanted:
        checks["huge"] = (Check("huge", "skip", note="--skip") if ctx.skipped("huge")
                          else na("huge", ctx.huge_na_reason()))
    return [checks[n] for n in ("abi", "sweep") + SITUATIONS + ("huge",)], findings, warnings


# --- replays of a corpus (build/replay --format=jsonl) ----------------------------

def judge_replay(ctx, check, recs):
    """(cases, findings) of a replay's records; CouldNotJudge when the
    output is incomplete, says the harness failed, or some inputs were not
    run."""
    records.check_complete(recs, check)
    summary = recs[-1]
    found = [finding_of(ctx, check, r) for r in records.of_kind(recs, "finding")]
    if (summary.get("failed") or 0) > 0 and not found:
        raise CouldNotJudge(f"{check}: {summary['failed']} inputs failed but no finding record was written")
    return summary, found


def run_replay(ctx, check, argv, note, env=None):
    out_path = os.path.join(ctx.R, f"{check}.jsonl")
    try:
        err = os.path.join(ctx.R, f"{check}.log")
        result = launch(ctx, argv, out_path, err, check, env=env)
        recs = read_complete(result, f"the {check} replay", out_path, err)
        summary, found = judge_replay(ctx, check, recs)
    except CouldNotJudge as e:
        return cannot(check, str(e)), []
    if summary.get("skipped"):
        return cannot(check, f"{summary['skipped']} inputs were not run (the variant cannot run here)"), found
    if result.returncode not in (0, 1):
        return cannot(check, f"the replay exited with status {result.returncode}", result.seconds), []
    cases = summary.get("cases") or 0
    return Check(check, "fail" if found else "pass", cases, result.seconds, note), found


def run_regressions(ctx):
    if ctx.skipped("regressions"):
        return Check("regressions", "skip", note="--skip"), []
    ctx.progress("the regression corpus")
    argv = ctx.runner + [ctx.W + "/replay", f"--variant={ctx.name}", "--format=jsonl",
                         f"corpus/regressions/{ctx.family}"]
    note = f"every past finding of {ctx.family}" + (f", under {ctx.emulated}" if ctx.emulated else "")
    return run_replay(ctx, "regressions", argv, note, env=dict(ctx.env, MEMGATE_BUILD=ctx.W))


# --- valgrind --------------------------------------------------------------------

VALGRIND_CLASS = {"InvalidRead": "out-of-bounds-read", "InvalidWrite": "out-of-bounds-write",
                  "UninitCondition": "out-of-bounds-read", "UninitValue": "out-of-bounds-read"}


def valgrind_findings(name, argv, xml_path):
    """Findings from valgrind's XML output (its <error> and <fatal_signal>
    elements): the error kind decides the class. CouldNotJudge if the file
    is missing or not XML."""
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError) as e:
        raise CouldNotJudge(f"valgrind's XML output {xml_path} cannot be read: {e}") from None
    found = []
    argv = " ".join(shlex.quote(a) for a in argv)
    for error in root.iter("error"):
        kind = error.findtext("kind") or "error"
        if kind.startswith("Leak_"):
            continue  # the harness's own allocations, not the routine's accesses
        what = error.findtext("what") or error.findtext("xwhat/text") or kind
        fn = error.findtext("stack/frame/fn") or "?"
        cls = VALGRIND_CLASS.get(kind, "crash")
        found.append({"check": "valgrind", "kind": cls, "detail": f"{what} (memcheck {kind} in {fn})",
                      "input": "", "repro": argv, "signature": f"{name} {cls} valgrind {kind} {fn}"})
    for fatal in root.iter("fatal_signal"):
        name = fatal.findtext("signame") or "a signal"
        fn = fatal.findtext("stack/frame/fn") or "?"
        found.append({"check": "valgrind", "kind": "crash", "detail": f"died of {name} in {fn} under memcheck",
                      "input": "", "repro": argv, "signature": f"{name} crash valgrind {name} {fn}"})
    return found


def run_valgrind(ctx):
    """(check, findings, warnings) of the corpus under memcheck: the
    warnings are the replay's, per case."""
    warned = []
    check, found = memcheck_run(ctx, warned)
    return check, found, warned


def memcheck_run(ctx, warned):
    """(check, findings) of the corpus under memcheck; the replay's
    warnings go to `warned`."""
    if ctx.skipped("valgrind"):
        return Check("valgrind", "skip", note="--skip"), []
    if ctx.foreign:
        return na("valgrind", "valgrind runs on the host's build only"), []
    if ctx.family == "usercopy":
        return na("valgrind", "under valgrind a fault's machine context is not the faulting "
                  "instruction's, which the user copies' exception-table emulation needs "
                  "(docs/usercopy.md)"), []
    # What the code uses and valgrind cannot run (the ISA audit) first:
    # under valgrind it would die of SIGILL, valgrind's limit, not the
    # routine's fault.
    cannot_run = gate_isa.valgrind_cannot(ctx)
    if cannot_run:
        return na("valgrind", cannot_run), []
    hidden = [f for f in ctx.requires if f in VALGRIND_HIDES]
    if hidden:
        return na("valgrind", f"needs {', '.join(hidden)}, which valgrind hides"), []
    if not shutil.which("valgrind", path=ctx.env.get("PATH")):
        return cannot("valgrind", "valgrind is not on PATH (scripts/install-deps installs it)"), []
    ctx.progress("the corpus under valgrind's memcheck, byte-granular")
    xml_path = os.path.join(ctx.R, "valgrind.xml")
    argv = VALGRIND + ["--error-exitcode=99", "--errors-for-leak-kinds=none", "--show-leak-kinds=none", "--xml=yes", f"--xml-file={xml_path}",
                                    ctx.W + "/replay", "--in-process", f"--variant={ctx.name}", "--format=jsonl",
                                    f"--overread={getattr(ctx, 'overread', 'classify')}",
                                    f"corpus/{ctx.family}", f"corpus/regressions/{ctx.family}"]
    out_path = os.path.join(ctx.R, "valgrind.jsonl")
    note = f"seeds and regressions of {ctx.family} under memcheck"
    try:
        result = launch(ctx, argv, out_path, os.path.join(ctx.R, "valgrind.log"), "valgrind")
        if result.timed_out:
            ran_to_end(result, "valgrind")
        seen = valgrind_findings(ctx.name, argv, xml_path)
        if result.signal and not seen:
            ran_to_end(result, "valgrind")
        recs = records.read(out_path, require_summary=False)
        if seen and not (recs and recs[-1]["record"] == "summary"):
            return Check("valgrind", "fail", 0, result.seconds, note), seen
        if not recs or recs[-1]["record"] != "summary":
            raise CouldNotJudge(incomplete(result, "the replay under valgrind", os.path.join(ctx.R, "valgrind.log")))
        summary, found = judge_replay(ctx, "valgrind", recs)
        warned[:] = warnings_of("valgrind", records.of_kind(recs, "case"))
        seen = overreads_explained(seen, warned)
        for f in found:
            f["repro"] = repro_text(ctx, dict(stage="valgrind"), f["input"]) if f["input"] else f["repro"]
        # The replay's own findings name their inputs; valgrind's XML is
        # the evidence when memcheck saw something the replay did not.
        found = found or seen
        if summary.get("skipped") and summary.get("skipped") == summary.get("cases") and not found:
            return na("valgrind", "the variant cannot run under valgrind (a CPU feature it hides)"), []
        if summary.get("skipped"):
            return cannot("valgrind", f"{summary['skipped']} inputs were not run under valgrind"), found
        explained = not seen and any(w["name"] == "aligned-over-read" for w in warned)
        if result.returncode not in (0, 1, 99) or (result.returncode == 99 and not found and not explained):
            return cannot("valgrind", f"valgrind exited with status {result.returncode} and reported no error"), found
        return Check("valgrind", "fail" if found else "pass", summary.get("cases") or 0, result.seconds, note), found
    except CouldNotJudge as e:
        return cannot("valgrind", str(e)), []


# --- fuzzing ---------------------------------------------------------------------

def fuzz_summary(ctx, path, engine):
    """(execs, findings) from scripts/fuzz's OUT/summary.jsonl."""
    # records.read fails closed on a missing, malformed or cut-short file,
    # and on any error record; engine records are checked below.
    recs = records.read(path)
    execs, found = 0, []
    for r in recs:
        if r.get("record") == "engine":
            if r.get("status") != "ran":
                raise CouldNotJudge(f"{r.get('engine', engine)}: {r.get('reason') or 'the fuzzer did not run to its end'}")
            execs += int(r.get("execs") or 0)
        elif r.get("record") == "error":
            raise CouldNotJudge(r.get("reason") or "scripts/fuzz reported an error")
        elif r.get("record") == "finding":
            f = finding_of(ctx, "fuzz", r)
            if r.get("repro"):
                f["repro"] = (f"MEMGATE_BUILD={ctx.W} " + shlex.join(r["repro"])
                              if isinstance(r["repro"], list) else str(r["repro"]))
            if f["kind"] == "flaky":
                f["fuzz_command"] = r.get("fuzz_command") or r.get("seen_by") or (
                    shlex.join(r["fuzzer"]) if isinstance(r.get("fuzzer"), list) else f"{r.get('engine', engine)} on {f['input']}")
            found.append(f)
    return execs, found


# The longest input length memgate encode writes (MG_FUZZ_MAX_LEN): a
# threshold past it is the sweep's alone.
FUZZ_MAX_LEN = 4 << 20


def fuzz_thresholds(ctx):
    """The thresholds the routine reads (gate_tunables.thresholds) that the
    fuzz check's inputs can reach and the short lengths they are made of
    most do not: from 1 KiB to FUZZ_MAX_LEN."""
    return [t for t in gate_tunables.thresholds(ctx) if 1024 <= t < FUZZ_MAX_LEN]


def threshold_seeds(ctx):
    """A directory of fuzz inputs at the lengths next to each of
    fuzz_thresholds, aligned and not, for the fuzzers to start from and
    mutate; None when there are none."""
    lengths = sorted({t + d for t in fuzz_thresholds(ctx) for d in (-1, 0, 1)})
    if not lengths:
        return None
    seeds = os.path.join(ctx.R, "fuzz-threshold-seeds")
    os.makedirs(seeds, exist_ok=True)
    for n in lengths:
        for align in (0, 7):
            path = os.path.join(seeds, f"threshold-{n}-{align}.in")
            rc, out = submission.capture(ctx.runner + [ctx.W + "/memgate", "encode", f"--output={path}",
                                                      f"--variant={ctx.name}", f"--len={n}", f"--src-align={align}",
                                                      f"--dst-align={align}"], env=ctx.env, timeout=30)
            if rc != 0:
                raise CouldNotJudge(f"memgate encode of a threshold seed (length {n}) failed: {out.strip()[-200:]}")
    return seeds


# The inputs each engine runs per profile, from a fixed seed: the verdict
# is these inputs' (scripts/fuzz --runs), on any machine at any load. Each
# engine runs them in one process, the two side by side. Rates depend on
# the routine and on how far the run got (its inputs grow): for a C word
# memmove here libFuzzer ran 200,000 in 5 s, AFL++ 60,000 in 3 s and
# 200,000 in 33 s (docs/benchmarks.md). The full profile's counts are
# some ten seconds of a slow routine.
FUZZ_RUNS = {"libfuzzer": {"smoke": 10_000, "quick": 50_000, "full": 200_000},
             "afl": {"smoke": 5_000, "quick": 20_000, "full": 60_000}}
# Where no coverage-guided fuzzer runs (a foreign arch under qemu): the
# random driver's cases, as many as its rate there allows in a few seconds.
RANDOM_CASES = {"smoke": 2_000, "quick": 10_000, "full": 40_000}
FUZZ_SEED = 1


def run_fuzz_engine(ctx, engine, runs, seeds=None):
    """Starts scripts/fuzz for `engine`; returns a function that waits for it
    and gives (execs, findings)."""
    out_dir = os.path.join(ctx.R, f"fuzz-{engine}")
    argv = ["scripts/fuzz", f"--variant={ctx.name}", f"--engine={engine}", f"--runs={runs}",
            f"--seed={FUZZ_SEED}", f"--out={out_dir}", *([f"--seeds={seeds}"] if seeds else [])]
    log, err = os.path.join(ctx.R, f"fuzz-{engine}.log"), os.path.join(ctx.R, f"fuzz-{engine}.err")
    what = f"scripts/fuzz --engine={engine}"
    for path in (log, err):
        open(path, "wb").close()
    try:
        child = procs.start(argv, stdout=log, stderr=err, env=dict(ctx.env, MEMGATE_BUILD=ctx.W))
    except OSError as e:
        raise CouldNotJudge(f"{what} cannot start: {e.strerror or e}") from None

    def finish():
        result = procs.wait(child, deadline=ctx.deadline)
        ran_to_end(result, what)
        said = last_line(err) or last_line(log)
        status = f"exited with status {result.returncode}" + (f": {said}" if said else "")
        # scripts/fuzz writes its summary.jsonl only when it ran to its end.
        summary = os.path.join(out_dir, "summary.jsonl")
        if not os.path.exists(summary):
            raise CouldNotJudge(f"{what} {status}, and wrote no summary.jsonl")
        execs, found = fuzz_summary(ctx, summary, engine)
        if result.returncode not in (0, 1) or (result.returncode == 1) != bool(found):
            raise CouldNotJudge(f"{what} {status}, which its records do not bear out")
        return execs, found
    finish.child = child
    return finish


def run_random(ctx, cases):
    out = os.path.join(ctx.R, "fuzz-random.jsonl")
    near = fuzz_thresholds(ctx)
    argv = ctx.runner + [ctx.W + "/random", f"--variant={ctx.name}", f"--cases={cases}", f"--seed={FUZZ_SEED}",
                         # --seconds is the driver's own limit: the deadline bounds it.
                         f"--seconds={max(1, int(ctx.deadline.remaining()) + 1)}",
                         f"--findings={ctx.R}/fuzz-random", "--format=jsonl",
                         *([f"--thresholds={','.join(map(str, near))}"] if near else [])]
    result = launch(ctx, argv, out, os.path.join(ctx.R, "fuzz-random.log"), "the random driver",
                    env=dict(ctx.env, MEMGATE_BUILD=ctx.W))
    recs = read_complete(result, "the random driver", out, os.path.join(ctx.R, "fuzz-random.log"))
    summary, found = judge_replay(ctx, "fuzz", recs)
    ran = summary.get("cases") or 0
    if not found and ran < cases:
        raise CouldNotJudge(f"the random driver ran {ran} of its {cases} cases")
    return ran, found


def fuzz_engines(ctx):
    engines = ["libfuzzer"]
    if os.access(f"{ctx.W}/fuzz/afl/fuzz_{ctx.family}", os.X_OK) and shutil.which("afl-fuzz"):
        engines.append("afl")
    return engines


def run_fuzz(ctx):
    if ctx.skipped("fuzz"):
        return Check("fuzz", "skip", note="--skip"), []
    profile = ctx.profile
    start = procs.time.monotonic()
    try:
        if ctx.foreign:
            cases = RANDOM_CASES[profile]
            ctx.progress(f"{cases} random cases" + (f" under {ctx.emulated}" if ctx.emulated else "")
                         + f" (no coverage-guided fuzzer for {ctx.foreign})")
            ran, found = run_random(ctx, cases)
            note = (f"random cases (not coverage-guided: no fuzzer runs on {ctx.foreign} here), "
                    f"{cases} from seed {FUZZ_SEED}" + ("; one in four next to the values it reads"
                                                        if fuzz_thresholds(ctx) else ""))
        else:
            engines = fuzz_engines(ctx)
            runs = {engine: FUZZ_RUNS[engine][profile] for engine in engines}
            seeds = threshold_seeds(ctx)
            said = " and ".join(f"{engine} {runs[engine]}" for engine in engines)
            ctx.progress(f"coverage-guided fuzzing, inputs from seed {FUZZ_SEED}: {said}")
            waits = []
            try:
                for engine in engines:
                    waits.append(run_fuzz_engine(ctx, engine, runs[engine], seeds))
                ran, found = 0, []
                for finish in waits:
                    execs, more = finish()
                    ran, found = ran + execs, found + more
            finally:
                for finish in waits:  # one that could not judge leaves none behind
                    procs.stop(finish.child)
            note = f"{said} inputs from seed {FUZZ_SEED}" + (
                "; seeded at the lengths next to the values it reads" if seeds else "")
    except CouldNotJudge as e:
        return cannot("fuzz", str(e), procs.time.monotonic() - start), []
    return Check("fuzz", "fail" if found else "pass", ran, procs.time.monotonic() - start, note), found


# --- speed -----------------------------------------------------------------------

SPEED_END = re.compile(r"# end: ([0-9]+) rows")


def speed_rows(tsv):
    """The rows of memgate speed --data as (variant, key, cycles), key =
    (cache, align, len). Fails closed: a row that does not parse, or a file
    without its closing "# end: N rows" line for exactly its N rows (cut
    short, or not memgate speed's), raises CouldNotJudge, since a row left
    out could be the one that is slower."""
    rows, end = [], None
    with open(tsv, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if end is not None:
                raise CouldNotJudge(f"{tsv}: line {number} follows the closing '# end' line")
            match = SPEED_END.fullmatch(line)
            if match:
                end = int(match.group(1))
                continue
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            try:
                cycles = float(fields[4]) if len(fields) >= 5 and fields[0] else None
            except ValueError:
                cycles = None
            if cycles is None or not math.isfinite(cycles) or cycles < 0:
                raise CouldNotJudge(f"{tsv}: line {number} is not a speed row: {line[:80]!r}")
            rows.append((fields[0], tuple(fields[1:4]), cycles))
    if end is None:
        raise CouldNotJudge(f"{tsv}: no closing '# end: N rows' line (cut short?)")
    if end != len(rows):
        raise CouldNotJudge(f"{tsv}: {len(rows)} rows, but its last line says {end}")
    return rows


def worst_ratio(tsv, name, incumbents=None):
    """The largest (ours / best incumbent) over every point (cache, align,
    len) that both measured. Raises CouldNotJudge when the data is damaged
    (see speed_rows), has no row of `name`, or, with incumbents named, no
    point where one of them was measured next to it."""
    ours, best = {}, {}
    for variant, key, cycles in speed_rows(tsv):
        if variant == name:
            ours[key] = cycles
        elif key not in best or cycles < best[key]:
            best[key] = cycles
    if not ours:
        raise CouldNotJudge(f"{tsv}: no row of {name}")
    shared = [k for k in ours if k in best]
    if incumbents and not shared:
        raise CouldNotJudge(f"{tsv}: no point where {name} and an incumbent were both measured")
    ratios = [ours[k] / best[k] for k in shared if best[k] > 0]
    return max(ratios) if ratios else 0.0


def run_bench(ctx):
    if not ctx.bench:
        return Check("bench", "skip", note="--no-bench"), []
    if ctx.skipped("bench"):
        return Check("bench", "skip", note="--skip"), []
    if ctx.emulated:
        return na("bench", f"memgate speed under {ctx.emulated} measures qemu, not the hardware"), []
    ctx.progress("speed against the incumbents")
    incumbents = ctx.incumbents()
    tsv = os.path.join(ctx.R, "speed.tsv")
    argv = [ctx.W + "/memgate", "speed", f"--variant={','.join([ctx.name] + incumbents)}", f"--data={tsv}"]
    try:
        result = launch(ctx, argv, os.path.join(ctx.R, "speed.txt"), os.path.join(ctx.R, "speed.log"), "memgate speed")
        ran_to_end(result, "memgate speed")
        if result.returncode != 0:
            raise CouldNotJudge(f"memgate speed exited with status {result.returncode}")
        worst = worst_ratio(tsv, ctx.name, incumbents)
    except (CouldNotJudge, OSError) as e:
        return cannot("bench", str(e)), []
    ctx.plot_speed(tsv, incumbents)
    note = f"vs {','.join(incumbents) or 'no incumbent'}"
    if ctx.max_slowdown is not None and worst > ctx.max_slowdown:
        note += f"; {worst:.2f} x the best incumbent at worst, over --max-slowdown {ctx.max_slowdown_text}"
        return Check("bench", "fail", 0, result.seconds, note), [{
            "check": "bench", "kind": "slowdown",
            "detail": f"up to {worst:.2f}x slower than the best incumbent (--max-slowdown {ctx.max_slowdown_text})",
            "input": "", "repro": f"{ctx.W}/memgate speed --variant={','.join([ctx.name] + incumbents)}",
            "signature": f"{ctx.name} slowdown"}]
    return Check("bench", "pass", 0, result.seconds, note), []


# The checks that run after memgate verify, each a program of its own:
# registry.STEPS names them and their order.
def without_warnings(run):
    """A step that raises no warnings, as the steps are called: (check,
    findings, warnings)."""
    return lambda ctx: run(ctx) + ([],)


# Each step's (check, findings, warnings): what gate_runs.run_checks adds
# up, in registry.STEPS's order.
STEP_RUNNERS = {"fuzz": without_warnings(run_fuzz), "valgrind": run_valgrind,
                "regressions": without_warnings(run_regressions), "bench": without_warnings(run_bench)}

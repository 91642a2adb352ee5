"""The gate's plan: before any check runs, what each required check needs
on this machine, from a short calibration on a correct routine of the
tree (measured once per memgate version and CPU, gate_cache.Calibration),
and either a division of --seconds that holds them all (the sweep's part
sized so that at least FLOOR of its cases run) or a refusal, exit 2, that
names the smallest --seconds that works here."""

import concurrent.futures
import glob
import hashlib
import json
import math
import os
import shutil
import tempfile
import threading
import time

from . import gate_cache, procs
from .gate_options import die, lighter

# The share of the sweep's cases below which the evidence is too thin to
# accept on: a budget that cannot run FLOOR of them is refused, and a
# sweep that ran less (the routine slower than the plan assumed) could not
# be judged.
FLOOR = 0.05
# The plan's measurements are of a fast, correct routine of the tree, on a
# machine others share: each need is MARGIN times what was measured.
MARGIN = 1.25
# As harness/run/verify.c: the sweep's passes after its sample take TAKE
# of the time left.
TAKE = 0.8
# The budget the sweep's calibration runs with (memgate verify
# --sweep-seconds): its own cases and a sample of the rest.
CALIBRATION_SWEEP = 2
# The fuzz engines' budgets tried in turn until one gets past its corpus.
FUZZ_TRIES = {"libfuzzer": (2, 4, 8), "afl": (1, 2, 4, 8)}
# libFuzzer starts at 2: with -fork it counts a job's inputs only when the
# job ends, and at --seconds 1 its first job had mostly not (0 inputs in 3
# of 4 tries here, idle to a load of 10). The calibration runs one fuzzer
# process (--jobs=1): the gate's, one per core, get past the corpus no
# later, and two would take a core from the other calibration programs.
CHECK_ORDER = ("sweep", "huge", "fuzz", "valgrind", "regressions", "bench")


class Plan:
    """One entry point's needs in one run of the checks: {check: seconds},
    and what the sweep's calibration measured (sweep_time)."""

    def __init__(self, needs, sweep_cal, fuzz_cal, bench_cal=None):
        self.needs = needs
        self.sweep_cal = sweep_cal
        self.fuzz_cal = fuzz_cal  # [(engine, least --seconds, seconds past it)]
        self.bench_cal = bench_cal  # (seconds of the incumbents' speed run, how many they are)

    def total(self):
        return sum(self.needs.values())

    def others(self):
        return sum(s for c, s in self.needs.items() if c != "sweep")

    def later(self, checks):
        return sum(self.needs.get(c, 0) for c in checks)

    def situations(self):
        """Seconds memgate verify spends after its sweep, on the situations
        (interrupted, in several threads): not the sweep's to fill."""
        return (self.sweep_cal or {}).get("situations", 0.0)

    def sweep_share(self, seconds):
        """The share of the sweep's cases `seconds` of sweep budget runs, as
        the calibration measured (1 when the sweep runs whole)."""
        return share_at(self.sweep_cal, seconds)


def sweep_time(cal, share):
    """Seconds for `share` of the sweep's cases: every length's own cases
    first, then the rest at the sample's measured rate."""
    own, own_share, rest = cal["own"], cal["own_share"], cal["rest"]
    if share <= own_share or own_share >= 1:
        return own
    return own + (share - own_share) / (1 - own_share) * rest / TAKE


def share_at(cal, seconds):
    own, own_share, rest = cal["own"], cal["own_share"], cal["rest"]
    if seconds <= own:
        return own_share
    if rest <= 0:
        return 1.0
    return min(1.0, own_share + (1 - own_share) * (seconds - own) * TAKE / rest)


def sweep_need(cal):
    """What memgate verify needs for FLOOR of the sweep's cases and the
    situations after it, each in whole seconds: its --sweep-seconds is a
    whole number (GateContext.sweep_stage_budget)."""
    situations = cal.get("situations", 0.0)
    return need(sweep_time(cal, FLOOR)) + (need(situations) if situations > 0 else 0)


def need(seconds):
    """A measured time as a planned one: MARGIN times it, whole seconds."""
    return max(1, math.ceil(seconds * MARGIN))


# The largest factors the probe (gate_probe) has measured natively, with
# room (docs/benchmarks.md, issue 24's second part): random cases 3.3x the
# calibration's routine's, large moves 8x (musl's backward memmove at 4
# MiB), a load of 2 gates at once and more. A plan that fits its budget
# grown by these needs no probe; under qemu the rate has no such bound
# (glibc's __memmove_sve: 26x), so an emulated run is always probed.
AMPLE = (4.0, 10.0, 2.0)


def adjusted(plan, rate=1.0, large=1.0, load=1.0):
    """The plan of the calibration's routine made the submission's
    (gate_probe): the sweep's figures `rate` times the calibration's, the
    4 GiB+ check's `large` times, and every need `load` times, but the fuzz
    engines' own --seconds (a budget of wall time, which a busy machine
    does not stretch; what the drivers take past it, it does)."""
    if rate == large == load == 1.0:
        return plan
    cal = plan.sweep_cal
    if cal:
        cal = dict(cal, own=cal["own"] * rate * load, rest=cal["rest"] * rate * load,
                   situations=cal.get("situations", 0.0) * rate * load)
        if cal.get("huge") is not None:
            cal["huge"] = cal["huge"] * large * load
    needs = {}
    for check, seconds in plan.needs.items():
        if check == "sweep" and cal:
            needs[check] = sweep_need(cal)
        elif check == "huge":
            needs[check] = need(cal["huge"]) if cal and cal.get("huge") is not None \
                else math.ceil(seconds * large * load)
        elif check == "bench" and plan.bench_cal:
            needs[check] = need(bench_time(plan.bench_cal, large) * load)
        elif check == "fuzz" and plan.fuzz_cal:
            needs[check] = sum(s for _, s, _ in plan.fuzz_cal) + need(sum(o for _, _, o in plan.fuzz_cal) * load)
        else:
            needs[check] = math.ceil(seconds * load)
    return Plan(needs, cal, plan.fuzz_cal, plan.bench_cal)


# --- calibration ------------------------------------------------------------------

def calibration_variant(ctx, op):
    """A correct routine of the tree's table for `op` that runs here: the
    C library's where the table has it (it is on every arch)."""
    rows = [r for r in ctx.table if len(r) >= 7 and r[1] == op and r[5] == "runs" and r[6] == "pass"
            and r[0] in ctx.main_set]
    for r in rows:
        if r[0] == f"{op}_libc":
            return r[0]
    return rows[0][0] if rows else None


# What a check is planned to need when its calibration fails (a tool that
# hangs or crashes, a resource limit): the check itself then runs and says
# what is wrong, could not judge if it cannot run. The sweep's plan is
# then the old fixed share (gate_context.SWEEP_SHARE).
FALLBACK = {"huge": 10, "valgrind": 4, "regressions": 2, "bench": 8}
FALLBACK_FUZZ = (2, 2.0)  # an engine's least --seconds, and what it takes past them
# No calibration program runs longer than this (seconds): one that does is
# a failed calibration. The sweep's and 4 GiB+ check's verify takes 5 to 45
# s here (idle to very busy); a replay or a fuzz driver's try a few.
CALIBRATION_TIMEOUT = {"verify": 120, "fuzz": 30, "replay": 20, "build": 600}
# Calibration programs run at once (each one process, or two: verify's
# sweep and 4 GiB+ check), in the order the plan asks for them.
CALIBRATION_WIDTH = 4
# A --seconds the checks cannot fit even at what the calibration has
# measured so far (and the least the rest can need) is refused once the
# gate has run this long (seconds since it started), or as soon as the
# calibration is done: the measurements still running are stopped (and
# not kept), and the refusal says its figure is a lower bound.
REFUSE_BY = 3.0


class Cancelled(Exception):
    """A calibration program stopped because the plan no longer needs it."""


def timed(argv, env, out, seconds, cancel=None):
    """(CPU seconds, wall seconds, Result) of one calibration program and
    the children it waited for (its own rusage, so that programs run at
    once are each timed alone); its output to `out`. Raises Cancelled when
    `cancel` (a threading.Event) is set while it runs."""
    t = time.monotonic()
    with open(out, "wb") as f, open(os.devnull, "wb") as null:
        child = procs.start(argv, stdout=f, stderr=null, env=env)
    cpu, timed_out, cancelled = 0.0, False, False
    try:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                child.returncode = os.waitstatus_to_exitcode(status)
                cpu = usage.ru_utime + usage.ru_stime
                break
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            if time.monotonic() - t > seconds:
                timed_out = True
                break
            time.sleep(0.02)
    finally:
        # A measurement no longer wanted is not waited for.
        procs.stop(child, grace=0.2 if cancelled else procs.GRACE_SECONDS)
    if cancelled:
        raise Cancelled()
    wall = time.monotonic() - t
    return cpu, wall, procs.Result(argv, child.returncode, timed_out, wall)


def records_of(path):
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


def measure_verify(ctx, variant, profile, huge, model, tmp, cancel=None):
    """The sweep's own cases, the rate of the rest and the 4 GiB+ check's
    time, from one memgate verify of `variant` within CALIBRATION_SWEEP."""
    env = dict(ctx.env, QEMU_CPU=model, MEMGATE_CPU_MODEL=model) if model else dict(ctx.env)
    budget = CALIBRATION_SWEEP
    for _ in range(3):
        out = os.path.join(tmp, "verify.jsonl")
        cpu, wall, result = timed(ctx.runner + [f"{ctx.B}/memgate", "verify", f"--variant={variant}",
                                                f"--profile={profile}", f"--huge={huge}", f"--sweep-seconds={budget}",
                                                "--expect=pass", f"--findings={tmp}/verify", "--format=jsonl"],
                                  env, out, CALIBRATION_TIMEOUT["verify"], cancel)
        recs = [r for r in records_of(out) if r.get("record") == "variant"]
        sweep = next((r for r in recs if r.get("stage") == "sweep"), None)
        big = next((r for r in recs if r.get("stage") == "huge"), None)
        if result.returncode != 0 or not sweep or sweep.get("status") != "pass" or (huge != "off" and not big) \
                or result.timed_out:
            return None
        # The situations run after the own cases, whole and off the
        # budget's clock (harness/run/verify.c): neither the own cases'
        # time nor the sample's, though the stage's seconds hold them.
        # Under qemu-riscv64 0.5 s of a 2 s share (its threads), natively
        # 0.8 s (interrupts 0.2, threads 0.6, memcpy_libc).
        situations = (sweep.get("interrupted_seconds") or 0) + (sweep.get("threads_seconds") or 0)
        cases, planned = sweep["cases"], sweep["planned"] or sweep["cases"]
        seconds = max(0.0, sweep["seconds"] - situations)
        own, own_cases = sweep.get("own_seconds", seconds), sweep.get("own_cases", cases)
        if cases >= planned:
            rest = max(0.0, seconds - own)
        elif cases > own_cases:
            rest = (seconds - own) * (planned - own_cases) / (cases - own_cases)
        elif seconds < budget / 2:
            # It stopped well within its budget, the sample too quick to
            # time: the rest at the own cases' rate (which cost more).
            rest = own * (planned - own_cases) / max(1, own_cases)
        else:
            # The own cases took it all (qemu, a busy machine): again, with room for the sample.
            budget = math.ceil(own * 1.5) + CALIBRATION_SWEEP
            continue
        # The sweep and the 4 GiB+ check time themselves by the clock, which
        # a busy machine stretches; what they cost is their CPU time. Both
        # are scaled by how much the clock ran ahead of it (two children at
        # once: their times' sum over the CPU time).
        stages = seconds + situations + ((big.get("seconds") or 0) if big else 0)
        stretch = max(1.0, stages / cpu) if cpu > 0 else 1.0
        cal = {"own": own / stretch, "own_share": own_cases / planned, "rest": rest / stretch,
               "situations": situations / stretch, "stretch": round(stretch, 2)}
        if big:
            cal["huge"] = (big.get("seconds") or 0) / stretch
        return cal
    return None


def fuzz_binaries(ctx, engine, family):
    """The tree's programs scripts/fuzz runs for `engine` on `family`."""
    return [f"{ctx.B}/replay", f"{ctx.B}/fuzz/{engine}/fuzz_{family}"]


def measure_fuzz(ctx, variant, engine, family, tmp, cancel=None, floor=None):
    """(least --seconds with which the engine got past its corpus and ran
    inputs, what the driver took past its --seconds). The tree's fuzz
    programs are built first, untimed (a fresh machine builds them once:
    that is no part of what a gate's fuzzing costs). After each try that
    did not get past the corpus, floor(seconds) says the least the next
    can be."""
    log = os.path.join(tmp, "build.log")
    _, _, built = timed(["make", "-s", "--no-print-directory"] + fuzz_binaries(ctx, engine, family), ctx.env, log,
                        CALIBRATION_TIMEOUT["build"], cancel)
    if built.returncode != 0 or built.timed_out:
        return None
    env = dict(ctx.env, MEMGATE_FUZZ_NO_BUILD="1")
    for seconds in FUZZ_TRIES[engine]:
        out_dir = os.path.join(tmp, f"fuzz-{engine}-{seconds}")
        _, wall, result = timed(["scripts/fuzz", f"--variant={variant}", f"--engine={engine}", f"--seconds={seconds}",
                                 "--jobs=1", f"--out={out_dir}"], env, os.path.join(tmp, "fuzz.log"), CALIBRATION_TIMEOUT["fuzz"],
                                cancel)
        ran = [r for r in records_of(os.path.join(out_dir, "summary.jsonl"))
               if r.get("record") == "engine" and r.get("status") == "ran"]
        if result.returncode == 0 and ran and not result.timed_out:
            return [seconds, max(0.0, wall - seconds)]
        if result.timed_out:
            return None
        if floor is not None:
            floor([min(seconds * 2, FALLBACK_FUZZ[0]), 0.0])
    return None


def measure_random(ctx, variant, tmp, cancel=None):
    _, wall, result = timed(ctx.runner + [f"{ctx.B}/random", f"--variant={variant}", "--seconds=1",
                                          f"--findings={tmp}/random", "--format=jsonl"],
                            ctx.env, os.path.join(tmp, "random.jsonl"), CALIBRATION_TIMEOUT["fuzz"], cancel)
    return [1, max(0.0, wall - 1)] if result.returncode == 0 and not result.timed_out else None


def measure_replay(ctx, argv, tmp, cancel=None):
    cpu, wall, result = timed(argv, ctx.env, os.path.join(tmp, "replay.jsonl"), CALIBRATION_TIMEOUT["replay"], cancel)
    return min(cpu, wall) if result.returncode == 0 and not result.timed_out else None


def identity(*paths):
    """A hash of what a measurement's rate depends on in the tree: the
    programs it runs and the inputs they read (files, or every file of a
    folder), so that a change elsewhere (a script, a document, a test)
    keeps it. Missing files count as missing."""
    h = hashlib.sha256()
    for top in paths:
        files = [top] if not os.path.isdir(top) else sorted(
            os.path.join(d, f) for d, _, names in os.walk(top) for f in names)
        for path in files:
            h.update(path.encode() + b"\0" + file_hash(path))
    return h.hexdigest()[:32]


_hashes = {}


def file_hash(path):
    """A file's SHA-256 (b"missing" if it cannot be read), once per
    version of it (its size and modification time)."""
    try:
        st = os.stat(path)
    except OSError:
        return b"missing"
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _hashes:
        try:
            with open(path, "rb") as f:
                _hashes[key] = hashlib.sha256(f.read()).digest()
        except OSError:
            return b"missing"
    return _hashes[key]


class Calibrator:
    """The measurements the plan asks for, each kept per machine
    (gate_cache.Calibration) under what its rate depends on (identity),
    and the ones missing taken at once, CALIBRATION_WIDTH at a time.

    get() answers at once: what is known, else the least the measurement
    can come to (its floor) while it is pending; plan() asks again as
    measurements come in, and refuses as soon as even the floors do not
    fit."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.store = gate_cache.Calibration(ctx)
        self.known = {}
        self.pending = {}  # name: (label, ident, measure)
        self.floors = {}
        self.running = {}  # name: Future
        self.asked = set()  # the names a plan asked for that are not known yet
        self.failed = []
        self.cancel = threading.Event()
        self.say = ctx.progress

    def get(self, what, measure, ident, floor=0):
        """`what` names the measurement (a tuple), `ident` its identity,
        `measure(tmp, cancel, floor)` takes it; floor: its least value."""
        name = json.dumps([self.ctx.arch] + list(what))
        label = " ".join(str(w) for w in what if w)
        if name in self.known:
            value = self.known[name]
            if value is None and label not in self.failed:
                self.failed.append(label)
            return value
        stored = self.store.value(name, ident() if callable(ident) else ident)
        if stored is not None:
            self.known[name] = stored
            return stored
        if name not in self.pending:
            self.pending[name] = (label, ident, measure)
            self.floors[name] = floor
        self.asked.add(name)
        return self.floors[name]

    def waiting(self):
        return bool(self.asked)

    def start(self, pool):
        """Starts what the plans asked for and is not running yet."""
        for name in [n for n in self.pending if n in self.asked and n not in self.running]:
            if len([f for f in self.running.values() if not f.done()]) >= CALIBRATION_WIDTH:
                break
            label, ident, measure = self.pending[name]
            self.running[name] = pool.submit(self._take, name, label, ident, measure)

    def _take(self, name, label, ident, measure):
        self.say(f"calibrating the plan: {label}")

        def floor(value):
            self.floors[name] = value
        with tempfile.TemporaryDirectory(prefix="memgate-plan-") as tmp:
            value = measure(tmp, self.cancel, floor)
        if value is not None:
            self.store.put(name, ident() if callable(ident) else ident, value)
        return value

    def collect(self, wait):
        """Waits up to `wait` seconds for a running measurement to end;
        takes in every one that has."""
        live = [f for f in self.running.values() if not f.done()]
        if live and wait > 0:
            concurrent.futures.wait(live, timeout=wait, return_when=concurrent.futures.FIRST_COMPLETED)
        for name, fut in list(self.running.items()):
            if fut.done():
                del self.running[name]
                try:
                    self.known[name] = fut.result()
                except Cancelled:
                    continue  # still pending: not measured
                except OSError:
                    self.known[name] = None  # a program that cannot start: the fallback
                del self.pending[name]

    def stop(self):
        """Stops what is still running (not kept): the plan has its answer."""
        self.cancel.set()
        for fut in list(self.running.values()):
            try:
                fut.result()
            except Exception:  # cancelled, or failing as it was stopped
                pass

    def unmeasured(self):
        return [self.pending[n][0] for n in sorted(self.asked) if n in self.pending]


# --- needs ------------------------------------------------------------------------

def fuzz_engines(ctx):
    if ctx.foreign:
        return ["random"]
    engines = ["libfuzzer"]
    if shutil.which("afl-fuzz", path=ctx.env.get("PATH")) and shutil.which("afl-clang-fast"):
        engines.append("afl")
    return engines


# The least a measurement can come to, while it is pending: what makes
# the least need (need() of nothing is 1 s).
VERIFY_FLOOR = {"own": 0.0, "own_share": 0.0, "rest": 0.0, "huge": 0.0, "situations": 0.0}
VERIFY_RECORD = "+situations-apart"


def needs_of(ctx, cal, entry, primary, model):
    """Plan of one entry point in one run (primary: the first CPU model of
    a build, which runs every check)."""
    from .checks import VALGRIND_HIDES
    op, family = entry["op"], entry["family"]
    variant = calibration_variant(ctx, op)
    if variant is None:
        die(f"the plan has no correct {op} of the tree to calibrate with (see {ctx.B}/memgate list)")
    profile = ctx.profile if primary else lighter(ctx.profile, "quick")
    huge_applies = (family not in ("page", "usercopy") and (ctx.arch != "i386" or op == "memmove")
                    and not getattr(ctx, "huge_elsewhere", ""))
    huge = "off" if ctx.skipped("huge") or not huge_applies else ("oracle" if ctx.emulated else "on")
    # VERIFY_RECORD: what measure_verify keeps, so that a calibration
    # kept before the situations ran off the sweep's clock is taken again.
    memgate = identity(f"{ctx.B}/memgate") + VERIFY_RECORD
    needs = {}
    sweep = cal.get(("verify", op, profile, huge, model),
                    lambda tmp, cancel, _: measure_verify(ctx, variant, profile, huge, model, tmp, cancel),
                    memgate, VERIFY_FLOOR)
    if sweep is None and huge != "off":
        # The 4 GiB+ check may be what cannot run here (ulimit -v): the
        # sweep's own calibration, and the fallback for it.
        sweep = cal.get(("verify", op, profile, "off", model),
                        lambda tmp, cancel, _: measure_verify(ctx, variant, profile, "off", model, tmp, cancel),
                        memgate, VERIFY_FLOOR)
        if sweep is not None:
            sweep = dict(sweep, huge=None)
    needs["sweep"] = sweep_need(sweep) if sweep else 1
    if huge != "off":
        needs["huge"] = need(sweep["huge"]) if sweep and sweep.get("huge") is not None else FALLBACK["huge"]
    fuzz = []
    if primary and not ctx.skipped("fuzz"):
        for engine in fuzz_engines(ctx):
            if engine == "random":
                got = cal.get(("random", op, model), lambda tmp, cancel, _: measure_random(ctx, variant, tmp, cancel),
                              identity(f"{ctx.B}/random"), [1, 0.0])
            else:
                tool = shutil.which("afl-fuzz" if engine == "afl" else "clang") or ""
                # What the driver costs: its programs, its corpus and its own code.
                ident = lambda e=engine: identity(*fuzz_binaries(ctx, e, family), f"corpus/{family}", "scripts/fuzz",
                                                  *sorted(glob.glob("scripts/orchestration/fuzz*.py")))
                got = cal.get(("fuzz", engine, family, tool),
                              lambda tmp, cancel, floor, e=engine: measure_fuzz(ctx, variant, e, family, tmp, cancel,
                                                                                floor),
                              ident, [FUZZ_TRIES[engine][0], 0.0])
            got = got or FALLBACK_FUZZ
            fuzz.append((engine, math.ceil(got[0] * MARGIN), got[1]))
        needs["fuzz"] = sum(s for _, s, _ in fuzz) + need(sum(o for _, _, o in fuzz))
    hidden = [f for f in ctx.requires if f in VALGRIND_HIDES]
    valgrind = shutil.which("valgrind", path=ctx.env.get("PATH"))
    replay = f"{ctx.B}/replay"
    # The user copies: n/a under valgrind (checks.run_valgrind, docs/usercopy.md).
    if primary and not ctx.skipped("valgrind") and not ctx.foreign and not hidden and valgrind \
            and family != "usercopy":
        from .checks import VALGRIND
        argv = [valgrind] + VALGRIND[1:] + [replay, "--in-process", f"--variant={variant}",
                                            "--format=jsonl", f"corpus/{family}", f"corpus/regressions/{family}"]
        got = cal.get(("valgrind", family, valgrind), lambda tmp, cancel, _, a=argv: measure_replay(ctx, a, tmp, cancel),
                      identity(replay, f"corpus/{family}", f"corpus/regressions/{family}"))
        needs["valgrind"] = need(got) if got is not None else FALLBACK["valgrind"]
    if not ctx.skipped("regressions"):
        argv = ctx.runner + [replay, f"--variant={variant}", "--format=jsonl", f"corpus/regressions/{family}"]
        got = cal.get(("regressions", family, model), lambda tmp, cancel, _, a=argv: measure_replay(ctx, a, tmp, cancel),
                      identity(replay, f"corpus/regressions/{family}"))
        needs["regressions"] = need(got) if got is not None else FALLBACK["regressions"]
    bench = None
    if primary and ctx.bench and not ctx.skipped("bench") and not ctx.emulated:
        incumbents = [r[0] for r in ctx.table if len(r) >= 7 and r[1] == op and r[5] == "runs"
                      and r[6] == "pass" and r[0] in ctx.main_set]
        argv = ctx.runner + [f"{ctx.B}/memgate", "speed", f"--variant={','.join(incumbents)}"]
        got = cal.get(("bench", op),
                      lambda tmp, cancel, _, a=argv: measure_replay(ctx, a + [f"--data={tmp}/speed.tsv"], tmp, cancel),
                      memgate)
        # The gate's bench times the submission too: one variant more, as
        # fast as the incumbents' average until the probe says (adjusted).
        bench = (got, len(incumbents)) if got is not None and incumbents else None
        needs["bench"] = need(bench_time(bench)) if bench else FALLBACK["bench"]
    return Plan(needs, sweep, fuzz, bench)


def bench_time(bench, large=1.0):
    """The bench's time: the incumbents' as measured and the submission's,
    `large` times an incumbent's average."""
    seconds, count = bench
    return seconds * (count + large) / count


# --- the budget -------------------------------------------------------------------

def plans_of(ctx, runs, cal=None):
    """{(run index, entry name): Plan} for every run of the checks, from
    what `cal` knows (floors for what it is still measuring)."""
    cal = cal or Calibrator(ctx)
    cal.asked = set()
    cal.failed = []
    plans, built = {}, None
    # Every CPU model costs about what the first does under the same qemu:
    # it is the one calibrated, so a plan of three models measures once.
    first = runs[0][0]
    for index, (_, externs) in enumerate(runs):
        primary = built != externs and getattr(externs, "full", True)  # gate_runs.run_all's rule
        built = externs
        from .gate_runs import further_set
        ctx.huge_elsewhere = further_set(externs)
        for entry in ctx.entries:
            plans[(index, entry["name"])] = needs_of(ctx, cal, entry, primary, first)
        ctx.huge_elsewhere = ""
    return plans


def least_total(fits, start):
    """The smallest total for which fits(total) holds (it is monotone)."""
    high = max(1, start)
    while not fits(high):
        high *= 2
        if high > 10**7:
            die("the plan found no --seconds that holds the required checks")
    low = 0
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid, high)
    return high


def breakdown(plans):
    sums = {}
    for plan in plans.values():
        for check, seconds in plan.needs.items():
            sums[check] = sums.get(check, 0) + seconds
    return ", ".join(f"{c} {sums[c]}" for c in CHECK_ORDER if c in sums)


def divided(ctx, runs):
    """'; divided over 3 CPU models, 2 entry points', or '' (gate_runs.share_of)."""
    parts = [(len({tuple(e) for _, e in runs}), "sets of --extern values"), (len({m for m, _ in runs}), "CPU models"),
             (len(ctx.entries), "entry points")]
    how = [f"{n} {what}" for n, what in parts if n > 1]
    return f"; divided over {', '.join(how)}" if how else ""


def calibrated(ctx, runs, fits, total, early, cal=None):
    """The plans, calibrating what this machine has not measured yet (in
    parallel, under the calibration's lock). With `early`, a total that
    even the floors of what is still pending do not fit is given up on at
    REFUSE_BY: (plans, the labels not measured, empty when exact)."""
    t = time.monotonic()
    cal = cal or Calibrator(ctx)
    plans = plans_of(ctx, runs, cal)
    missing = []
    if cal.waiting():
        # What another gate may have measured while this one waited for the lock.
        with cal.store.locked():
            plans = plans_of(ctx, runs, cal)
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=CALIBRATION_WIDTH)
            try:
                while cal.waiting() and not cal.cancel.is_set():
                    cal.start(pool)
                    short = early and not fits(total, plans)
                    if short and ctx.elapsed() >= REFUSE_BY:
                        break
                    cal.collect(max(0.05, REFUSE_BY - ctx.elapsed()) if short else 1.0)
                    plans = plans_of(ctx, runs, cal)
            finally:
                cal.stop()
                pool.shutdown(wait=True)
            # What ended as it was stopped counts too.
            cal.collect(0)
            plans = plans_of(ctx, runs, cal)
            missing = cal.unmeasured()
            cal.store.save()
    ctx.calibration_seconds = time.monotonic() - t
    if cal.failed:
        cal.say(f"the plan could not calibrate {'; '.join(dict.fromkeys(cal.failed))} here: it assumes "
                     "the fallbacks of docs/gate.md for them, and the checks say what is wrong")
    return plans, missing


class Planner:
    """The plan, calibrated in a thread of its own from start() on (beside
    the compile step and the build-time rules, which need none of it);
    plan() waits for it and refuses or keeps the budget, abandon() stops
    it (the build failed, or the verdict is cached)."""

    def __init__(self, ctx, runs, split, probe=None):
        self.ctx, self.runs, self.split = ctx, runs, split
        # probe(ctx, runs, wants_huge): the submission's gate_probe.Probe,
        # once it is compiled (gate_probe.measure), or None: the plan is
        # the calibration's routine's.
        self.probe = probe
        self.cal = Calibrator(ctx)
        self.thread = None
        self.outcome = None
        # What the calibration says while the build runs is held until the
        # plan is asked for: a build error or a broken rule stays one line.
        self.held, self.guard = [], threading.Lock()
        self.cal.say = self.say
        self.runs_changed = False

    def say(self, stage):
        with self.guard:
            if self.held is not None:
                self.held.append(stage)
                return
        self.ctx.progress(stage)

    def release(self):
        with self.guard:
            held, self.held = self.held or [], None
        for stage in held:
            self.ctx.progress(stage)

    def fits(self, total, plans):
        return all(self.split(total, self.runs[i][0], self.runs[i][1]) >= p.total() for (i, _), p in plans.items())

    def start(self):
        ctx = self.ctx

        def run():
            try:
                early = ctx.opts.get("seconds_given", True) and not ctx.opts.get("seconds_least") \
                    and not ctx.opts.get("seconds_raise")
                self.outcome = calibrated(ctx, self.runs, self.fits, ctx.opts["seconds"], early, self.cal)
            except BaseException as e:  # raised again in plan()
                self.outcome = e
        self.thread = threading.Thread(target=run, name="gate-plan", daemon=True)
        self.thread.start()
        return self

    def within_budget(self, plans):
        """A --seconds given that cannot hold every value set (the plan, or
        MIN_FURTHER_SECONDS per further set and entry) keeps the budget:
        the last sets (the cover's order: boundary sets first, then
        the produced ones it chose last) are left out, never the first,
        each named with the reason (ctx.left_out)."""
        from .gate_tunables import MIN_FURTHER_SECONDS
        ctx = self.ctx
        given = ctx.opts.get("seconds_given", True) and not ctx.opts.get("seconds_least")
        ctx.left_out = []

        def starved():
            # A further set's part below what its quick sweep and situations
            # take on a busy machine: it could only end as could not judge.
            model, externs = self.runs[-1]
            return self.split(ctx.opts["seconds"], model, externs) < MIN_FURTHER_SECONDS
        while given and len(self.runs) > 1 and (not self.fits(ctx.opts["seconds"], plans) or starved()):
            kinds = [getattr(e, "kind", "") for _, e in self.runs]
            index = max(i for i, k in enumerate(kinds) if k == "boundary") if "boundary" in kinds[1:] else len(kinds) - 1
            ctx.left_out.append(self.runs.pop(index)[1])
            plans = plans_of(ctx, self.runs, self.cal)
        return plans

    def abandon(self):
        self.cal.cancel.set()
        if self.thread is not None:
            self.thread.join()

    def plan(self):
        if self.thread is None:
            self.start()
        self.release()
        self.thread.join()
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        plans, missing = self.outcome
        ctx = self.ctx
        if self.runs_changed:
            # The runs were chosen after the build (gate_tunables): planned
            # again, calibrating what their checks need and was not measured.
            plans, missing = calibrated(ctx, self.runs, self.fits, ctx.opts["seconds"], False, self.cal)
            plans = self.within_budget(plans)
        given = ctx.opts.get("seconds_given", True) and not ctx.opts.get("seconds_least") \
            and not ctx.opts.get("seconds_raise")
        # A --seconds the calibration's routine does not fit is refused at
        # once: the submission's figures can only be larger. One it fits
        # even at the most the probe has measured natively is kept without
        # probing (the probe is 2.5 CPU s a gate).
        if self.probe is not None and not (given and not self.fits(ctx.opts["seconds"], plans)) \
                and not (not ctx.opts.get("seconds_least") and self.ample(ctx.opts["seconds"], plans)):
            plans = self.probed(plans)
        return decide(ctx, self.runs, self.fits, plans, missing)

    def ample(self, total, plans):
        """Whether a native run's plans fit `total` even with the factors
        grown to AMPLE's: then no measurement could refuse it."""
        if self.ctx.emulated:
            return False
        rate, large, load = AMPLE
        return self.fits(total, {k: adjusted(p, rate, large, load) for k, p in plans.items()})

    def probed(self, plans):
        """The plans made the submission's and this machine's now (gate_probe)."""
        ctx = self.ctx

        def wants_huge(e):
            return not ctx.skipped("huge") and e["family"] not in ("page", "usercopy") \
                and (ctx.arch != "i386" or e["op"] == "memmove")
        probe = self.probe(ctx, self.runs, wants_huge)
        out = {(i, name): adjusted(p, probe.rate_of(self.runs[i][0], name), probe.large_of(name), probe.load)
               for (i, name), p in plans.items()}
        ctx.plan_note = probe.summary(ctx)
        if ctx.plan_note:
            ctx.progress(f"the plan, for this submission and this machine now: {ctx.plan_note}")
        if probe.notes:
            ctx.progress(f"the plan could not measure {', '.join(probe.notes)}: it counts the calibration's "
                         "figures for them")
        return out


def decide(ctx, runs, fits, plans, missing=()):
    """Refuses a --seconds that cannot hold the required checks (Usage,
    exit 2), raises a default that cannot, sets --seconds least to the
    least that can, and keeps each run's Plan (ctx.plans) for the budgets
    of its checks."""
    total = ctx.opts["seconds"]
    least = least_total(lambda n: fits(n, plans), total)
    if ctx.opts.get("seconds_least"):
        ctx.opts["seconds"] = ctx.seconds = least
        ctx.progress(f"--seconds least is {least} s: the required checks need that here ({breakdown(plans)})")
    elif not fits(total, plans):
        if ctx.opts.get("seconds_given", True) and not ctx.opts.get("seconds_raise"):
            per = divided(ctx, runs)
            bound = (f"; a lower bound: {', '.join(missing)} not calibrated yet (what was is kept: run it again "
                     f"for the whole figure)") if missing else ""
            probed = f"; as measured for it here now: {ctx.plan_note}" if getattr(ctx, "plan_note", "") else ""
            die(f"--seconds {total} is too small here: the required checks need at least {least} s "
                f"({breakdown(plans)}{per}), with the sweep at {FLOOR:.0%} of its cases or more{bound}{probed}")
        ctx.opts["seconds"] = ctx.seconds = least
        ctx.raised_from = total
        budget = f"--seconds {total}+" if ctx.opts.get("seconds_raise") else "the default budget"
        ctx.progress(f"{budget} is raised to {least} s: the required checks need that here "
                     f"({breakdown(plans)})")
    ctx.plans = plans
    ctx.least_seconds = least
    return plans


def plan(ctx, runs, split):
    """Plans the run at once (Planner, without the overlap with the build).
    split(total, model, externs) is a run's share per entry point of a total."""
    return Planner(ctx, runs, split).plan()

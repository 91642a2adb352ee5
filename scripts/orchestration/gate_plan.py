"""The gate's plan: before any check runs, what each required check needs
on this machine, from a short calibration on a correct routine of the
tree (measured once per memgate version and CPU, gate_cache.Calibration),
and either a division of --seconds that holds them all (the sweep's part
sized so that at least FLOOR of its cases run) or a refusal, exit 2, that
names the smallest --seconds that works here."""

import json
import math
import os
import resource
import shutil
import tempfile
import time

from . import gate_cache, procs
from .gate_options import die

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
FUZZ_TRIES = (1, 2, 4, 8)
CHECK_ORDER = ("sweep", "huge", "fuzz", "valgrind", "regressions", "bench")


class Plan:
    """One entry point's needs in one run of the checks: {check: seconds},
    and what the sweep's calibration measured (sweep_time)."""

    def __init__(self, needs, sweep_cal, fuzz_cal):
        self.needs = needs
        self.sweep_cal = sweep_cal
        self.fuzz_cal = fuzz_cal  # [(engine, least --seconds, seconds past it)]

    def total(self):
        return sum(self.needs.values())

    def others(self):
        return sum(s for c, s in self.needs.items() if c != "sweep")

    def later(self, checks):
        return sum(self.needs.get(c, 0) for c in checks)

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


def need(seconds):
    """A measured time as a planned one: MARGIN times it, whole seconds."""
    return max(1, math.ceil(seconds * MARGIN))


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
CALIBRATION_TIMEOUT = {"verify": 120, "fuzz": 30, "replay": 20}


def timed(argv, env, out, seconds):
    """(CPU seconds, wall seconds, Result) of one calibration program and
    its children; its output to `out`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    with open(out, "wb") as f, open(os.devnull, "wb") as null:
        result = procs.run(argv, stdout=f, stderr=null, env=env, timeout=seconds)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, result


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


def measure_verify(ctx, variant, profile, huge, model, tmp):
    """The sweep's own cases, the rate of the rest and the 4 GiB+ check's
    time, from one memgate verify of `variant` within CALIBRATION_SWEEP."""
    env = dict(ctx.env, QEMU_CPU=model, MEMGATE_CPU_MODEL=model) if model else dict(ctx.env)
    budget = CALIBRATION_SWEEP
    for _ in range(3):
        out = os.path.join(tmp, "verify.jsonl")
        cpu, wall, result = timed(ctx.runner + [f"{ctx.B}/memgate", "verify", f"--variant={variant}",
                                           f"--profile={profile}", f"--huge={huge}", f"--sweep-seconds={budget}",
                                           "--expect=pass", f"--findings={tmp}/verify", "--format=jsonl"],
                             env, out, CALIBRATION_TIMEOUT["verify"])
        recs = [r for r in records_of(out) if r.get("record") == "variant"]
        sweep = next((r for r in recs if r.get("stage") == "sweep"), None)
        big = next((r for r in recs if r.get("stage") == "huge"), None)
        if result.returncode != 0 or not sweep or sweep.get("status") != "pass" or (huge != "off" and not big) \
                or result.timed_out:
            return None
        cases, planned, seconds = sweep["cases"], sweep["planned"] or sweep["cases"], sweep["seconds"]
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
        stages = seconds + ((big.get("seconds") or 0) if big else 0)
        stretch = max(1.0, stages / cpu) if cpu > 0 else 1.0
        cal = {"own": own / stretch, "own_share": own_cases / planned, "rest": rest / stretch,
               "stretch": round(stretch, 2)}
        if big:
            cal["huge"] = (big.get("seconds") or 0) / stretch
        return cal
    return None


def measure_fuzz(ctx, variant, engine, tmp):
    """(least --seconds with which the engine got past its corpus and ran
    inputs, what the driver took past its --seconds)."""
    for seconds in FUZZ_TRIES:
        out_dir = os.path.join(tmp, f"fuzz-{engine}-{seconds}")
        _, wall, result = timed(["scripts/fuzz", f"--variant={variant}", f"--engine={engine}", f"--seconds={seconds}",
                              f"--out={out_dir}"], ctx.env, os.path.join(tmp, "fuzz.log"), CALIBRATION_TIMEOUT["fuzz"])
        ran = [r for r in records_of(os.path.join(out_dir, "summary.jsonl"))
               if r.get("record") == "engine" and r.get("status") == "ran"]
        if result.returncode == 0 and ran and not result.timed_out:
            return [seconds, max(0.0, wall - seconds)]
        if result.timed_out:
            return None
    return None


def measure_random(ctx, variant, tmp):
    _, wall, result = timed(ctx.runner + [f"{ctx.B}/random", f"--variant={variant}", "--seconds=1",
                                       f"--findings={tmp}/random", "--format=jsonl"],
                         ctx.env, os.path.join(tmp, "random.jsonl"), CALIBRATION_TIMEOUT["fuzz"])
    return [1, max(0.0, wall - 1)] if result.returncode == 0 and not result.timed_out else None


def measure_replay(ctx, argv, tmp):
    cpu, wall, result = timed(argv, ctx.env, os.path.join(tmp, "replay.jsonl"), CALIBRATION_TIMEOUT["replay"])
    return min(cpu, wall) if result.returncode == 0 and not result.timed_out else None


class Calibrator:
    """The measurements the plan asks for, each taken once per memgate
    version and CPU (gate_cache.Calibration) and timed when it was."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.store = gate_cache.Calibration(ctx)
        self.took = 0.0
        self.failed = []

    def get(self, what, measure):
        t = time.monotonic()

        def fresh():
            self.ctx.progress(f"calibrating the plan: {' '.join(str(w) for w in what if w)}")
            with tempfile.TemporaryDirectory(prefix="memgate-plan-") as tmp:
                return measure(tmp)
        value = self.store.get([self.ctx.arch] + list(what), fresh)
        self.took += time.monotonic() - t
        if value is None:
            self.failed.append(" ".join(str(w) for w in what if w))
        return value


# --- needs ------------------------------------------------------------------------

def fuzz_engines(ctx):
    if ctx.foreign:
        return ["random"]
    engines = ["libfuzzer"]
    if shutil.which("afl-fuzz", path=ctx.env.get("PATH")) and shutil.which("afl-clang-fast"):
        engines.append("afl")
    return engines


def needs_of(ctx, cal, entry, primary, model):
    """Plan of one entry point in one run (primary: the first CPU model of
    a build, which runs every check)."""
    from .checks import VALGRIND_HIDES
    op, family = entry["op"], entry["family"]
    variant = calibration_variant(ctx, op)
    if variant is None:
        die(f"the plan has no correct {op} of the tree to calibrate with (see {ctx.B}/memgate list)")
    profile = "quick" if ctx.quick or not primary else "full"
    huge_applies = family not in ("page", "usercopy") and (ctx.arch != "i386" or op == "memmove")
    huge = "off" if ctx.skipped("huge") or not huge_applies else ("oracle" if ctx.emulated else "on")
    needs = {}
    sweep = cal.get(("verify", op, profile, huge, model),
                    lambda tmp: measure_verify(ctx, variant, profile, huge, model, tmp))
    if sweep is None and huge != "off":
        # The 4 GiB+ check may be what cannot run here (ulimit -v): the
        # sweep's own calibration, and the fallback for it.
        sweep = cal.get(("verify", op, profile, "off", model),
                        lambda tmp: measure_verify(ctx, variant, profile, "off", model, tmp))
        if sweep is not None:
            sweep = dict(sweep, huge=None)
    needs["sweep"] = need(sweep_time(sweep, FLOOR)) if sweep else 1
    if huge != "off":
        needs["huge"] = need(sweep["huge"]) if sweep and sweep.get("huge") is not None else FALLBACK["huge"]
    fuzz = []
    if primary and not ctx.skipped("fuzz"):
        for engine in fuzz_engines(ctx):
            if engine == "random":
                got = cal.get(("random", op, model), lambda tmp: measure_random(ctx, variant, tmp))
            else:
                tool = shutil.which("afl-fuzz" if engine == "afl" else "clang") or ""
                got = cal.get(("fuzz", engine, family, tool),
                              lambda tmp, e=engine: measure_fuzz(ctx, variant, e, tmp))
            got = got or FALLBACK_FUZZ
            fuzz.append((engine, math.ceil(got[0] * MARGIN), got[1]))
        needs["fuzz"] = sum(s for _, s, _ in fuzz) + need(sum(o for _, _, o in fuzz))
    hidden = [f for f in ctx.requires if f in VALGRIND_HIDES]
    valgrind = shutil.which("valgrind", path=ctx.env.get("PATH"))
    # The user copies: n/a under valgrind (checks.run_valgrind, docs/usercopy.md).
    if primary and not ctx.skipped("valgrind") and not ctx.foreign and not hidden and valgrind \
            and family != "usercopy":
        from .checks import VALGRIND
        argv = [valgrind] + VALGRIND[1:] + [f"{ctx.B}/replay", "--in-process", f"--variant={variant}",
                                            "--format=jsonl", f"corpus/{family}", f"corpus/regressions/{family}"]
        got = cal.get(("valgrind", family, valgrind), lambda tmp: measure_replay(ctx, argv, tmp))
        needs["valgrind"] = need(got) if got is not None else FALLBACK["valgrind"]
    if not ctx.skipped("regressions"):
        argv = ctx.runner + [f"{ctx.B}/replay", f"--variant={variant}", "--format=jsonl",
                             f"corpus/regressions/{family}"]
        got = cal.get(("regressions", family, model), lambda tmp: measure_replay(ctx, argv, tmp))
        needs["regressions"] = need(got) if got is not None else FALLBACK["regressions"]
    if primary and ctx.bench and not ctx.skipped("bench") and not ctx.emulated:
        incumbents = [r[0] for r in ctx.table if len(r) >= 7 and r[1] == op and r[5] == "runs"
                      and r[6] == "pass" and r[0] in ctx.main_set]
        argv = ctx.runner + [f"{ctx.B}/memgate", "speed", f"--variant={','.join(incumbents)}"]
        got = cal.get(("bench", op), lambda tmp: measure_replay(ctx, argv + [f"--data={tmp}/speed.tsv"], tmp))
        needs["bench"] = need(got) if got is not None else FALLBACK["bench"]
    return Plan(needs, sweep, fuzz)


# --- the budget -------------------------------------------------------------------

def plans_of(ctx, runs):
    """{(run index, entry name): Plan} for every run of the checks."""
    cal = Calibrator(ctx)
    plans, built = {}, None
    # Every CPU model costs about what the first does under the same qemu:
    # it is the one calibrated, so a plan of three models measures once.
    first = runs[0][0]
    for index, (_, externs) in enumerate(runs):
        primary = built != externs
        built = externs
        for entry in ctx.entries:
            plans[(index, entry["name"])] = needs_of(ctx, cal, entry, primary, first)
    ctx.calibration_seconds = cal.took
    if cal.failed:
        ctx.progress(f"the plan could not calibrate {'; '.join(dict.fromkeys(cal.failed))} here: it assumes "
                     "the fallbacks of docs/gate.md for them, and the checks say what is wrong")
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


def plan(ctx, runs, split):
    """Plans the run: refuses a --seconds that cannot hold the required
    checks (Usage, exit 2), raises a default that cannot, and keeps each
    run's Plan (ctx.plans) for the budgets of its checks. split(total,
    model, externs) is a run's share per entry point of a total."""
    plans = plans_of(ctx, runs)

    def fits(total):
        return all(split(total, runs[i][0], runs[i][1]) >= p.total() for (i, _), p in plans.items())

    total = ctx.opts["seconds"]
    least = least_total(fits, total)
    if not fits(total):
        if ctx.opts.get("seconds_given", True):
            per = divided(ctx, runs)
            die(f"--seconds {total} is too small here: the required checks need at least {least} s "
                f"({breakdown(plans)}{per}), with the sweep at {FLOOR:.0%} of its cases or more")
        ctx.opts["seconds"] = ctx.seconds = least
        ctx.progress(f"the default budget is raised to {least} s: the required checks need that here "
                     f"({breakdown(plans)})")
    ctx.plans = plans
    ctx.least_seconds = least
    return plans

"""The plan's look at the submission itself, once it is compiled and
before any check runs (gate_plan.Planner.plan): the calibration measured
a fast routine of the tree (gate_plan.calibration_variant), on this
machine as it was then. Three short measurements say how far this
submission and this machine now differ from that:

- its cases' rate: random cases of the submission and of the calibration's
  routine for one second each, at once, under every CPU model the checks
  will run under, counted per CPU second (MIN_CPU); the calibration's
  routine's rate over the submission's scales the sweep's need (glibc's
  __memmove_sve under qemu ran 19108 cases in 27 s where __memcpy_sve ran
  508694 in 32 s);
- its large moves: memgate speed of both at 4 MiB, every placement the
  bench has (separate buffers, each direction of overlap), the hot rows: what the
  submission's moves take over the routine's scales the 4 GiB+ check's
  need (musl's backward move, `std; rep movsq`, takes eight times the C
  library's at 4 MiB);
- the machine's load: the share of a core that a busy program gets now;
  below LOADED_SHARE (what a program gets with two gates at once on 2
  cores, the condition the calibration's CPU times are planned for) every
  need grows by the ratio.

Each factor is at least 1 (the calibration's routine is fast, and the
checks' own work does not shrink with a faster routine); a measurement
that fails counts 1 (the check itself then says what is wrong), and so
does a submission whose random cases found something (it is rejected on
its findings, never refused for being slow)."""

import concurrent.futures
import math
import os
import sys
import tempfile

from . import gate_build, gate_plan, records

# A program's share of a core with two gates at once on 2 cores: the two
# programs of each gate's memgate verify (the sweep and the 4 GiB+ check)
# and this one, three on two cores. The calibration's CPU times are the
# wall times of that; a busier machine stretches them by LOADED_SHARE
# over what a program gets.
LOADED_SHARE = 2 / 3
# How long the busy program measures the load, and each random run.
LOAD_SECONDS = 0.5
RATE_SECONDS = 1
# The placement the 4 GiB+ check is like: large buffers, every direction.
LARGE_MOVE = "4M"
# Best of this many rounds per figure (under qemu, where each costs more,
# LARGE_ROUNDS_EMULATED): at 16 MiB and 3 rounds the same routine's sum
# came out 1.0x, 1.8x, 2.7x and 4.2x the C library's at a load of 5 to 7
# (a move of milliseconds shares its core with other programs, and the
# cold rows flush the cache); at 4 MiB and 5 rounds 2.0x three times in
# three at a load of 7.6, in a second.
LARGE_ROUNDS = 5
LARGE_ROUNDS_EMULATED = 2
# The random runs' rate is cases per CPU second (their own and their
# children's), not per wall second: on a busy machine one of two runs
# started at once can wait most of its second for a core (a byte loop
# measured 133x slower than the C library at a load of 12, 3x at 5). A
# run that got less CPU than this measured nothing.
MIN_CPU = 0.05
# A probe program that runs past this (qemu on a far busier machine) is a
# failed measurement: it counts 1.
PROBE_TIMEOUT = 30


class Probe:
    """What was measured: per (CPU model, entry name) the rate factor, per
    entry name the large-move factor, and the load factor; `notes` says
    what failed."""

    def __init__(self):
        self.rate, self.large, self.load, self.share, self.notes = {}, {}, 1.0, None, []

    def rate_of(self, model, name):
        return self.rate.get((model, name), 1.0)

    def large_of(self, name):
        return self.large.get(name, 1.0)

    def summary(self, ctx):
        """One line of what the plan counts beyond the calibration, or ''."""
        parts = []
        for e in ctx.entries:
            base = gate_plan.calibration_variant(ctx, e["op"]) or "the calibration's routine"
            rate = max([v for (_, n), v in self.rate.items() if n == e["name"]] or [1.0])
            if rate > 1:
                parts.append(f"{e['name']}'s cases run {rate:g}x slower than {base}'s")
            if self.large_of(e["name"]) > 1:
                parts.append(f"its {LARGE_MOVE} moves {self.large_of(e['name']):g}x slower")
        if self.load > 1:
            parts.append(f"a program gets {self.share:.0%} of a core now, so every need is "
                         f"{self.load:g}x its CPU time")
        return "; ".join(parts)


def factor(more, less):
    """How many times longer the submission's work takes, as `more` over
    `less` (the routine's cases over the submission's in the same time, or
    the submission's time over the routine's for the same moves): at least
    1, to one decimal, rounded up."""
    if not more or not less or more <= less:
        return 1.0
    return math.ceil(more / less * 10) / 10


def load_factor(share):
    """The needs' stretch at a program's `share` of a core (LOADED_SHARE
    or more: 1), to one decimal, rounded up."""
    if share <= 0 or share >= LOADED_SHARE:
        return 1.0
    return math.ceil(LOADED_SHARE / share * 10) / 10


def large_moves(tsv, name, base):
    """(submission's, routine's) summed time over the rows of memgate
    speed's data file, or None when it is not whole."""
    sums = {name: 0.0, base: 0.0}
    try:
        with open(tsv, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or not lines[-1].startswith("# end:"):
        return None
    for line in lines:
        cols = line.split("\t")
        # The hot rows: the cold rows' flush between calls is noise here
        # (the same 16 MiB row 6 to 14 ms in two runs at a load of 5).
        if line.startswith("#") or len(cols) < 6 or cols[0] not in sums or cols[1] != "hot":
            continue
        try:
            sums[cols[0]] += float(cols[5])
        except ValueError:
            return None
    return (sums[name], sums[base]) if sums[name] > 0 and sums[base] > 0 else None


def random_cases(path):
    """(cases, clean) of one random run's records: clean when it ended
    complete and found nothing."""
    recs = gate_plan.records_of(path)
    summary = next((r for r in recs if r.get("record") == "summary"), None)
    if summary is None:
        return 0, False
    return summary.get("cases") or 0, summary.get("complete") is True and not summary.get("failed")


def run_random(ctx, variant, model, tmp, tag):
    env = dict(ctx.env, QEMU_CPU=model, MEMGATE_CPU_MODEL=model) if model else dict(ctx.env)
    out = os.path.join(tmp, f"random-{tag}.jsonl")
    cpu, _, result = gate_plan.timed(ctx.runner + [f"{ctx.W}/random", f"--variant={variant}",
                                                   f"--seconds={RATE_SECONDS}", f"--findings={tmp}/found-{tag}",
                                                   "--format=jsonl"], env, out, PROBE_TIMEOUT)
    cases, clean = random_cases(out)
    return cases / cpu if cpu >= MIN_CPU else 0, clean and result.returncode == 0 and not result.timed_out


def run_speed(ctx, name, base, tmp):
    tsv = os.path.join(tmp, f"speed-{name}.tsv")
    rounds = str(LARGE_ROUNDS_EMULATED if ctx.emulated else LARGE_ROUNDS)
    _, _, result = gate_plan.timed(ctx.runner + [f"{ctx.W}/memgate", "speed", f"--variant={name},{base}",
                                                 f"--lengths={LARGE_MOVE}", f"--rounds={rounds}", f"--data={tsv}"],
                                   ctx.env, os.path.join(tmp, f"speed-{name}.txt"), PROBE_TIMEOUT)
    return large_moves(tsv, name, base) if result.returncode == 0 and not result.timed_out else None


def busy_share(tmp):
    """The share of a core a busy program gets now (its CPU time over its
    wall time), or None."""
    loop = f"import time\nt = time.monotonic()\nwhile time.monotonic() - t < {LOAD_SECONDS}:\n    pass\n"
    try:
        cpu, wall, result = gate_plan.timed([sys.executable, "-c", loop], dict(os.environ),
                                            os.path.join(tmp, "busy.txt"), PROBE_TIMEOUT)
    except OSError:
        return None
    return cpu / wall if result.returncode == 0 and wall > 0 else None


def build_programs(ctx):
    """The submission's memgate and random, ahead of the rest of its build
    (gate_build.build links the others; make keeps these)."""
    log = os.path.join(ctx.W, "build.log")
    with gate_build.Lock():
        return gate_build.make(ctx, [f"{ctx.W}/memgate", f"{ctx.W}/random"], log, gate_build.gate_vars(ctx))


def measure(ctx, runs, wants_huge):
    """The Probe of the submission in ctx.W: rates under each CPU model of
    `runs`, large moves of the entries wants_huge(entry) names, the load."""
    probe = Probe()
    try:
        built = build_programs(ctx)
    except OSError:
        built = False
    if not built:
        probe.notes.append("the submission's programs did not build for the plan's probe")
        return probe
    models = list(dict.fromkeys(m for m, _ in runs))
    bases = {e["name"]: gate_plan.calibration_variant(ctx, e["op"]) for e in ctx.entries}
    entries = [e for e in ctx.entries if bases[e["name"]]]
    with tempfile.TemporaryDirectory(prefix="memgate-probe-") as tmp:
        # One step at a time, each with the cores to itself as far as this
        # gate goes: a 16 MiB move that shares its core with the random
        # runs is preempted, and the same routine measured 2.3x, then 4.2x.
        moves = at_once({e["name"]: (run_speed, ctx, e["name"], bases[e["name"]], tmp)
                         for e in entries if wants_huge(e)})
        rates = at_once({(model, e["name"], who): (run_random, ctx, variant, model, tmp, f"{e['name']}-{m}-{who}")
                         for e in entries for m, model in enumerate(models)
                         for who, variant in (("sub", e["name"]), ("base", bases[e["name"]]))})
        share = busy_share(tmp)
    for name, got in moves.items():
        if got:
            probe.large[name] = factor(got[0], got[1])
        else:
            probe.notes.append(f"{name}'s large moves")
    for (model, name, who), got in rates.items():
        if who != "sub":
            continue
        base = rates[(model, name, "base")]
        # No case of the submission's (or too little CPU) is no rate: not measured.
        if got and base and got[1] and base[1] and got[0] > 0 and base[0] > 0:
            probe.rate[(model, name)] = factor(base[0], got[0])
        else:
            probe.notes.append(f"{name}'s case rate" + (f" under {model}" if model else ""))
    if share is None:
        probe.notes.append("the machine's load")
    else:
        probe.share, probe.load = share, load_factor(share)
    return probe


def at_once(jobs):
    """{key: what fn(*args) returned, None when it raised} of {key: (fn,
    *args)}, all run at once."""
    if not jobs:
        return {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {key: pool.submit(*job) for key, job in jobs.items()}
        return {key: _result(f) for key, f in futures.items()}


def _result(future):
    try:
        return future.result()
    except (OSError, records.CouldNotJudge):
        return None

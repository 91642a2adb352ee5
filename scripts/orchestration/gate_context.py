"""One gate run's state (gate_context.Context): its options, arch,
directories, deadlines and budgets, and the arch it builds for."""

import datetime
import os
import re
import sys
import time

from . import convention, procs, submission
from .gate_plan import MARGIN, need
from .gate_options import OPS, die

# What the fuzz driver may add to its share after fuzzing (replaying,
# minimising and deduplicating what it found), and what the other checks
# after fuzzing are kept back for.
FUZZ_OVERHEAD = 20
# Under --seconds least and N+, how far past its share a run's programs may
# go before they are stopped (start_clock).
RAISED_STRETCH = 2
AFTER_FUZZ_REGRESSIONS = 2
AFTER_FUZZ_VALGRIND = 4
AFTER_FUZZ_BENCH = 8
# The sweep's part of --seconds: memgate verify --sweep-seconds runs every
# length and as many of the profile's other cases as fit, at the speed it
# measures (native or under qemu), and says how many that was.
SWEEP_SHARE = 0.4
# Under a further CPU model (aarch64) only the quick (or smoke) sweep and the
# regressions run, so the sweep may take most of that model's share.
FURTHER_MODEL_SWEEP_SHARE = 0.8


class Context:
    """One gate run: its options, arch, directories and deadline."""

    def __init__(self, opts):
        self.opts = opts
        self.primary = True  # every check runs (not a further CPU model's run)
        self.op = opts["op"]
        self.family = OPS[self.op][1]
        self.symbol = opts["symbol"]
        self.requires = opts["requires"]
        self.label, self.cpu_model = "", ""
        self.externs = opts["extern"]
        self.builds = []
        self.profile = opts["profile"]
        self.bench = opts["bench"]
        self.skip = opts["skip"]
        self.overread = opts.get("overread", "classify")
        self.seconds = opts["seconds"]
        self.share = self.seconds  # this entry's part of it: start_clock
        slow = opts.get("max_slowdown")
        self.max_slowdown = float(slow) if slow is not None else None
        self.max_slowdown_text = slow
        self.baseline = opts.get("baseline")
        self.env = dict(os.environ)
        self.t0 = time.monotonic()
        self.started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.deadline = None
        self.plans, self.plan = {}, None  # gate_plan: each run's needs, and this one's
        self.cached = None  # gate_cache: {"from", "date"} of a verdict reused
        self.hard_deadline = None
        self.runner, self.foreign, self.emulated = [], "", ""
        self.valgrind_argv = []
        self.speed_plot = None
        self.table, self.main_set = [], set()
        # One dict per entry point: op, symbol, family, name, R (its results).
        self.entries = [{"op": o, "symbol": s, "family": OPS[o][1], "contract": default_contract(opts, o)}
                        for o, s in opts["entries"]]
        self.contract = self.entries[0]["contract"]

    def select(self, entry):
        """Makes `entry` the one the checks look at."""
        self.op, self.symbol, self.family = entry["op"], entry["symbol"], entry["family"]
        self.contract = entry["contract"]
        self.binding = entry.get("binding", "global")
        self.name, self.R = entry["name"], entry["R"]
        self.overran = entry.get("overran", "")  # gate_runs.overran: past its budget, and which check
        self.speed_plot = None

    # how much is left, and where we are
    def elapsed(self, since=None):
        return time.monotonic() - (since if since is not None else self.t0)

    def progress(self, stage):
        left = self.deadline.remaining() if self.deadline else self.seconds
        print(f"[gate {self.name}] {stage} ({self.elapsed():.1f} s in, {int(left)} s of the budget left)",
              file=sys.stderr, flush=True)

    def start_clock(self, seconds=None):
        """The checks' deadline starts after the build (with several entry
        points, each gets its share of what is left). Children are killed
        at the hard deadline, which adds the fuzz driver's overhead."""
        seconds = self.seconds if seconds is None else seconds
        self.share = seconds
        self.deadline = procs.Deadline(seconds)
        extra = FUZZ_OVERHEAD if "fuzz" not in self.skip and not self.foreign and self.primary else 0
        if self.opts.get("seconds_least") or self.opts.get("seconds_raise"):
            # least and N+ are what the plan measured the checks need, with
            # no room: a machine busier than when it measured stretches them
            # (a riscv64 VLEN run's 2 s share killed at 2 s, at a load of 9),
            # so they may overrun to RAISED_STRETCH times it (the overrun is
            # in the reports); a plain N stays the hard limit.
            extra += seconds * (RAISED_STRETCH - 1)
        self.hard_deadline = procs.Deadline(seconds + extra)

    def budget(self):
        """gate.json's `budget`: the checks' --seconds as the plan left it,
        how it was given, and how far past it programs run before they are
        stopped (a test of the deadline bounds the gate's time from it)."""
        raised = self.opts.get("seconds_least") or self.opts.get("seconds_raise")
        doc = {"seconds": int(self.opts["seconds"]),
               "given": ("least" if self.opts.get("seconds_least") else "raise" if self.opts.get("seconds_raise")
                         else "seconds" if self.opts.get("seconds_given", True) else "default"),
               "stretch": RAISED_STRETCH if raised else 1}
        if getattr(self, "raised_from", None) is not None:
            doc["raised_from"] = self.raised_from
        return doc

    def fuzz_budget(self):
        """What is left for fuzzing: the rest of --seconds but what the
        checks after it are kept back (valgrind, when it runs here, the
        regressions, and the speed measurement where it runs: a foreign
        arch's checks get no FUZZ_OVERHEAD past the deadline, and a native
        i386 speed run takes 2-4 s). With a plan (gate_plan), what they
        were planned to take, and what the fuzz drivers take past their
        --seconds."""
        if self.plan is not None:
            later = self.plan.later(("valgrind", "regressions", "bench"))
            past = self.plan.needs.get("fuzz", 0) - sum(s for _, s, _ in self.plan.fuzz_cal)
            return int(self.deadline.remaining() - later - past)
        later = 0
        if not self.skipped("regressions"):
            later += AFTER_FUZZ_REGRESSIONS
        if not self.skipped("valgrind") and not self.foreign:
            later += AFTER_FUZZ_VALGRIND
        if self.bench and not self.skipped("bench") and not self.emulated:
            later += AFTER_FUZZ_BENCH
        return int(self.deadline.remaining() - later)

    def sweep_budget(self):
        """Seconds the sweep may take (see SWEEP_SHARE): a part of this
        entry's share of --seconds, not of the whole run's, or the sweep of
        one entry would eat the fuzz time of the others. With a plan, at
        least what runs FLOOR of its cases, and no more than the other
        checks leave."""
        base = self.share * (SWEEP_SHARE if self.primary else FURTHER_MODEL_SWEEP_SHARE)
        if self.plan is not None and "fuzz" not in self.plan.needs:
            # No fuzzing to leave the rest to (skipped, or a further
            # model): the sweep may have what the other checks leave, less
            # the plan's margin, by which a sweep that fills its budget
            # runs past it (3.7 s for --sweep-seconds=3 under qemu-riscv64).
            base = self.share / MARGIN
        if self.plan is not None:
            base = min(max(base, self.plan.needs["sweep"]), self.share - self.plan.others())
        return max(1, int(base))

    def sweep_stage_budget(self):
        """memgate verify's --sweep-seconds: the sweep's budget less what
        the situations after it take (gate_plan.Plan.situations)."""
        situations = self.plan.situations() if self.plan is not None else 0.0
        return max(1, self.sweep_budget() - (need(situations) if situations > 0 else 0))

    def verify_planned(self):
        """What the plan gave memgate verify (the sweep's budget, and the
        4 GiB+ check's need beside it), or None without a plan."""
        if self.plan is None:
            return None
        return self.sweep_budget() + self.plan.needs.get("huge", 0)

    def skipped(self, check):
        return check in self.skip

    def huge_applies(self):
        """i386 has the overlapping memmove of 2 GiB and more alone (one
        mapping); a further value set of the glibc model leaves it to the
        first (huge_elsewhere says so)."""
        if getattr(self, "huge_elsewhere", ""):
            return False
        return self.family not in ("page", "usercopy") and (self.arch != "i386" or self.op == "memmove")

    def huge_na_reason(self):
        if getattr(self, "huge_elsewhere", ""):
            return self.huge_elsewhere
        if self.family == "page":
            return "page routines take one page"
        if self.family == "usercopy":
            return "the user copies run in the sandbox, up to 16 MiB (docs/usercopy.md)"
        return "lengths of 4 GiB and more need a 64-bit size_t (i386 has only memmove's 2 GiB+ overlapping move)"

    def huge_off(self):
        return self.skipped("huge") or not self.huge_applies()

    def abi_rules(self):
        arch = self.foreign or self.host
        kernel = self.contract == "kernel"
        sampled = ", x87 mode and the entry flags on a sample"
        conv = self.opts.get("convention")
        if arch == "i386":
            regs = f"every register the convention '{conv}' does not name" if conv else "ebx, esi, edi, ebp"
            return (f"{regs}, esp, the caller's frame, direction flag, MXCSR, x87 control word" + sampled
                    + (", no vector or x87 state (kernel)" if kernel and "fpu" not in self.requires else ""))
        if arch == "aarch64":
            return ("x19-x29, d8-d15, sp, nothing written above sp, FPCR, the entry flags on a sample"
                    + (", x18 (kernel)" if kernel else "")
                    + (", no FP/SIMD state (kernel)" if kernel and "fpu" not in self.requires else ""))
        if arch == "riscv64":
            return ("s0-s11, fs0-fs11, sp, nothing written above sp, gp, tp, frm, vstart (with V)"
                    + (", no FP state (kernel)" if kernel and "fpu" not in self.requires else ""))
        regs = f"every register the convention '{conv}' does not name" if conv else "callee-saved registers"
        return (f"{regs}, stack, direction flag, MXCSR, x87 control word, upper bits of int"
                + sampled + (", no vector or x87 state (kernel)" if kernel and "fpu" not in self.requires else ""))

    def incumbents(self):
        if self.baseline:
            return [self.baseline]
        # The project's own variants only: a self-test that must pass (an
        # over-read inside an aligned block, say) is no routine to beat.
        return [row[0] for row in self.table if len(row) >= 7 and row[1] == self.op and row[0] != self.name
                and row[5] == "runs" and row[6] == "pass" and row[0] in self.main_set]

    def plot_speed(self, tsv, incumbents):
        where = os.path.dirname(self.opts.get("report") or os.path.join(self.R, "x")) or "."
        svg = os.path.join(where, f"{self.name}-speed.svg")
        rc, _ = submission.capture(["scripts/speed-plot", tsv, svg, f"{self.name} vs {','.join(incumbents) or 'nothing'}"],
                                   timeout=60)
        if rc == 0:
            self.speed_plot = svg


def default_contract(opts, op):
    """--contract, else kernel for a page routine, a user copy or one built
    through the kernel shim, else user."""
    if opts.get("contract"):
        return opts["contract"]
    return "kernel" if OPS[op][1] in ("page", "usercopy") or opts.get("kernel_shim") else "user"


def check_convention(opts, arch):
    """--convention, checked against the arch's registers and the op
    before anything builds (one line, exit 2, naming the bad token); kept
    in its canonical text, or None for the C convention."""
    text = opts.get("convention")
    if text is None:
        return
    try:
        conv = convention.parse(text, arch)
        if conv:
            convention.check_fits(conv, opts["op"])
    except ValueError as e:
        die(f"--convention '{text}': {e}")
    opts["convention"] = convention.text_of(conv) if conv else None


def setup_arch(ctx, opts):
    ctx.host = "i386" if re.match(r"^i.86$", os.uname().machine) else os.uname().machine
    arch = opts.get("arch")
    if not arch:
        arch = ctx.host
        first = "/" + opts["files"][0]
        for a in ("x86_64", "i386", "aarch64", "riscv64", "generic"):
            if f"/impls/{a}/" in first or f"/tests/bad/{a}/" in first:
                arch = a
    if arch not in ("x86_64", "i386", "aarch64", "riscv64", "generic"):
        die(f"unknown arch '{arch}' (valid: x86_64, i386, aarch64, riscv64, generic)")
    ctx.arch = arch
    check_convention(opts, ctx.host if arch == "generic" else arch)
    if arch not in (ctx.host, "generic"):
        ctx.foreign = arch
        rc, out = submission.capture(["scripts/arch-probe", arch], timeout=120)
        if rc != 0:
            die(f"--arch {arch}: this machine ({ctx.host}) cannot run it: {out.strip()}")
        ctx.runner = out.split()
        ctx.emulated = ctx.runner[0] if ctx.runner else ""
    ctx.B = "build" + (f"/{ctx.foreign}" if ctx.foreign else "")
    ctx.make_arch = [f"ARCH={ctx.foreign}"] if ctx.foreign else []

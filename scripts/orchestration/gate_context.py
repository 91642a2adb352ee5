"""One gate run's state (gate_context.Context): its options, arch,
directories and deadline, and the arch it builds for and its compiler."""

import datetime
import functools
import os
import re
import sys
import time

from . import convention, procs, submission
from .gate_options import ILP32, OPS, die

# The arches the gate builds for ("generic": C, for the host).
ARCHES = ("x86_64", "i386", "aarch64", "riscv64", "armhf", "generic")


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
        slow = opts.get("max_slowdown")
        self.max_slowdown = float(slow) if slow is not None else None
        self.max_slowdown_text = slow
        self.baseline = opts.get("baseline")
        self.env = dict(os.environ)
        self.t0 = time.monotonic()
        self.started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.deadline = None  # procs.Deadline of --seconds, from the first check on
        self.cached = None  # gate_cache: {"from", "date"} of a verdict reused
        self.judged = None  # and the seconds judging it took, when the cache kept them
        self.runner, self.foreign, self.emulated = [], "", ""
        self.runners = {"": ([], "")}  # CPU model -> (runner, emulator): runner_for
        self.probe_flags = []  # scripts/arch-probe's for this arch (riscv64: --plugins)
        self.B = "build"  # the harness's build: the host's until setup_arch says the arch
        self.speed_plots = []  # the entry's speed plots (plot_speed), one per run that timed it
        self.table, self.main_set = [], set()
        # Set by the run loop from what the checks return (gate_runs: the
        # isa audit's report object and the features the code uses;
        # gate: the data symbols read and their value sets, gate_tunables),
        # read by the checks after them and by the report.
        self.isa, self.isa_uses, self.tunables = None, (), None
        # One dict per entry point: op, symbol, family, name, R (its results).
        self.entries = [{"op": o, "symbol": s, "family": OPS[o][1], "contract": default_contract(opts, o)}
                        for o, s in opts["entries"]]
        self.contract = self.entries[0]["contract"]

    def runner_for(self, model):
        """(runner, emulator) for the CPU model ("": the arch's default):
        the qemu scripts/arch-probe --cpu finds with it (armhf's VFPv3-D16
        model is a newer qemu's than Debian 12's), asked once a model. A
        model no qemu here has ends the run: could not judge, exit 2."""
        if model not in self.runners:
            rc, out = submission.capture(["scripts/arch-probe"] + self.probe_flags + ["--cpu", model, self.arch],
                                         timeout=120)
            if rc != 0:
                die(f"--arch {self.arch}: no CPU model {model} here, so the routine cannot be judged under it: "
                    f"{out.strip()} (--cpu picks the models to run)")
            runner = out.split()
            self.runners[model] = (runner, runner[0] if runner else "")
        return self.runners[model]

    def select(self, entry):
        """Makes `entry` the one the checks look at."""
        self.op, self.symbol, self.family = entry["op"], entry["symbol"], entry["family"]
        self.contract = entry["contract"]
        self.binding = entry.get("binding", "global")
        self.name, self.R = entry["name"], entry["R"]
        # Each entry keeps its own plots: the table and verdict are shown
        # after every run, with the entry selected again.
        self.speed_plots = entry.setdefault("speed_plots", [])

    # how much is left, and where we are
    def elapsed(self, since=None):
        return time.monotonic() - (since if since is not None else self.t0)

    def progress(self, stage):
        print(f"[gate {self.name}] {stage} ({self.elapsed():.1f} s in)", file=sys.stderr, flush=True)

    def start_clock(self):
        """Starts the deadline (--seconds): the gate does so once, at its
        first check, after the build; it holds for every run and entry
        point after it."""
        self.deadline = procs.Deadline(self.seconds)

    def past_deadline(self):
        return self.deadline is not None and self.deadline.expired()

    def budget(self):
        """gate.json's `budget`: the deadline of the checks and how it was
        given (a test of the deadline bounds the gate's time from it)."""
        return {"seconds": int(self.opts["seconds"]),
                "given": "seconds" if self.opts.get("seconds_given") else "default"}

    def skipped(self, check):
        return check in self.skip

    def huge_applies(self):
        """A 32-bit arch (ILP32) has the overlapping memmove of 2 GiB and more
        alone (one mapping); a further value set of the glibc model leaves it to the
        first (huge_elsewhere says so)."""
        if getattr(self, "huge_elsewhere", ""):
            return False
        return self.family not in ("page", "usercopy") and (self.arch not in ILP32 or self.op == "memmove")

    def huge_na_reason(self):
        if getattr(self, "huge_elsewhere", ""):
            return self.huge_elsewhere
        if self.family == "page":
            return "page routines take one page"
        if self.family == "usercopy":
            return "the user copies run in the sandbox, up to 16 MiB (docs/usercopy.md)"
        return ("lengths of 4 GiB and more need a 64-bit size_t (i386 and armhf have only memmove's "
                "2 GiB+ overlapping move)")

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
        if arch == "armhf":
            return "r4-r11, d8-d15, sp, nothing written above sp, FPSCR's control bits, an interworking return"
        if arch == "riscv64":
            return ("s0-s11, fs0-fs11, sp, nothing written above sp, gp, tp, frm, the caller's fflags, "
                    "vstart (with V)"
                    + (", no FP or vector state (kernel)" if kernel and "fpu" not in self.requires else ""))
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
        """NAME-speed.svg next to the report (else in the run's results),
        kept in the entry's speed_plots for the `speed plot:` line; with
        several runs that time it (--extern lists) and one report, each
        run's has its label in its name."""
        where = os.path.dirname(self.opts.get("report") or os.path.join(self.R, "x")) or "."
        run = re.sub(r"[^A-Za-z0-9_.=-]+", "-", self.label).strip("-") if self.label and self.opts.get("report") else ""
        svg = os.path.join(where, f"{self.name}{'-' + run if run else ''}-speed.svg")
        rc, _ = submission.capture(["scripts/speed-plot", tsv, svg, f"{self.name} vs {','.join(incumbents) or 'nothing'}"],
                                   timeout=60)
        if rc == 0:
            self.speed_plots.append(svg)


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
        for a in ARCHES:
            if f"/impls/{a}/" in first or f"/tests/bad/{a}/" in first:
                arch = a
    if arch not in ARCHES:
        die(f"unknown arch '{arch}' (valid: {', '.join(ARCHES)})")
    ctx.arch = arch
    check_convention(opts, ctx.host if arch == "generic" else arch)
    if arch not in (ctx.host, "generic"):
        ctx.foreign = arch
        # riscv64's misaligned watch is a qemu plugin: a qemu that loads it.
        ctx.probe_flags = ["--plugins"] if arch == "riscv64" else []
        rc, out = submission.capture(["scripts/arch-probe"] + ctx.probe_flags + [arch], timeout=120)
        if rc != 0:
            die(f"--arch {arch}: this machine ({ctx.host}) cannot run it: {out.strip()}")
        ctx.runner = out.split()
        ctx.emulated = ctx.runner[0] if ctx.runner else ""
        ctx.runners = {"": (ctx.runner, ctx.emulated)}
    ctx.B = "build" + (f"/{ctx.foreign}" if ctx.foreign else "")
    ctx.make_arch = [f"ARCH={ctx.foreign}"] if ctx.foreign else []


def gate_cc(ctx):
    """The C compiler of the build for ctx's arch (make print-cc, with its
    ARCH), whose binutils read the merged object. It is here, with the
    arch the run builds for, so that a module that only reads the object
    (gate_tunables) needs none that builds it (gate_build)."""
    return compiler_of(tuple(ctx.make_arch))


@functools.lru_cache(maxsize=None)
def compiler_of(make_arch):
    """make print-cc's answer, asked once a run (a make that reads the
    Makefile: 45 ms, and a gate asked it twice)."""
    rc, out = submission.capture(["make", "--no-print-directory", "-s"] + list(make_arch) + ["print-cc"], timeout=60)
    return out.strip().splitlines()[-1] if rc == 0 and out.strip() else "cc"

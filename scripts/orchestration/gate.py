"""scripts/gate: one command, one verdict for a proposed copy, move or clear
routine. It builds the files into the harness as an extra variant in a
build directory of its own, checks the build-time rules, runs every check
memgate has on it under one deadline, prints a verdict table and every
finding with the command that replays it, and writes JSON, SARIF and JUnit
reports on request.

Exit status: 0 accepted (every required check ran to its end, its results
were written and read back, and none found anything), 1 rejected (at least
one finding), 2 bad usage, a build error or a build-time rule broken, or
"could not judge: REASON" (a check could not run to its end)."""

import datetime
import fcntl
import os
import re
import shutil
import sys
import tempfile
import time

from . import checks, cpu_models, procs, records, report, submission
from .records import CouldNotJudge

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USAGE = """\
scripts/gate --op OP [--symbol NAME] [--arch ARCH]
             [--src-align N] [--dst-align N] [--len-multiple N]
             [--requires FEATURE,...] [--returns dst|void] [--contract kernel|user]
             [--extern NAME=VALUE[,VALUE...]]...
             [--seconds N] [--report FILE.json] [--sarif FILE] [--junit FILE]
             [--baseline VARIANT] [--no-bench] [--max-slowdown X] [--quick]
             [--skip=CHECK,...]
             FILE.c|FILE.S ...

Builds the files into the harness as a new variant and runs every check on
it: build, abi, sweep, huge, fuzz, valgrind, regressions, bench. --seconds
(default 60) bounds the checks; the build before them and the fuzz driver's
minimisation (at most 20 s) come on top. --quick runs the quick sweep.
--skip=huge,fuzz,valgrind,regressions,bench leaves checks out, and the
verdict line says so. --extern NAME=VALUE defines a data symbol (an
integer) the routine may reference; it may reference nothing else.
--extern NAME=V1,V2,... runs every check once per value (a build each),
with a verdict per value and one overall verdict.

--contract kernel (the default for copy_page and clear_page) holds the
routine to the kernel's rules: aarch64 x18 is reserved; x86-64 code
touches no vector or x87 state unless it says --requires fpu. --requires
also names aarch64 CPU facts (zva64, zva256, zva512, sve, mops): aarch64
code runs under every qemu -cpu model that has them (max, cortex-a57,
a64fx), with a verdict per model, and is a SKIP when none has them.

Exit status: 0 accepted, 1 rejected (findings), 2 bad usage, a build error
or build-time rule, or "could not judge: REASON"."""
VALUE_OPTIONS = ("--op", "--symbol", "--arch", "--src-align", "--dst-align", "--len-multiple", "--requires",
                 "--returns", "--seconds", "--report", "--sarif", "--junit", "--baseline", "--max-slowdown",
                 "--skip", "--extern", "--contract")
FLAG_OPTIONS = ("--no-bench", "--quick")
FEATURES = ("sse2", "avx", "avx2", "avx512f", "avx512bw", "erms", "fsrm")
# enum mg_feature's bits (harness/variant.h) for the facts beyond FEATURES;
# "fpu" is no CPU feature but the kernel contract's declaration.
FEATURE_BITS = dict({f: 1 << i for i, f in enumerate(FEATURES)},
                    zva64=1 << 8, zva256=1 << 9, zva512=1 << 10, sve=1 << 11, mops=1 << 12)
DECLARATIONS = ("fpu",)
OPS = {"memcpy": ("MEMCPY", "memcpy"), "memmove": ("MEMMOVE", "memmove"), "memset": ("MEMSET", "memset"),
       "copy_page": ("COPY_PAGE", "page"), "clear_page": ("CLEAR_PAGE", "page")}
SKIPPABLE = ("huge", "fuzz", "valgrind", "regressions", "bench")
# What the fuzz driver may add to its share after fuzzing (replaying,
# minimising and deduplicating what it found), and what the other checks
# after fuzzing are kept back for.
FUZZ_OVERHEAD = 20
AFTER_FUZZ_REGRESSIONS = 2
AFTER_FUZZ_VALGRIND = 4
BUILD_TIMEOUT = 900


class Usage(Exception):
    """Bad usage or a build problem: one line (or more, for a compiler's
    messages) on stderr, exit 2."""


def die(text):
    raise Usage(text)


# --- options -------------------------------------------------------------------

def parse(argv):
    opts = {"extern": [], "files": [], "bench": True, "quick": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            try:
                print(USAGE, flush=True)
            except BrokenPipeError:  # `| head`: what was read is enough
                pass
            sys.exit(0)
        if arg == "--":
            opts["files"] += argv[i + 1:]
            break
        if arg in FLAG_OPTIONS:
            opts["bench" if arg == "--no-bench" else "quick"] = arg == "--quick"
        elif arg.split("=", 1)[0] in VALUE_OPTIONS:
            opt, eq, value = arg.partition("=")
            if not eq:
                if i + 1 >= len(argv):
                    die(f"{opt} needs a value")
                value = argv[i + 1]
                i += 1
            key = opt[2:].replace("-", "_")
            if key == "extern":
                opts["extern"].append(value)
            else:
                opts[key] = value
        elif arg.startswith("-"):
            die(f"unknown option '{arg}' (valid: {', '.join(VALUE_OPTIONS + FLAG_OPTIONS)})")
        else:
            opts["files"].append(arg)
        i += 1
    return opts


def whole(name, text):
    if not re.match(r"^[1-9][0-9]*$", text or ""):
        die(f"--{name} '{text}' is not a positive whole number")
    value = int(text)
    if value >= 2**32:
        die(f"--{name} {text} is too large")
    return value


def power_of_two(name, text):
    value = whole(name, text)
    if value & (value - 1):
        die(f"--{name} {value} is not a power of two")
    if value > 4096:
        die(f"--{name} {value} is over 4096")
    return value


def validate(opts):
    op = opts.get("op", "")
    if not op:
        die("--op is required (memcpy, memmove, memset, copy_page or clear_page)")
    if op not in OPS:
        die(f"unknown op '{op}' (valid: memcpy, memmove, memset, copy_page, clear_page)")
    if not opts["files"]:
        die("no source file given (FILE.c or FILE.S)")
    for f in opts["files"]:
        if not os.path.exists(f):
            die(f"{f}: no such file")
        if not os.path.isfile(f) or not os.access(f, os.R_OK):
            die(f"{f}: not a readable file")
        if not f.endswith((".c", ".S", ".s")):
            die(f"{f}: not a C (.c) or assembly (.S, .s) file")
    symbol = opts.get("symbol") or os.path.splitext(os.path.basename(opts["files"][0]))[0]
    if not submission.IDENTIFIER.match(symbol):
        die(f"--symbol '{symbol}' is not a C identifier")
    opts["symbol"] = symbol
    opts["src_align"] = power_of_two("src-align", opts.get("src_align", "1"))
    opts["dst_align"] = power_of_two("dst-align", opts.get("dst_align", "1"))
    opts["len_multiple"] = whole("len-multiple", opts.get("len_multiple", "1"))
    opts["seconds"] = whole("seconds", opts.get("seconds", "60"))
    slow = opts.get("max_slowdown")
    if slow is not None and not re.match(r"^[0-9]+(\.[0-9]+)?$", slow):
        die(f"--max-slowdown '{slow}' is not a number (e.g. 1.10)")
    skip = [c for c in (opts.get("skip") or "").split(",") if c]
    for c in skip:
        if c in ("abi", "sweep"):
            die(f"--skip {c}: the sweep and its ABI checks always run")
        if c not in SKIPPABLE:
            die(f"unknown check '{c}' in --skip (valid: {', '.join(SKIPPABLE)})")
    opts["skip"] = skip
    requires = [f for f in (opts.get("requires") or "").split(",") if f]
    for f in requires:
        if f not in FEATURE_BITS and f not in DECLARATIONS:
            die(f"unknown feature '{f}' in --requires (valid: {', '.join(list(FEATURE_BITS) + list(DECLARATIONS))})")
    opts["requires"] = requires
    contract = opts.get("contract") or ("kernel" if OPS[op][1] == "page" else "user")
    if contract not in ("kernel", "user"):
        die(f"--contract must be kernel or user, not '{contract}'")
    opts["contract"] = contract
    returns = opts.get("returns") or ""
    if OPS[op][1] == "page":
        if returns not in ("", "void"):
            die(f"--returns {returns}: page routines return void")
        opts["returns"] = "void"
    else:
        if returns == "void":
            die(f"--returns void: {op} must return dst")
        if returns not in ("", "dst"):
            die(f"--returns must be dst or void, not '{returns}'")
        opts["returns"] = "dst"
    lists = []
    for text in opts["extern"]:
        try:
            lists.append(submission.parse_extern_values(text))
        except ValueError as e:
            die(str(e))
    if len({n for n, _ in lists}) != len(lists):
        die("--extern names one symbol twice")
    # One run per combination of values; opts["extern"] is the first.
    sets = [[]]
    for name, values in lists:
        sets = [done + [(name, v)] for done in sets for v in values]
    if len(sets) > 16:
        die(f"--extern: {len(sets)} combinations of values (at most 16)")
    opts["extern_sets"] = sets
    opts["extern"] = sets[0]
    return opts


# --- the run ---------------------------------------------------------------------

class Context:
    """One gate run: its options, arch, directories and deadline."""

    def __init__(self, opts):
        self.opts = opts
        self.op = opts["op"]
        self.family = OPS[self.op][1]
        self.symbol = opts["symbol"]
        self.requires = opts["requires"]
        self.contract = opts.get("contract", "user")
        self.label, self.cpu_model = "", ""
        self.externs = opts["extern"]
        self.builds = []
        self.quick = opts["quick"]
        self.bench = opts["bench"]
        self.skip = opts["skip"]
        self.seconds = opts["seconds"]
        slow = opts.get("max_slowdown")
        self.max_slowdown = float(slow) if slow is not None else None
        self.max_slowdown_text = slow
        self.baseline = opts.get("baseline")
        self.env = dict(os.environ)
        self.t0 = time.monotonic()
        self.started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.deadline = None
        self.hard_deadline = None
        self.runner, self.foreign, self.emulated = [], "", ""
        self.valgrind_argv = []
        self.speed_plot = None

    # how much is left, and where we are
    def elapsed(self, since=None):
        return time.monotonic() - (since if since is not None else self.t0)

    def progress(self, stage):
        left = self.deadline.remaining() if self.deadline else self.seconds
        print(f"[gate {self.name}] {stage} ({self.elapsed():.1f} s in, {int(left)} s of the budget left)",
              file=sys.stderr, flush=True)

    def start_clock(self):
        """The checks' deadline starts after the build. Children are killed
        at the hard deadline, which adds the fuzz driver's overhead."""
        self.deadline = procs.Deadline(self.seconds)
        extra = FUZZ_OVERHEAD if "fuzz" not in self.skip and not self.foreign else 0
        self.hard_deadline = procs.Deadline(self.seconds + extra)

    def fuzz_budget(self):
        """What is left for fuzzing: the rest of --seconds but what the
        checks after it are kept back (valgrind, when it runs here, and the
        regressions)."""
        later = 0
        if not self.skipped("regressions"):
            later += AFTER_FUZZ_REGRESSIONS
        if not self.skipped("valgrind") and not self.foreign:
            later += AFTER_FUZZ_VALGRIND
        return int(self.deadline.remaining() - later)

    def skipped(self, check):
        return check in self.skip

    def huge_applies(self):
        return self.family != "page" and self.arch != "i386"

    def huge_na_reason(self):
        if self.family == "page":
            return "page routines take one page"
        return "lengths of 4 GiB and more need a 64-bit size_t"

    def huge_off(self):
        return self.skipped("huge") or not self.huge_applies()

    def abi_rules(self):
        arch = self.foreign or self.host
        kernel = self.contract == "kernel"
        if arch == "i386":
            return "ebx, esi, edi, ebp, esp, the caller's frame, direction flag, MXCSR, x87 control word"
        if arch == "aarch64":
            return "x19-x29, d8-d15, sp, nothing written above sp, FPCR" + (", x18 (kernel)" if kernel else "")
        return ("callee-saved registers, stack, direction flag, MXCSR, x87 control word, upper bits of int"
                + (", no vector or x87 state (kernel)" if kernel and "fpu" not in self.requires else ""))

    def incumbents(self):
        if self.baseline:
            return [self.baseline]
        return [row[0] for row in self.table if len(row) >= 7 and row[1] == self.op and row[0] != self.name
                and row[5] == "runs" and row[6] == "pass"]

    def plot_speed(self, tsv, incumbents):
        where = os.path.dirname(self.opts.get("report") or os.path.join(self.R, "x")) or "."
        svg = os.path.join(where, f"{self.name}-speed.svg")
        rc, _ = submission.capture(["scripts/speed-plot", tsv, svg, f"{self.name} vs {','.join(incumbents) or 'nothing'}"],
                                   timeout=60)
        if rc == 0:
            self.speed_plot = svg


def setup_arch(ctx, opts):
    ctx.host = "i386" if re.match(r"^i.86$", os.uname().machine) else os.uname().machine
    arch = opts.get("arch")
    if not arch:
        arch = ctx.host
        first = "/" + opts["files"][0]
        for a in ("x86_64", "i386", "aarch64", "generic"):
            if f"/impls/{a}/" in first or f"/tests/bad/{a}/" in first:
                arch = a
    if arch not in ("x86_64", "i386", "aarch64", "generic"):
        die(f"unknown arch '{arch}' (valid: x86_64, i386, aarch64, generic)")
    ctx.arch = arch
    if arch not in (ctx.host, "generic"):
        ctx.foreign = arch
        rc, out = submission.capture(["scripts/arch-probe", arch], timeout=120)
        if rc != 0:
            die(f"--arch {arch}: this machine ({ctx.host}) cannot run it: {out.strip()}")
        ctx.runner = out.split()
        ctx.emulated = ctx.runner[0] if ctx.runner else ""
    ctx.B = "build" + (f"/{ctx.foreign}" if ctx.foreign else "")
    ctx.make_arch = [f"ARCH={ctx.foreign}"] if ctx.foreign else []


class Lock:
    """An exclusive lock on build/gate/.lock while shared objects are
    built, so concurrent gates never write the same file at once."""

    def __enter__(self):
        os.makedirs("build/gate", exist_ok=True)
        self.f = open("build/gate/.lock", "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def make(ctx, targets, log, extra=()):
    argv = ["make", "--no-print-directory", "-s"] + ctx.make_arch + list(extra) + targets
    with open(log, "ab") as out:
        result = procs.run(argv, stdout=out, stderr=out, timeout=BUILD_TIMEOUT)
    if result.timed_out:
        die(f"the build did not finish in {BUILD_TIMEOUT} s (see {log})")
    return result.returncode == 0


def list_table(ctx):
    rc, out = submission.capture(ctx.runner + [f"{ctx.B}/memgate", "list", "--set=all", "--tsv"], timeout=120)
    if rc != 0:
        die(f"{ctx.B}/memgate list failed: {out.strip()[-200:]}")
    return [line.split("\t") for line in out.splitlines() if line]


def stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")


def prepare(ctx, opts):
    """The shared build, the variant's name, and this run's own build and
    results directories (unique, whatever else runs at the same time)."""
    with Lock():
        if not make(ctx, ["all"], os.devnull):
            die(f"memgate itself does not build: run make{' ARCH=' + ctx.foreign if ctx.foreign else ''}")
    ctx.table = list_table(ctx)
    names = {row[0]: row for row in ctx.table}
    ctx.name = ctx.symbol if ctx.symbol not in names else f"{ctx.symbol}_submitted"
    if ctx.baseline:
        row = names.get(ctx.baseline)
        if row is None:
            die(f"unknown --baseline variant '{ctx.baseline}' (see {ctx.B}/memgate list)")
        if row[1] != ctx.op:
            die(f"--baseline {ctx.baseline} is a {row[1]}, not a {ctx.op}")
    parent = os.path.join("build", "gate", *([ctx.foreign] if ctx.foreign else []))
    results = os.environ.get("MEMGATE_GATE_RESULTS") or os.path.join("findings", "gate")
    try:
        os.makedirs(parent, exist_ok=True)
        ctx.W = os.path.relpath(tempfile.mkdtemp(prefix=f"{ctx.name}-", dir=parent))
    except OSError as e:
        die(f"cannot create a build directory under {parent}: {e.strerror or e}")
    try:
        os.makedirs(results, exist_ok=True)
        ctx.R = tempfile.mkdtemp(prefix=f"{ctx.name}-{stamp()}-", dir=results)
        if not os.path.isabs(results):
            ctx.R = os.path.relpath(ctx.R)
    except OSError as e:
        raise CouldNotJudge(f"cannot create the results directory under {results}: {e.strerror or e}") from None


def copy_checked(src, dst):
    """Copies a file into the results and reads it back: the evidence is
    there, or the run could not be judged."""
    try:
        shutil.copyfile(src, dst)
        with open(src, "rb") as a, open(dst, "rb") as b:
            same = a.read() == b.read()
    except OSError as e:
        raise CouldNotJudge(f"cannot copy {src} into {dst}: {e.strerror or e}") from None
    if not same:
        raise CouldNotJudge(f"{dst}: what was read back differs from {src}")


def copy_sources(ctx, given):
    """Each file twice: into the build under a name make and the shell take
    as it is, and (when it is outside the tree) into the results, so the
    evidence is complete and the reports name it by a path in the tree."""
    src_dir = os.path.join(ctx.W, "src")
    os.makedirs(src_dir)
    ctx.sources, ctx.files = [], []
    for index, path in enumerate(given):
        build_copy = os.path.join(src_dir, submission.safe_name(index, path))
        shutil.copyfile(path, build_copy)
        ctx.sources.append(build_copy)
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        if rel.startswith(".."):
            os.makedirs(os.path.join(ctx.R, "sources"), exist_ok=True)
            kept = os.path.join(ctx.R, "sources", os.path.basename(path))
            if os.path.exists(kept):  # two files of one name
                kept = os.path.join(ctx.R, "sources", f"{index}-{os.path.basename(path)}")
            copy_checked(path, kept)
            rel = os.path.relpath(os.path.abspath(kept), ROOT)
        ctx.files.append(rel)
    if ctx.externs:
        path = os.path.join(src_dir, "externs.c")
        with open(path, "w") as f:
            f.write(submission.extern_source(ctx.externs))
        ctx.sources.append(path)


def contract_macro(ctx):
    """The variant's struct mg_contract, as harness/variant.h spells it."""
    o = ctx.opts
    if ctx.contract == "kernel":
        flags = "MG_KERNEL" + (" | MG_KERNEL_USES_FPU" if "fpu" in ctx.requires else "")
        if ctx.family == "page":
            return f"MG_CONTRACT_KERNEL(4096, 4096, 4096, 4096, {flags})"
        return f"MG_CONTRACT_KERNEL({o['src_align']}, {o['dst_align']}, {o['len_multiple']}, 0, {flags})"
    if ctx.family == "page":
        return "MG_CONTRACT_PAGE"
    return f"MG_CONTRACT({o['src_align']}, {o['dst_align']}, {o['len_multiple']})"


def write_build_files(ctx):
    op_macro = OPS[ctx.op][0]
    ret = "MG_RET_VOID" if ctx.opts["returns"] == "void" else "MG_RET_DST"
    contract = contract_macro(ctx)
    features = 0
    for f in ctx.requires:
        features |= FEATURE_BITS.get(f, 0)
    about = submission.c_string("submitted: " + " ".join(ctx.files))
    files = {"sources": "\n".join(ctx.sources) + "\n", "symbol": ctx.symbol + "\n", "family": ctx.family + "\n",
             "submitted.def": f"MG_SUBMITTED({ctx.arch}, {ctx.name}, mg_gate_{ctx.symbol}, {op_macro}, {ret}, "
                              f"{contract}, {features}, {about})\n"}
    # Kernel code is built without vector or x87 registers, so that the
    # compiler's own vectorising is not blamed on the routine's author.
    x86_64 = ctx.arch == "x86_64" or (ctx.arch == "generic" and ctx.host == "x86_64")
    no_fpu = ctx.contract == "kernel" and "fpu" not in ctx.requires and x86_64
    files["cflags"] = "-mgeneral-regs-only\n" if no_fpu else "\n"
    for name, text in files.items():
        with open(os.path.join(ctx.W, name), "w") as f:
            f.write(text)


def show_compiler(ctx, log, given):
    """The compiler's messages, with the build's copies named as given."""
    try:
        text = open(log, encoding="utf-8", errors="replace").read()
    except OSError:
        text = ""
    for src, name in zip(ctx.sources, given):
        text = text.replace(src, name)
    lines = [l for l in text.splitlines() if re.search(r"error|Error|undefined reference", l)]
    return "\n".join(lines[:20])


def build(ctx, given):
    """Compiles the submission, checks the build-time rules on it, then
    links this run's programs. Usage (exit 2) on any problem."""
    copy_sources(ctx, given)
    write_build_files(ctx)
    log = os.path.join(ctx.W, "build.log")
    fuzz = "no" if ctx.skipped("fuzz") or ctx.foreign else "yes"
    gate = [f"GATE={ctx.W}", f"GATE_FUZZ={fuzz}"]
    names = " ".join(given)
    t = time.monotonic()
    if not make(ctx, [f"{ctx.W}/plain.o"], log, gate):
        merged = os.path.join(ctx.W, "plain.parts", "merged.o")
        if os.path.exists(merged):
            cc = gate_cc(ctx)
            problems = submission.inspect(merged, cc, ctx.symbol, [n for n, _ in ctx.opts["extern"]])
            if problems and problems[0].startswith("symbol "):
                die(f"symbol '{ctx.symbol}' is not defined in {names} "
                    f"{problems[0][problems[0].index('(it defines'):]}")
        die(f"{names} does not build; the compiler said:\n{show_compiler(ctx, log, given)}")
    try:
        problems = submission.inspect(os.path.join(ctx.W, "plain.parts", "merged.o"), gate_cc(ctx), ctx.symbol,
                                      [n for n, _ in ctx.opts["extern"]])
    except submission.BuildProblem as e:
        die(str(e))
    if problems:
        # One line each; main() puts "gate: " before the first.
        die("\ngate: ".join(f"{names} {p}" for p in problems))
    with Lock():
        if not make(ctx, ["gate-shared"], log, gate):
            die(f"{names} does not build; the compiler said:\n{show_compiler(ctx, log, given)}")
    if not make(ctx, ["gate-build"], log, gate):
        die(f"{names} does not build; the compiler said:\n{show_compiler(ctx, log, given)}")
    note = f"variant {ctx.name}, entry point {ctx.symbol}" + (f", built for {ctx.foreign}" if ctx.foreign else "")
    return checks.Check("build", "pass", 0, time.monotonic() - t, note)


def gate_cc(ctx):
    rc, out = submission.capture(["make", "--no-print-directory", "-s"] + ctx.make_arch + ["print-cc"], timeout=60)
    cc = out.strip().splitlines()[-1] if rc == 0 and out.strip() else "cc"
    return cc


# --- verdict, table, reports ---------------------------------------------------

def verdict_of(results, findings):
    """accepted, rejected or could-not-judge."""
    if findings:
        return "rejected"
    if any(c.status == "error" for c in results):
        return "could-not-judge"
    return "accepted"


def qualifiers(results):
    parts = list(dict.fromkeys(f"{c.name} n/a: {c.note}" for c in results if c.status == "n/a"))
    skipped = list(dict.fromkeys(c.name for c in results if c.status == "skip"))
    if skipped:
        parts.append("skipped: " + ", ".join(skipped))
    return "; ".join(parts)


def by_reason(results):
    """'check, check: reason' for each reason, in the order first seen."""
    groups = {}
    for c in results:
        names = groups.setdefault(c.note, [])
        if c.name not in names:
            names.append(c.name)
    return [f"{', '.join(names)}: {reason}" for reason, names in groups.items()]


def table(ctx, results):
    lines = [f"memgate gate: {ctx.name} ({ctx.op}, {ctx.arch}" + (f", under {ctx.emulated}" if ctx.emulated else "")
             + f", {ctx.contract} contract), from {' '.join(ctx.files)}"]
    runs = any(c.run for c in results)
    width = max([len(c.run) for c in results] + [3])
    run = (lambda text: "%-*s  " % (width, text)) if runs else (lambda text: "")
    lines.append("%-12s %-7s %12s %9s  %s%s" % ("check", "status", "cases", "seconds", run("run"), "note"))
    for c in results:
        note = {"n/a": f"n/a ({c.note})", "error": f"could not judge: {c.note}"}.get(c.status, c.note)
        lines.append("%-12s %-7s %12s %9s  %s%s" % (c.name, c.status.upper(), c.cases, f"{c.seconds:.1f}"
                                                     if c.seconds else "0", run(c.run), note))
    return "\n".join(lines)


def run_verdicts(results, findings):
    """One line per run (a CPU model, a set of --extern values) when there
    are several: its own verdict, before the overall one."""
    labels = []
    for c in results:
        if c.run and c.run not in labels:
            labels.append(c.run)
    lines = []
    for label in labels:
        mine = [c for c in results if c.run in (label, "")]
        found = [f for f in findings if f.get("run") == label]
        verdict = verdict_of(mine, found)
        text = {"rejected": f"REJECTED, {len(found)} finding(s)", "accepted": "ACCEPTED",
                "could-not-judge": "COULD NOT JUDGE: " + "; ".join(by_reason([c for c in mine if c.status == "error"]))}
        lines.append(f"  {label}: {text[verdict]}")
    return lines


def describe_finding(n, f):
    out = [f"{n}. [{f['check']}] {f['kind']}: {f['detail']}" + (f" ({f['run']})" if f.get("run") else "")]
    if f.get("input"):
        out.append(f"   input: {f['input']}")
    if f.get("fuzz_command"):
        out.append(f"   seen by: {f['fuzz_command']}")
    if f.get("repro"):
        out.append(f"   repro: {f['repro']}")
    return "\n".join(out)


def version():
    rc, out = submission.capture(["git", "describe", "--always", "--dirty"], timeout=30)
    return out.strip() if rc == 0 and out.strip() else "unknown"


def document(ctx, results, findings, warnings, verdict):
    doc = {"schema": report.SCHEMA, "variant": ctx.name, "op": ctx.op, "arch": ctx.arch, "symbol": ctx.symbol,
           "contract": ctx.contract, "requires": ctx.requires,
           "files": ctx.files, "verdict": verdict, "seconds": round(ctx.elapsed(), 1), "memgate": version(),
           "started": ctx.started, "checks": [c.as_dict() for c in results], "findings": findings,
           "warnings": warnings,
           "could_not_judge": [{"check": c.name, "reason": c.note} for c in results if c.status == "error"],
           "not_applicable": [{"check": c.name, "reason": c.note} for c in results if c.status == "n/a"],
           "skipped": [c.name for c in results if c.status == "skip"]}
    return doc


def dedupe(findings):
    """One finding per check and signature: the first input that shows it."""
    seen, out = set(), []
    for f in findings:
        key = (f["check"], f.get("run", ""), f["signature"])
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def run_checks(ctx, primary=True):
    """Every check; under a further CPU model (not primary) the sweep (quick
    profile), its ABI checks, the 4 GiB+ guard-oracle cases and the
    regressions only: fuzzing, valgrind and bench ran under the first."""
    results, findings, warnings = [], [], []
    abi_sweep_huge, found, warned = checks.run_verify(ctx)
    results += abi_sweep_huge
    findings += found
    warnings += warned
    steps = (checks.run_fuzz, checks.run_valgrind, checks.run_regressions, checks.run_bench)
    for step in steps if primary else (checks.run_regressions,):
        check, found = step(ctx)
        results.append(check)
        findings += found
    return results, dedupe(findings), warnings


def finish(ctx, results, findings, warnings):
    """Writes gate.json and the reports (each read back), prints the table
    and the verdict; returns the exit status."""
    verdict = verdict_of(results, findings)
    doc = document(ctx, results, findings, warnings, verdict)
    problems = []
    try:
        records.write_json(os.path.join(ctx.R, "gate.json"), doc)
        doc = report.load(ctx.R)
    except (CouldNotJudge, report.BadWorkdir) as e:
        problems.append(f"the results were not written: {e}")
    o = ctx.opts
    if o.get("report") or o.get("sarif") or o.get("junit"):
        try:
            report.write(doc, o.get("report"), o.get("sarif"), o.get("junit"))
        except CouldNotJudge as e:
            problems.append(f"the reports were not written: {e}")
    try:
        print()
        print(table(ctx, results))
        speed = os.path.join(ctx.R, "speed.txt")
        if any(c.name == "bench" and c.status in ("pass", "fail") for c in results) and os.path.exists(speed):
            print()
            print(open(speed, encoding="utf-8", errors="replace").read().rstrip("\n"))
        if ctx.speed_plot:
            print(f"speed plot: {ctx.speed_plot}")
        for w in warnings:
            print(f"warning [{w['check']}] {w['name']}: {w['text']}")
        per_run = run_verdicts(results, findings)
        if len(per_run) > 1:
            print()
            print("verdict per run:")
            for line in per_run:
                print(line)
        if findings:
            print()
            print(f"{len(findings)} finding(s):")
            for n, f in enumerate(findings, 1):
                print(describe_finding(n, f))
        if not problems and (o.get("report") or o.get("sarif") or o.get("junit")):
            print("reports: " + " ".join(p for p in (o.get("report"), o.get("sarif"), o.get("junit")) if p))
        print(f"results: {ctx.R}")
        print()
        took = f"{ctx.elapsed():.1f} s"
        cannot = [c for c in results if c.status == "error"]
        quals = qualifiers(results)
        if problems:
            for p in problems:
                print(f"gate: could not judge: {p}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {ctx.name}: could not judge: {problems[0]} ({took})")
            return 2
        if verdict == "rejected":
            extra = "; could not judge " + ", ".join(c.name for c in cannot) if cannot else ""
            print(f"REJECTED: {ctx.name}, {len(findings)} finding(s){extra} ({took})")
            return 1
        if verdict == "could-not-judge":
            reasons = by_reason(cannot)
            for line in reasons:
                print(f"gate: could not judge: {line}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {ctx.name}: could not judge: {'; '.join(reasons)} ({took})")
            return 2
        if quals:
            print(f"ACCEPTED ({quals}): {ctx.name} passed every other check ({took})")
        else:
            print(f"ACCEPTED: {ctx.name} passed every check ({took})")
        return 0
    except OSError as e:
        print(f"gate: could not judge: writing the verdict failed: {e.strerror or e}", file=sys.stderr)
        return 2


# --- runs: CPU models and --extern values ------------------------------------

def plan_runs(ctx):
    """[(cpu model or "", extern values)], one per run of the checks; None
    when the routine needs CPU facts no model here has."""
    facts = cpu_models.facts_of(ctx.requires)
    if facts and ctx.arch != "aarch64":
        die(f"--requires {','.join(facts)}: aarch64 CPU facts, and this routine is for {ctx.arch}")
    models = [""]
    if ctx.arch == "aarch64" and ctx.emulated:
        models = cpu_models.models_for(ctx.requires)
        if not models:
            return None
    return [(model, externs) for externs in ctx.opts["extern_sets"] for model in models]


def cannot_run_anywhere(ctx):
    """Nothing could be checked, so never accepted: exit 2."""
    print(f"SKIP ({cpu_models.none_has(ctx.requires)}): {ctx.symbol} was not run")
    return 2


def label_of(model, externs, runs):
    parts = []
    if model:
        parts.append(f"cpu {model}")
    if len({tuple(e) for _, e in runs}) > 1:
        parts += [f"{name}={value:#x}" if abs(value) >= 4096 else f"{name}={value}" for name, value in externs]
    return ", ".join(parts)


def enter_run(ctx, model, externs, runs, base_env, top_results):
    """Points ctx at one run: its label, CPU model (QEMU_CPU, which
    qemu-user reads as -cpu and the repro commands carry), results folder
    and share of --seconds."""
    ctx.label = label_of(model, externs, runs)
    ctx.cpu_model = model
    ctx.env = dict(base_env, QEMU_CPU=model, MEMGATE_CPU_MODEL=model) if model else dict(base_env)
    ctx.seconds = max(1, ctx.opts["seconds"] // len({tuple(e) for _, e in runs}))
    if len(runs) > 1:
        safe = re.sub(r"[^A-Za-z0-9_.=-]+", "-", ctx.label).strip("-") or "run"
        ctx.R = os.path.join(top_results, f"run-{runs.index((model, externs)) + 1}-{safe}")
        os.makedirs(ctx.R, exist_ok=True)


def new_build_dir(ctx):
    parent = os.path.dirname(ctx.W)
    ctx.W = os.path.relpath(tempfile.mkdtemp(prefix=f"{ctx.name}-", dir=parent))


def run_all(ctx, runs, opts):
    results, findings, warnings = [], [], []
    base_env, top = dict(ctx.env), ctx.R
    built, quick = None, ctx.quick
    for model, externs in runs:
        primary = built != externs
        if primary:
            if built is not None:
                new_build_dir(ctx)
            ctx.externs = externs
            ctx.builds.append(ctx.W)
            check = build(ctx, opts["files"])
            check.run = label_of("", externs, runs)
            results.append(check)
            built = externs
        enter_run(ctx, model, externs, runs, base_env, top)
        ctx.quick = quick or not primary
        ctx.start_clock()
        found_results, found, warned = run_checks(ctx, primary)
        for c in found_results:
            c.run = ctx.label
        for f in found:
            f["run"] = ctx.label
            if model:
                f["cpu_model"] = model
                f["repro"] = f"QEMU_CPU={model} MEMGATE_CPU_MODEL={model} {f['repro']}"
        results += found_results
        findings += found
        warnings += warned
    ctx.R, ctx.env, ctx.seconds, ctx.quick = top, base_env, opts["seconds"], quick
    return results, findings, warnings


def main(argv):
    os.chdir(ROOT)
    ctx = None
    try:
        opts = validate(parse(argv))
        ctx = Context(opts)
        setup_arch(ctx, opts)
        runs = plan_runs(ctx)
        if runs is None:
            return cannot_run_anywhere(ctx)
        prepare(ctx, opts)
        results, findings, warnings = run_all(ctx, runs, opts)
        status = finish(ctx, results, findings, warnings)
        if status == 0:
            # No finding names these builds in a repro command: they go, so
            # that accepted runs do not pile up a build each.
            for w in ctx.builds:
                shutil.rmtree(w, ignore_errors=True)
        return status
    except Usage as e:
        print(f"gate: {e}", file=sys.stderr)
        return 2
    except CouldNotJudge as e:
        print(f"gate: could not judge: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"gate: could not judge: {e.filename + ': ' if e.filename else ''}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gate: interrupted", file=sys.stderr)
        return 130

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
scripts/gate --op OP [--symbol NAME] | --entry OP=SYMBOL... [--arch ARCH]
             [-I DIR]... [-D NAME[=VALUE]]... [--cflags "FLAGS"]
             [--src-align N] [--dst-align N] [--len-multiple N]
             [--requires FEATURE,...] [--returns dst|void] [--contract kernel|user]
             [--extern NAME=VALUE[,VALUE...]]...
             [--seconds N] [--report FILE.json] [--sarif FILE] [--junit FILE]
             [--baseline VARIANT] [--no-bench] [--max-slowdown X] [--quick]
             [--skip=CHECK,...] [--overread=classify|strict]
             FILE.c|FILE.S|FILE.o|ARCHIVE.a(MEMBER.o) ...

Builds the files into the harness as a new variant and runs every check on
it: build, abi, sweep, huge, fuzz, valgrind, regressions, bench. --seconds
(default 60) bounds the checks; the build before them and the fuzz driver's
minimisation (at most 20 s) come on top. --quick runs the quick sweep.
--skip=huge,fuzz,valgrind,regressions,bench leaves checks out, and the
verdict line says so. --extern NAME=VALUE defines a data symbol (an
integer) the routine may reference; it may reference nothing else
(glibc's x86 cache and threshold variables have defaults; see the README).
-I, -D and --cflags are the submitter's tree's build flags, for .c and .S
files. --entry OP=SYMBOL (repeatable) gates several entry points of one
submission in one run (OP: memcpy, mempcpy, memmove, memset, copy_page,
clear_page): one verdict per entry and one overall verdict.
--overread=strict makes an over-read that stays in an aligned block holding
a buffer byte (the aligned-over-read warning) a failure.
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
                 "--skip", "--extern", "--entry", "--cflags", "--overread", "--contract")
FLAG_OPTIONS = ("--no-bench", "--quick")
# --requires names, and their bits in enum mg_feature (harness/variant.h):
# x86 at 0-7 and 16-26, aarch64's CPU facts at 8-12.
FEATURE_BITS = {"sse2": 0, "avx": 1, "avx2": 2, "avx512f": 3, "avx512bw": 4, "erms": 5, "fsrm": 6,
                "zva64": 8, "zva256": 9, "zva512": 10, "sve": 11, "mops": 12,
                "sse3": 16, "ssse3": 17, "sse4_1": 18, "sse4_2": 19, "avx512vl": 20, "avx512dq": 21,
                "bmi1": 22, "bmi2": 23, "rtm": 24, "movbe": 25, "lzcnt": 26}
FEATURES = tuple(FEATURE_BITS)
# "fpu" is no CPU feature but the kernel contract's declaration.
DECLARATIONS = ("fpu",)
OPS = {"memcpy": ("MEMCPY", "memcpy"), "mempcpy": ("MEMPCPY", "memcpy"), "memmove": ("MEMMOVE", "memmove"), "memset": ("MEMSET", "memset"),
       "copy_page": ("COPY_PAGE", "page"), "clear_page": ("CLEAR_PAGE", "page")}
SKIPPABLE = ("huge", "fuzz", "valgrind", "regressions", "bench")
# What the fuzz driver may add to its share after fuzzing (replaying,
# minimising and deduplicating what it found), and what the other checks
# after fuzzing are kept back for.
FUZZ_OVERHEAD = 20
AFTER_FUZZ_REGRESSIONS = 2
AFTER_FUZZ_VALGRIND = 4
# The sweep's part of --seconds: memgate verify --sweep-seconds runs every
# length and as many of the profile's other cases as fit, at the speed it
# measures (native or under qemu), and says how many that was.
SWEEP_SHARE = 0.4
BUILD_TIMEOUT = 900


class Usage(Exception):
    """Bad usage or a build problem: one line (or more, for a compiler's
    messages) on stderr, exit 2."""


def die(text):
    raise Usage(text)


# --- options -------------------------------------------------------------------

def parse(argv):
    opts = {"extern": [], "entry": [], "tree_flags": [], "files": [], "bench": True, "quick": False}
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
        if arg[:2] in ("-I", "-D"):
            # The submitter's tree's flags, as a compiler takes them: -IDIR or -I DIR.
            value = arg[2:]
            if not value:
                if i + 1 >= len(argv):
                    die(f"{arg} needs a value")
                value = argv[i + 1]
                i += 1
            opts["tree_flags"].append(arg[:2] + value)
        elif arg in FLAG_OPTIONS:
            opts["bench" if arg == "--no-bench" else "quick"] = arg == "--quick"
        elif arg.split("=", 1)[0] in VALUE_OPTIONS:
            opt, eq, value = arg.partition("=")
            if not eq:
                if i + 1 >= len(argv):
                    die(f"{opt} needs a value")
                value = argv[i + 1]
                i += 1
            key = opt[2:].replace("-", "_")
            if key in ("extern", "entry"):
                opts[key].append(value)
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


VALID_OPS = "memcpy, mempcpy, memmove, memset, copy_page or clear_page"


def validate_file(f):
    member = submission.split_member(f)
    path = member[0] if member else f
    if not os.path.exists(path):
        die(f"{path}: no such file")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        die(f"{path}: not a readable file")
    if member:
        rc, out = submission.capture(["ar", "t", path], timeout=60)
        if rc != 0:
            die(f"{path}: not an archive ar can read")
        if member[1] not in out.split():
            die(f"{path} has no member {member[1]}")
    elif not f.endswith((".c", ".S", ".s", ".o")):
        die(f"{f}: not a C (.c), assembly (.S, .s) or object (.o) file, or an archive member ARCHIVE.a(MEMBER.o)")


def default_symbol(first):
    member = submission.split_member(first)
    return os.path.splitext(member[1] if member else os.path.basename(first))[0]


def entries_of(opts):
    """[(op, symbol)]: the --entry pairs, or --op with --symbol."""
    if opts["entry"]:
        if opts.get("op") or opts.get("symbol"):
            die("--entry OP=SYMBOL names each entry point: give it instead of --op and --symbol")
        pairs = []
        for text in opts["entry"]:
            op, eq, symbol = text.partition("=")
            if not eq or op not in OPS:
                die(f"--entry '{text}' is not OP=SYMBOL with OP one of {VALID_OPS}")
            pairs.append((op, symbol))
    else:
        op = opts.get("op", "")
        if not op:
            die(f"--op is required ({VALID_OPS})")
        if op not in OPS:
            die(f"unknown op '{op}' (valid: {VALID_OPS.replace(' or ', ', ')})")
        pairs = [(op, opts.get("symbol") or default_symbol(opts["files"][0]))]
    for _, symbol in pairs:
        if not submission.IDENTIFIER.match(symbol):
            die(f"--symbol '{symbol}' is not a C identifier")
    if len({s for _, s in pairs}) != len(pairs):
        die("--entry names one symbol twice")
    return pairs


def validate(opts):
    if not opts["files"]:
        die("no source file given (FILE.c, FILE.S, FILE.o or ARCHIVE.a(MEMBER.o))")
    for f in opts["files"]:
        validate_file(f)
    opts["entries"] = entries_of(opts)
    op, symbol = opts["entries"][0]
    opts["op"], opts["symbol"] = op, symbol
    extra = opts.get("cflags")
    if extra is not None:
        import shlex
        try:
            opts["tree_flags"] += shlex.split(extra)
        except ValueError as e:
            die(f"--cflags '{extra}': {e}")
    opts["src_align"] = power_of_two("src-align", opts.get("src_align", "1"))
    opts["dst_align"] = power_of_two("dst-align", opts.get("dst_align", "1"))
    opts["len_multiple"] = whole("len-multiple", opts.get("len_multiple", "1"))
    # The default budget is 60 s per entry point; --seconds bounds them all.
    opts["seconds"] = whole("seconds", opts.get("seconds", str(60 * len(opts["entries"]))))
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
    overread = opts.get("overread") or "classify"
    if overread not in ("classify", "strict"):
        die(f"--overread must be classify or strict, not '{overread}'")
    opts["overread"] = overread
    requires = [f for f in (opts.get("requires") or "").split(",") if f]
    for f in requires:
        if f not in FEATURE_BITS and f not in DECLARATIONS:
            die(f"unknown feature '{f}' in --requires (valid: {', '.join(list(FEATURE_BITS) + list(DECLARATIONS))})")
    opts["requires"] = requires
    # Without --contract, each entry's own default: kernel for page routines.
    contract = opts.get("contract")
    if contract is not None and contract not in ("kernel", "user"):
        die(f"--contract must be kernel or user, not '{contract}'")
    opts["contract"] = contract
    returns = opts.get("returns") or ""
    if returns and len(opts["entries"]) > 1:
        die("--returns applies to one entry point; with --entry each op returns what it must")
    if op == "mempcpy":
        if returns not in ("", "dst+n"):
            die(f"--returns {returns}: mempcpy returns dst+n")
        opts["returns"] = "dst+n"
    elif OPS[op][1] == "page":
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
        self.label, self.cpu_model = "", ""
        self.externs = opts["extern"]
        self.builds = []
        self.quick = opts["quick"]
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
        self.deadline = None
        self.hard_deadline = None
        self.runner, self.foreign, self.emulated = [], "", ""
        self.valgrind_argv = []
        self.speed_plot = None
        # One dict per entry point: op, symbol, family, name, R (its results).
        self.entries = [{"op": o, "symbol": s, "family": OPS[o][1],
                         "contract": opts.get("contract") or ("kernel" if OPS[o][1] == "page" else "user")}
                        for o, s in opts["entries"]]
        self.contract = self.entries[0]["contract"]

    def select(self, entry):
        """Makes `entry` the one the checks look at."""
        self.op, self.symbol, self.family = entry["op"], entry["symbol"], entry["family"]
        self.contract = entry["contract"]
        self.binding = entry.get("binding", "global")
        self.name, self.R = entry["name"], entry["R"]
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
        self.deadline = procs.Deadline(seconds)
        extra = FUZZ_OVERHEAD if "fuzz" not in self.skip and not self.foreign else 0
        self.hard_deadline = procs.Deadline(seconds + extra)

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

    def sweep_budget(self):
        """Seconds the sweep may take (see SWEEP_SHARE)."""
        return max(1, int(self.seconds * SWEEP_SHARE))

    def skipped(self, check):
        return check in self.skip

    def huge_applies(self):
        """i386 has the overlapping memmove of 2 GiB and more alone (one mapping)."""
        return self.family != "page" and (self.arch != "i386" or self.op == "memmove")

    def huge_na_reason(self):
        if self.family == "page":
            return "page routines take one page"
        return "lengths of 4 GiB and more need a 64-bit size_t (i386 has only memmove's 2 GiB+ overlapping move)"

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
    for e in ctx.entries:
        e["name"] = e["symbol"] if e["symbol"] not in names else f"{e['symbol']}_submitted"
    ctx.name = ctx.entries[0]["name"]
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
        ctx.root_R = ctx.R
        for e in ctx.entries:
            # One entry: its results are the run's; several: a folder each.
            e["R"] = ctx.R if len(ctx.entries) == 1 else os.path.join(ctx.R, e["name"])
            os.makedirs(e["R"], exist_ok=True)
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
        member = submission.split_member(path)
        if member and not build_copy.endswith(".o"):
            # An object all the same (musl's libc.a members are .lo).
            build_copy = os.path.splitext(build_copy)[0] + ".o"
        if member:
            extract_member(member, build_copy)
        else:
            shutil.copyfile(path, build_copy)
        ctx.sources.append(build_copy)
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        if rel.startswith("..") or member:
            os.makedirs(os.path.join(ctx.root_R, "sources"), exist_ok=True)
            base = os.path.basename(build_copy)[len(f"{index}-"):] if member else os.path.basename(path)
            kept = os.path.join(ctx.root_R, "sources", base)
            if os.path.exists(kept):  # two files of one name
                kept = os.path.join(ctx.root_R, "sources", f"{index}-{base}")
            copy_checked(build_copy if member else path, kept)
            rel = os.path.relpath(os.path.abspath(kept), ROOT)
        ctx.files.append(rel)
    if ctx.externs:
        path = os.path.join(src_dir, "externs.c")
        with open(path, "w") as f:
            f.write(submission.extern_source(ctx.externs))
        ctx.sources.append(path)
    if ctx.arch in ("x86_64", "i386"):
        path = os.path.join(src_dir, "glibc-x86-defaults.c")
        with open(path, "w") as f:
            f.write(submission.defaults_source({n for n, _ in ctx.opts["extern"]}))
        ctx.sources.append(path)


def extract_member(member, out):
    """ARCHIVE.a(MEMBER.o) into `out` (ar p: the first member of that name)."""
    archive, name = member
    with open(out, "wb") as f:
        result = procs.run(["ar", "p", archive, name], stdout=f, stderr=os.devnull, timeout=120)
    if result.returncode != 0 or os.path.getsize(out) == 0:
        die(f"{archive}({name}): ar cannot extract it")


def contract_macro(ctx, entry):
    """The entry's struct mg_contract, as harness/variant.h spells it."""
    o = ctx.opts
    if entry["contract"] == "kernel":
        flags = "MG_KERNEL" + (" | MG_KERNEL_USES_FPU" if "fpu" in ctx.requires else "")
        if entry["family"] == "page":
            return f"MG_CONTRACT_KERNEL(4096, 4096, 4096, 4096, {flags})"
        return f"MG_CONTRACT_KERNEL({o['src_align']}, {o['dst_align']}, {o['len_multiple']}, 0, {flags})"
    if entry["family"] == "page":
        return "MG_CONTRACT_PAGE"
    return f"MG_CONTRACT({o['src_align']}, {o['dst_align']}, {o['len_multiple']})"


def write_build_files(ctx):
    features = 0
    for f in ctx.requires:
        features |= 1 << FEATURE_BITS[f] if f in FEATURE_BITS else 0  # fpu: a declaration
    about = submission.c_string("submitted: " + " ".join(ctx.files))
    lines = []
    for e in ctx.entries:
        ret = {"memcpy": "MG_RET_DST", "mempcpy": "MG_RET_DST_END"}.get(
            e["op"], "MG_RET_VOID" if e["family"] == "page" else "MG_RET_DST")
        lines.append(f"MG_SUBMITTED({ctx.arch}, {e['name']}, mg_gate_{e['symbol']}, {OPS[e['op']][0]}, {ret}, "
                     f"{contract_macro(ctx, e)}, {features}, {about})\n")
    families = sorted({e["family"] for e in ctx.entries})
    files = {"sources": "\n".join(ctx.sources) + "\n", "symbol": ",".join(e["symbol"] for e in ctx.entries) + "\n",
             "family": " ".join(families) + "\n", "submitted.def": "".join(lines)}
    # The submitter's tree flags go to scripts/gate-compile (`cflags`); the
    # contract's flags to the Makefile (`contract-cflags`): each once.
    if ctx.opts["tree_flags"]:
        files["cflags"] = "".join(flag + "\n" for flag in ctx.opts["tree_flags"])
    # Kernel code is built without vector or x87 registers, so that the
    # compiler's own vectorising is not blamed on the routine's author (one
    # build for every entry: any kernel entry asks it).
    x86_64 = ctx.arch == "x86_64" or (ctx.arch == "generic" and ctx.host == "x86_64")
    kernel = any(e["contract"] == "kernel" for e in ctx.entries)
    no_fpu = kernel and "fpu" not in ctx.requires and x86_64
    files["contract-cflags"] = "-mgeneral-regs-only\n" if no_fpu else "\n"
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
    symbols = [e["symbol"] for e in ctx.entries]
    if not make(ctx, [f"{ctx.W}/plain.o"], log, gate):
        merged = os.path.join(ctx.W, "plain.parts", "merged.o")
        if os.path.exists(merged):
            cc = gate_cc(ctx)
            problems = submission.inspect(merged, cc, symbols, [n for n, _ in ctx.opts["extern"]], f" in {names}")
            if problems and problems[0].startswith("symbol "):
                die(problems[0])
        die(f"{names} does not build; the compiler said:\n{show_compiler(ctx, log, given)}")
    try:
        problems = submission.inspect(os.path.join(ctx.W, "plain.parts", "merged.o"), gate_cc(ctx), symbols,
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
    local = local_entries(ctx)
    for e in ctx.entries:
        e["binding"] = "local" if e["symbol"] in local else "global"
    return time.monotonic() - t


def local_entries(ctx):
    """The entry points that were local symbols (scripts/gate-compile made
    them global and listed them)."""
    try:
        with open(os.path.join(ctx.W, "plain.parts", "locals"), encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}
    except FileNotFoundError:
        return set()


def build_check(ctx, seconds):
    local = ctx.binding == "local"
    note = (f"variant {ctx.name}, entry point {ctx.symbol}"
            + (" (a local symbol, made global for the harness)" if local else "")
            + (f", built for {ctx.foreign}" if ctx.foreign else ""))
    return checks.Check("build", "pass", 0, seconds, note)


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
           "symbol_binding": getattr(ctx, "binding", "global"), "contract": ctx.contract, "requires": ctx.requires,
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
    if primary:  # valgrind ran in this run only
        warnings += getattr(ctx, "valgrind_warnings", [])
    return results, dedupe(findings), warnings


def record(ctx, results, findings, warnings):
    """Writes the entry's gate.json and reads it back: (doc, problems)."""
    doc = document(ctx, results, findings, warnings, verdict_of(results, findings))
    problems = []
    try:
        records.write_json(os.path.join(ctx.R, "gate.json"), doc)
        doc = report.load(ctx.R)
    except (CouldNotJudge, report.BadWorkdir) as e:
        problems.append(f"the results were not written: {e}")
    return doc, problems


def write_reports(ctx, docs):
    """The reports asked for: one entry's as they always were; several
    entries' as one report each kind (report.combine). Problems, if any."""
    o = ctx.opts
    if not (o.get("report") or o.get("sarif") or o.get("junit")):
        return []
    try:
        if len(docs) == 1:
            report.write(docs[0], o.get("report"), o.get("sarif"), o.get("junit"))
        else:
            report.write_combined(docs, o.get("report"), o.get("sarif"), o.get("junit"))
    except CouldNotJudge as e:
        return [f"the reports were not written: {e}"]
    return []


def show(ctx, results, findings, warnings):
    """The entry's table, speed, warnings and findings."""
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


def warned(warnings):
    """'1 warning: dirty-upper', '2 warnings: aligned-over-read (16-byte
    block), dirty-upper', or ''."""
    if not warnings:
        return ""
    names = [w["name"] + (f" ({w['width']}-byte block)" if w.get("width") else "") for w in warnings]
    return f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''}: {', '.join(names)}"


def verdict_line(ctx, results, findings, took, warnings=()):
    """(status, line, reasons for stderr) of one entry's verdict. Warnings
    are named on the line, whatever the verdict."""
    verdict = verdict_of(results, findings)
    cannot = [c for c in results if c.status == "error"]
    quals = "; ".join(q for q in (qualifiers(results), warned(warnings)) if q)
    if verdict == "rejected":
        extra = "; could not judge " + ", ".join(c.name for c in cannot) if cannot else ""
        extra += f"; {warned(warnings)}" if warnings else ""
        return 1, f"REJECTED: {ctx.name}, {len(findings)} finding(s){extra} ({took})", []
    if verdict == "could-not-judge":
        reasons = by_reason(cannot)
        return 2, f"COULD NOT JUDGE: {ctx.name}: could not judge: {'; '.join(reasons)} ({took})", reasons
    if quals:
        other = " other" if qualifiers(results) else ""
        return 0, f"ACCEPTED ({quals}): {ctx.name} passed every{other} check ({took})", []
    return 0, f"ACCEPTED: {ctx.name} passed every check ({took})", []


def finish(ctx, results, findings, warnings):
    """Writes gate.json and the reports (each read back), prints the table
    and the verdict; returns the exit status."""
    doc, problems = record(ctx, results, findings, warnings)
    problems += write_reports(ctx, [doc])
    o = ctx.opts
    try:
        show(ctx, results, findings, warnings)
        if not problems and (o.get("report") or o.get("sarif") or o.get("junit")):
            print("reports: " + " ".join(p for p in (o.get("report"), o.get("sarif"), o.get("junit")) if p))
        print(f"results: {ctx.R}")
        print()
        took = f"{ctx.elapsed():.1f} s"
        if problems:
            for p in problems:
                print(f"gate: could not judge: {p}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {ctx.name}: could not judge: {problems[0]} ({took})")
            return 2
        status, line, reasons = verdict_line(ctx, results, findings, took, warnings)
        for r in reasons:
            print(f"gate: could not judge: {r}", file=sys.stderr)
        print(line)
        return status
    except OSError as e:
        print(f"gate: could not judge: writing the verdict failed: {e.strerror or e}", file=sys.stderr)
        return 2


def finish_entries(ctx, outcomes):
    """Several entry points: each one's table and verdict, then one report
    of each kind and the overall verdict: rejected if any entry has a
    finding, else could not judge if any could not be judged, else
    accepted. `outcomes`: (entry, results, findings, warnings, seconds)."""
    docs, problems, rows = [], [], []
    o = ctx.opts
    try:
        for entry, results, findings, warnings, seconds in outcomes:
            ctx.select(entry)
            doc, trouble = record(ctx, results, findings, warnings)
            docs.append(doc)
            problems += trouble
            show(ctx, results, findings, warnings)
            status, line, reasons = verdict_line(ctx, results, findings, f"{seconds:.1f} s", warnings)
            for r in reasons:
                print(f"gate: could not judge: {ctx.name}: {r}", file=sys.stderr)
            rows.append((entry, status, line))
        problems += write_reports(ctx, docs)
        print()
        if not problems and (o.get("report") or o.get("sarif") or o.get("junit")):
            print("reports: " + " ".join(p for p in (o.get("report"), o.get("sarif"), o.get("junit")) if p))
        print(f"results: {ctx.root_R}")
        print()
        for entry, status, line in rows:
            print(f"{entry['op']}={entry['symbol']}: {line}")
        took = f"{ctx.elapsed():.1f} s"
        n = len(rows)
        if problems:
            for p in problems:
                print(f"gate: could not judge: {p}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {n} entry points: could not judge: {problems[0]} ({took})")
            return 2
        rejected = [e["name"] for e, status, _ in rows if status == 1]
        unjudged = [e["name"] for e, status, _ in rows if status == 2]
        if rejected:
            print(f"REJECTED: {len(rejected)} of {n} entry points ({', '.join(rejected)}) ({took})")
            return 1
        if unjudged:
            print(f"COULD NOT JUDGE: {len(unjudged)} of {n} entry points ({', '.join(unjudged)}) ({took})")
            return 2
        every = [w for _, _, _, warnings, _ in outcomes for w in warnings]
        names = sorted({w["name"] for w in every})
        said = f" ({len(every)} warning{'s' if len(every) != 1 else ''}: {', '.join(names)})" if every else ""
        print(f"ACCEPTED{said}: all {n} entry points ({took})")
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
    """Every run, entry by entry: one build per set of --extern values (all
    entries in it), then each entry's checks under each CPU model. Returns
    [(entry, results, findings, warnings, seconds)], one per entry."""
    per_entry = [([], [], [], 0.0) for _ in ctx.entries]
    base_env = dict(ctx.env)
    built, quick = None, ctx.quick
    for model, externs in runs:
        primary = built != externs
        if primary:
            if built is not None:
                new_build_dir(ctx)
            ctx.externs = externs
            ctx.builds.append(ctx.W)
            build_seconds = build(ctx, opts["files"])
            built = externs
        for index, entry in enumerate(ctx.entries):
            results, findings, warnings, seconds = per_entry[index]
            ctx.select(entry)
            enter_run(ctx, model, externs, runs, base_env, entry["R"])
            if primary:
                check = build_check(ctx, build_seconds)
                check.run = label_of("", externs, runs)
                results.append(check)
                seconds += build_seconds
            ctx.quick = quick or not primary
            # Each entry its share of this set of values' --seconds.
            ctx.start_clock(max(1, ctx.seconds // len(ctx.entries)))
            t = time.monotonic()
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
            per_entry[index] = (results, findings, warnings, seconds + time.monotonic() - t)
    ctx.env, ctx.seconds, ctx.quick = base_env, opts["seconds"], quick
    ctx.label, ctx.cpu_model = "", ""
    for entry in ctx.entries:
        ctx.select(entry)
    return [(e,) + per_entry[i] for i, e in enumerate(ctx.entries)]


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
        outcomes = run_all(ctx, runs, opts)
        if len(outcomes) == 1:
            entry, results, findings, warnings, _ = outcomes[0]
            ctx.select(entry)
            status = finish(ctx, results, findings, warnings)
        else:
            status = finish_entries(ctx, outcomes)
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

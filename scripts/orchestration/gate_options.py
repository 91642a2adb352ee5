"""The gate's options: its --help text, what each option may say, and the
checks on them (bad usage is one line, exit 2, through Usage)."""

import errno
import os
import re
import sys
import tempfile

from . import cli, glibc_x86, isa_features, kernel_shim, registry, submission

# The gate's deadline without --seconds: a watchdog for a harness that
# stopped making progress, far past what any profile takes here (a full
# gate of a C memmove: about a minute; three aarch64 CPU models under
# qemu: minutes), so that it never decides a verdict.
DEFAULT_SECONDS = 3600

USAGE = """\
scripts/gate --op OP [--symbol NAME] | --entry OP=SYMBOL... [--arch ARCH]
             [-I DIR]... [-D NAME[=VALUE]]... [--cflags "FLAGS"] [--kernel]
             [--src-align N] [--dst-align N] [--len-multiple N]
             [--requires FEATURE,...] [--returns dst|void|uncopied] [--contract kernel|user]
             [--convention 'args=REG,... [ret=REG] [clobbers=REG,...] [zero=REG,...]']
             [--extern NAME=VALUE[,VALUE...]|NAME=LO..HI]... [--glibc-version V]
             [--seconds N|N+|least] [--report FILE.json] [--sarif FILE] [--junit FILE]
             [--baseline VARIANT] [--no-bench] [--max-slowdown X]
             [--profile smoke|quick|full] [--quick] [--skip=CHECK,...] [--cpu MODEL]...
             [--overread=classify|strict] [--no-cache]
             [--out DIR] FILE.c|FILE.S|FILE.o|ARCHIVE.a(MEMBER.o) ...

Builds the files into the harness as a new variant and runs every check on
it: build, abi, sweep, huge, fuzz, valgrind, regressions, bench. The
profile names the cases each check runs, so the same code, options and
memgate give the same verdict on any machine at any load. --seconds N is
a deadline, not a budget: the checks (after the build) end within N s
(default 3600), and a check still running then is could not judge, exit
2, never a pass on fewer cases. (N+ and least, from when a plan sized
the checks to the budget, mean the default deadline, or N if larger.)
A verdict is reused when the built code, the
options, memgate and the machine are all the same ("cached: from RUN,
DATE"); --no-cache runs every check again. --profile names the sweep
(default full; quick, --quick for short, about a third of its cases;
smoke, every length and a tenth to a twentieth of quick: a first look
in a fraction of the time, under qemu too, not a verdict to merge on).
--skip=huge,fuzz,valgrind,regressions,bench leaves checks out, and the
verdict line says so. --extern NAME=VALUE defines a data symbol (an
integer) the routine may reference; it may reference nothing else
(glibc's x86 cache and threshold variables have defaults; see docs/gate.md).
-I, -D and --cflags are the submitter's tree's build flags, for .c and .S
files. --entry OP=SYMBOL (repeatable) gates several entry points of one
submission in one run (OP: memcpy, mempcpy, memmove, memset, copy_page,
clear_page, copy_from_user, copy_to_user, clear_user): one verdict per
entry and one overall verdict.
--overread=strict makes an over-read that stays in an aligned block holding
a buffer byte (the aligned-over-read warning) a failure.
--extern NAME=V1,V2,... runs every check once per value (a build each),
with a verdict per value and one overall verdict; --extern NAME=LO..HI
declares the value's range and runs its ends, the values next to them and
powers of two between (docs/tunables.md, "Other numbers").
--glibc-version V (2.33 to 2.41; default: the installed glibc's) is the
release whose start-up code sets glibc's x86-64 tuning variables: a
routine reading them runs under the value sets that release hands it on
the machines of docs/tunables.md, each named by its machine, and at their
boundary values (a failure only there is the warning fragile-tunable).
--kernel builds a file of a Linux tree (arch/x86/lib, arch/arm64/lib, 6.1
to the 6.19 era) through memgate's kernel shim, zoo/kernel/shim.h: an
empty stand-in for each header it includes, the shim for the kernel's
macros; -D ZOO_CPU=MASK (e.g. 'X86_FEATURE_ERMS|X86_FEATURE_FSRM') is the
CPU whose alternatives it assembles (docs/zoo.md, "Your own kernel tree").

Paths are the ones of the directory the gate is started in. Started
anywhere but memgate's own tree, it builds and keeps its results in
./memgate-results (--out DIR, or $MEMGATE_OUT, names another), and the
repro commands it prints run from where it was started; memgate itself
may be installed read-only (docs/install.md).

--convention names a register convention of the routine's own, as the
kernel's inline assembly calls rep_movs_alternative ('args=rdi,rsi,rcx
ret=rcx clobbers=rax') or __clear_pages_unrolled ('args=rdi,rcx
zero=rax'): the arguments' registers in the op's order (a page routine may
take its length, 4096, last), the result's, the registers it may change
besides, those that enter holding 0. Every other register (rsp aside)
must come back unchanged, the C convention's scratch registers too.
x86-64 and i386 only; default: the C convention (docs/conventions.md).

--contract kernel (the default for copy_page, clear_page and the user
copies, and for a routine built through the kernel shim) holds the
routine to the kernel's rules: aarch64 x18 is reserved; x86-64 code
touches no vector or x87 state, and aarch64 code no FP/SIMD register,
unless it says --requires fpu. --requires
also names aarch64 CPU facts (zva64, zva256, zva512, sve, mops): aarch64
code runs under every qemu -cpu model that has them (max, cortex-a57,
a64fx), with a verdict per model, and is a SKIP when none has them;
--cpu MODEL (repeatable) keeps those models only, and the verdict line
names the ones left out.
riscv64 code is built for RV64GC and the extensions --requires names
(v, zba, zbb, zbs), and runs under V at VLEN 128 and under RV64GC, or,
when it requires v, under V at VLEN 128, 256, 512 and 1024. Each
misaligned load or store it makes (qemu's plugin watches the sweep) is a
finding under the kernel contract and a warning under the user contract;
--requires misaligned_fast says it is for a CPU where they are fast.
armhf code is built for VFPv3-D16 and what --requires names (neon,
vfpd32), and runs under a Cortex-A15 and, when it requires neither, the
VFPv3-D16 model; --requires no_unaligned says it is for an Arm target
without unaligned access (SCTLR.A set, -mno-unaligned-access): qemu's
plugin then watches the sweep, and each unaligned load or store is a
finding.

Exit status: 0 accepted, 1 rejected (findings), 2 bad usage, a build error
or build-time rule, or "could not judge: REASON"; 130, 143, 129 stopped by
SIGINT, SIGTERM, SIGHUP (every check stopped, no verdict)."""
VALUE_OPTIONS = ("--op", "--symbol", "--arch", "--src-align", "--dst-align", "--len-multiple", "--requires",
                 "--returns", "--seconds", "--report", "--sarif", "--junit", "--baseline", "--max-slowdown",
                 "--skip", "--extern", "--entry", "--cflags", "--overread", "--contract", "--out",
                 "--convention", "--glibc-version", "--profile", "--cpu")
FLAG_OPTIONS = ("--no-bench", "--quick", "--no-cache", "--kernel")
# --requires names, and their bits in enum mg_feature (harness/variant.h):
# x86 at 0-7 and 16-27, aarch64's at 8-13, armhf's at 14-15, riscv64's at
# 28-31.
FEATURE_BITS = {"sse": 7, "sse2": 0, "avx": 1, "avx2": 2, "avx512f": 3, "avx512bw": 4, "erms": 5, "fsrm": 6,
                "zva64": 8, "zva256": 9, "zva512": 10, "sve": 11, "mops": 12, "sme": 13, "neon": 14, "vfpd32": 15,
                "sse3": 16, "ssse3": 17, "sse4_1": 18, "sse4_2": 19, "avx512vl": 20, "avx512dq": 21,
                "bmi1": 22, "bmi2": 23, "rtm": 24, "movbe": 25, "lzcnt": 26, "fsrs": 27,
                "v": 28, "zba": 29, "zbb": 30, "zbs": 31}
# And every feature the ISA audit can name (isa_features): those without a
# harness bit are tested by the gate itself (gate_isa.runner_cannot).
FEATURES = tuple(FEATURE_BITS) + tuple(f for f in isa_features.ALL if f not in FEATURE_BITS)
# "fpu" is no CPU feature but the kernel contract's declaration;
# "misaligned_fast" says the routine is for a riscv64 CPU whose misaligned
# loads and stores are fast, "no_unaligned" that it is for an Arm target
# without unaligned access (the misaligned check: misaligned.py).
DECLARATIONS = ("fpu", "misaligned_fast", "no_unaligned")
# The arches with a 32-bit size_t: of the 4 GiB+ check, memmove's 2 GiB+
# overlapping move in one mapping is all they hold.
ILP32 = ("i386", "armhf")

OPS = {"memcpy": ("MEMCPY", "memcpy"), "mempcpy": ("MEMPCPY", "memcpy"), "memmove": ("MEMMOVE", "memmove"), "memset": ("MEMSET", "memset"),
       "copy_page": ("COPY_PAGE", "page"), "clear_page": ("CLEAR_PAGE", "page"),
       "copy_from_user": ("COPY_FROM_USER", "usercopy"), "copy_to_user": ("COPY_TO_USER", "usercopy"),
       "clear_user": ("CLEAR_USER", "usercopy")}
# The sweep's profiles (memgate verify --profile), the lightest first.
PROFILES = ("smoke", "quick", "full")
SKIPPABLE = registry.SKIPPABLE


# Bad usage or a build problem: one line (or more, for a compiler's
# messages) on stderr, exit 2.
Usage = cli.Usage


def die(text):
    raise Usage(text)


# --- options -------------------------------------------------------------------

# The options that may be given more than once, each adding to a list.
REPEATABLE = ("-I", "-D", "--extern", "--entry", "--cpu")


def parse(argv):
    cli.refuse_non_utf8(argv, FLAG_OPTIONS)
    opts = {"extern": [], "entry": [], "cpu": [], "tree_flags": [], "files": [], "bench": True, "quick": False,
            "no_cache": False, "kernel": False}
    seen = set()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            cli.print_help(USAGE)
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
            if not value:
                die(f"{arg[:2]} needs a value, not an empty one")
            opts["tree_flags"].append(arg[:2] + value)
        elif arg in FLAG_OPTIONS:
            cli.once(seen, arg)
            if arg == "--no-bench":
                opts["bench"] = False
            else:
                opts[arg[2:].replace("-", "_")] = True
        elif arg.split("=", 1)[0] in FLAG_OPTIONS:
            die(f"{arg.split('=', 1)[0]} takes no value ('{arg}')")
        elif arg.split("=", 1)[0] in VALUE_OPTIONS:
            opt, eq, value = arg.partition("=")
            if not eq:
                if i + 1 >= len(argv):
                    die(f"{opt} needs a value")
                value = argv[i + 1]
                i += 1
            if not value.strip() and opt != "--cflags":
                die(f"{opt} needs a value, not an empty one")
            if opt not in REPEATABLE:
                cli.once(seen, opt)
            key = opt[2:].replace("-", "_")
            if key in ("extern", "entry", "cpu"):
                opts[key].append(value)
            else:
                opts[key] = value
        elif arg.startswith("-"):
            die(f"unknown option '{arg}' (valid: {', '.join(VALUE_OPTIONS + FLAG_OPTIONS)})")
        else:
            opts["files"].append(arg)
        i += 1
    return opts


def profile_of(opts):
    """The sweep's profile: --profile, or --quick's."""
    quick, profile = opts.pop("quick", False), opts.get("profile")
    if profile is None:
        return "quick" if quick else "full"
    if profile not in PROFILES:
        die(f"--profile must be {', '.join(PROFILES[:-1])} or {PROFILES[-1]}, not '{profile}'")
    if quick and profile != "quick":
        die(f"--quick is --profile=quick; it contradicts --profile={profile}")
    return profile


def lighter(profile, other):
    """The lighter of two profiles (a further CPU model's sweep is at most
    quick)."""
    return min(profile, other, key=PROFILES.index)


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


VALID_OPS = "memcpy, mempcpy, memmove, memset, copy_page, clear_page, copy_from_user, copy_to_user or clear_user"


def validate_file(f):
    member = submission.split_member(f)
    path = member[0] if member else f
    try:
        os.stat(path)
    except OSError as e:
        die(f"{path}: {'no such file' if e.errno == errno.ENOENT else e.strerror}")
    if os.path.isdir(path):
        die(f"{path} is a directory, not a source or object file")
    if not os.path.isfile(path):
        die(f"{path} is not a regular file (a FIFO or a device), not a source or object file")
    if not os.access(path, os.R_OK):
        die(f"{path}: not a readable file")
    if f.endswith(".o") and not member:
        why = not_an_object(path)
        if why:
            die(f"{path}: not an object file ({why})")
    if member:
        rc, out = submission.capture(["ar", "t", path], timeout=60)
        if rc != 0:
            die(f"{path}: not an archive ar can read")
        if member[1] not in out.split():
            die(f"{path} has no member {member[1]}")
    elif not f.endswith((".c", ".S", ".s", ".o")):
        die(f"{f}: not a C (.c), assembly (.S, .s) or object (.o) file, or an archive member ARCHIVE.a(MEMBER.o)")


ELF_MAGIC = b"\x7fELF"
ET_REL = 1


def not_an_object(path):
    """Why `path` is no relocatable ELF object (what the linker would say
    only as 'file format not recognized'), or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError as e:
        return e.strerror
    if head[:4] != ELF_MAGIC:
        return "file format not recognized: no ELF header"
    if len(head) < 18:
        return "file format not recognized: a truncated ELF header"
    order = "little" if head[5] == 1 else "big"
    kind = int.from_bytes(head[16:18], order)
    if kind != ET_REL:
        names = {2: "an executable", 3: "a shared object or a position-independent executable", 4: "a core dump"}
        return f"it is {names.get(kind, f'ELF type {kind}')}, not a relocatable object (.o)"
    return None


def writable_output(kind, path):
    """Usage unless the report file `path` can be written: checked before
    the build and the checks, not after them."""
    if path is None:
        return
    if os.path.isdir(path):
        die(f"--{kind} {path} is a directory (give a file name)")
    where = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(where):
        die(f"--{kind} {path}: no folder {where}")
    # A file made and removed there: access() says yes to root everywhere.
    try:
        with tempfile.NamedTemporaryFile(dir=where, prefix=".gate-probe-"):
            pass
    except OSError as e:
        die(f"--{kind} {path}: cannot write in {where} ({e.strerror or e})")


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


def kernel_tree(opts):
    """A kernel routine is one built through the kernel shim (--kernel, or
    the shim given with -include): opts["kernel_shim"]. A kernel constant
    its files test that the shim lacks is said before anything builds; the
    CONFIG_ options they test that nothing defines are opts["configs_off"]
    (the verdict's first line and the report name them)."""
    opts["kernel_shim"] = opts["kernel"] or kernel_shim.uses_shim(opts["tree_flags"])
    opts["configs_off"] = []
    if opts["kernel_shim"]:
        sources = [f for f in opts["files"] if not submission.split_member(f)]
        unknown = kernel_shim.unknown_constants(sources)
        if unknown:
            die(kernel_shim.unknown_message(unknown))
        opts["configs_off"] = kernel_shim.configs_off(sources, opts["tree_flags"])


def validate(opts):
    if not opts["files"]:
        die("no source file given (FILE.c, FILE.S, FILE.o or ARCHIVE.a(MEMBER.o))")
    for f in opts["files"]:
        validate_file(f)
    # An entry point named after the file (no --symbol, no --entry) may be
    # the file's one function under another name (gate_build.adopt_entry).
    opts["symbol_from_file"] = not opts.get("symbol") and not opts["entry"]
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
    kernel_tree(opts)
    for kind in ("report", "sarif", "junit"):
        writable_output(kind, opts.get(kind))
    opts["src_align"] = power_of_two("src-align", opts.get("src_align", "1"))
    opts["dst_align"] = power_of_two("dst-align", opts.get("dst_align", "1"))
    opts["len_multiple"] = whole("len-multiple", opts.get("len_multiple", "1"))
    # --seconds is a deadline only: the profile decides what runs. N+ and
    # least are still understood (scripts and the zoo wrote them for the
    # plan that once sized the checks to the budget): the default, or N
    # if it is larger.
    given = opts.get("seconds")
    opts["seconds_given"] = given not in (None, "least")
    if given == "least":
        given = None
    elif given and re.fullmatch(r"[0-9]+\+", given):
        given = str(max(whole("seconds", given[:-1]), DEFAULT_SECONDS))
    opts["seconds"] = whole("seconds", given or str(DEFAULT_SECONDS))
    slow = opts.get("max_slowdown")
    if slow is not None and (not re.fullmatch(r"[0-9]+(\.[0-9]+)?", slow) or float(slow) <= 0):
        die(f"--max-slowdown '{slow}' is not a number above 0 (e.g. 1.10)")
    skip = [c for c in (opts.get("skip") or "").split(",") if c]
    for c in skip:
        if c in ("abi", "sweep"):
            die(f"--skip {c}: the sweep and its ABI checks always run")
        if c not in SKIPPABLE:
            die(f"unknown check '{c}' in --skip (valid: {', '.join(SKIPPABLE)})")
    opts["skip"] = skip
    opts["profile"] = profile_of(opts)
    overread = opts.get("overread") or "classify"
    if overread not in ("classify", "strict"):
        die(f"--overread must be classify or strict, not '{overread}'")
    opts["overread"] = overread
    requires = [f for f in (opts.get("requires") or "").split(",") if f]
    for f in requires:
        if f not in FEATURES and f not in DECLARATIONS:
            die(f"unknown feature '{f}' in --requires (valid: {', '.join(list(FEATURES) + list(DECLARATIONS))})")
    opts["requires"] = requires
    # Without --contract, each entry's own default: kernel for page routines
    # and the user copies.
    contract = opts.get("contract")
    if contract is not None and contract not in ("kernel", "user"):
        die(f"--contract must be kernel or user, not '{contract}'")
    opts["contract"] = contract
    if opts.get("convention") is not None and len(opts["entries"]) > 1:
        die("--convention applies to one entry point; with --entry each is called with the C convention")
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
    elif OPS[op][1] == "usercopy":
        if returns not in ("", "uncopied"):
            die(f"--returns {returns}: {op} returns the count of bytes it did not copy (uncopied)")
        opts["returns"] = "uncopied"
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
    if len({n for n, _, _ in lists}) != len(lists):
        die("--extern names one symbol twice")
    # The declared ranges, for the table and the reports (gate_tunables).
    opts["extern_ranges"] = {name: span for name, _, span in lists if span}
    # One run per combination of values; opts["extern"] is the first.
    sets = [[]]
    for name, values, _ in lists:
        sets = [done + [(name, v)] for done in sets for v in values]
    if len(sets) > 16:
        die(f"--extern: {len(sets)} combinations of values (at most 16; a range LO..HI is up to "
            f"{4 + submission.RANGE_SPREAD} values)")
    opts["extern_sets"] = sets
    opts["extern"] = sets[0]
    opts["glibc_version"] = glibc_version(opts.get("glibc_version"))
    return opts


def glibc_version(text):
    """--glibc-version V as the model names it ('2.36', '2.36-deb12'), else
    the installed glibc's (None where there is none the model knows: then
    the model is not used, and the table says why)."""
    if text is not None:
        try:
            return glibc_x86.parse_version(text).name
        except ValueError as e:
            die(f"--glibc-version: {e}")
    try:
        return glibc_x86.parse_version(installed_glibc()).name
    except ValueError:
        return None


def installed_glibc():
    """The installed glibc's version: Debian's package version where dpkg
    knows it (its branch carries later fixes: glibc_x86.DEBIAN12), else
    what the C library says of itself."""
    try:
        own = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        own = ""
    rc, out = submission.capture(["dpkg-query", "-W", "-f=${Version}", "libc6"], timeout=30)
    package = out.strip() if rc == 0 else ""
    upstream = re.search(r"\d+\.\d+", own)
    return package if package and upstream and package.startswith(upstream.group(0)) else own

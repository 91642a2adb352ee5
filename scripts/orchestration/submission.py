"""A submitted routine's files: compiled and merged into one object, its
global symbols renamed mg_gate_*, and the rules checked at build time (it
defines its entry point, references nothing it does not define except the
--extern data symbols, makes no system calls)."""

import functools
import json
import os
import re
import shlex
import shutil
import sys

from . import procs

# System-call instructions, as objdump (GNU or LLVM) prints them: on x86
# syscall, sysenter and int $0x80; on aarch64 and armhf svc (and the
# hypervisor and secure-monitor calls next to it); on riscv64 ecall.
SYSCALL_RE = re.compile(r"\t\s*(syscall|sysenter|int\s+\$0x80|svc|hvc|smc|ecall)\b")
# A symbol the linker provides, not a function or datum of anyone's.
LINKER_SYMBOLS = ("_GLOBAL_OFFSET_TABLE_",)
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# An archive member as the linker names it: ARCHIVE.a(MEMBER.o).
MEMBER = re.compile(r"^(?P<archive>.+\.a)\((?P<member>[^()/]+)\)$")

# glibc's x86 string routines read their tuning from these data symbols,
# which glibc's start-up code (cacheinfo) fills in from CPUID. A libc.a
# member references them; the gate defines each one it is not given with
# --extern, weakly (a submission's own definition wins), with the value
# glibc 2.36 computes for a CPU with a 32 KiB L1 data cache and 1 MiB of L3
# per thread. docs/gate.md's "Real code" section lists them. Nothing else may
# stay undefined: these are data the code reads, never code it calls.
GLIBC_X86_DEFAULTS = (
    ("__x86_data_cache_size", 32 * 1024),
    ("__x86_data_cache_size_half", 16 * 1024),
    ("__x86_raw_data_cache_size", 32 * 1024),
    ("__x86_raw_data_cache_size_half", 16 * 1024),
    ("__x86_shared_cache_size", 1024 * 1024),
    ("__x86_shared_cache_size_half", 512 * 1024),
    ("__x86_raw_shared_cache_size", 1024 * 1024),
    ("__x86_raw_shared_cache_size_half", 512 * 1024),
    # 3/4 of the shared cache per thread: glibc's rule.
    ("__x86_shared_non_temporal_threshold", 768 * 1024),
    # glibc 2.40 on (memset's non-temporal stores): the same threshold, on
    # a CPU without Avoid_Non_Temporal_Memset (dl-cacheinfo.h).
    ("__x86_memset_non_temporal_threshold", 768 * 1024),
    # glibc's minimum for 16-byte vectors (2048 * VEC_SIZE / 16 on wider ones).
    ("__x86_rep_movsb_threshold", 2048),
    ("__x86_rep_stosb_threshold", 2048),
    # Where rep movsb stops paying: the non-temporal threshold (Intel).
    ("__x86_rep_movsb_stop_threshold", 768 * 1024),
    # Bit 0, Avoid_Short_Distance_REP_MOVSB, is off.
    ("__x86_string_control", 0),
)
DEFAULT_NAMES = frozenset(name for name, _ in GLIBC_X86_DEFAULTS)

# Failure functions that never return, which a routine as it lives in its
# tree may call (glibc's _chk entry points call __chk_fail, stack-protected
# code __stack_chk_fail). The gate lets a submission reference them and
# links each to a stub of the harness (harness/engine/noreturn.h, whose
# MG_NORETURN_FUNCTIONS lists the same names): reaching one is the finding
# "called NAME" (class crash), never the C library's abort.
NORETURN_FAILURES = ("__chk_fail", "__fortify_fail", "__stack_chk_fail", "__stack_chk_fail_local",
                     "__assert_fail", "abort")
NORETURN_PREFIX = "mg_noreturn_"


class BuildProblem(Exception):
    """The submission breaks a build-time rule: one line, exit 2."""


def c_string(text):
    """`text` as a C string literal: printable ASCII kept, everything else
    (quotes, backslashes, UTF-8 bytes) as octal escapes."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if 0x20 <= byte < 0x7F and ch not in '"\\?':
            out.append(ch)
        else:
            out.append("\\%03o" % byte)
    return '"' + "".join(out) + '"'


def parse_extern(text):
    """NAME=VALUE (VALUE an integer, decimal or 0x hex) -> (name, value)."""
    name, eq, value = text.partition("=")
    if not eq or not IDENTIFIER.match(name):
        raise ValueError(f"--extern '{text}' is not NAME=VALUE with NAME a C identifier")
    try:
        number = int(value, 0)
    except ValueError:
        raise ValueError(f"--extern {name}: value '{value}' is not an integer") from None
    if not -(2**63) <= number < 2**64:
        raise ValueError(f"--extern {name}: value {value} does not fit in 64 bits")
    return name, number


# A range's values between its ends and their neighbours: powers of two,
# at most this many, spread evenly over the range's doublings.
RANGE_SPREAD = 3


def range_values(lo, hi):
    """The values --extern NAME=LO..HI runs: both ends, the value next to
    each inside the range, and up to RANGE_SPREAD powers of two between,
    evenly over its doublings (a routine that breaks at one end, or only
    where the value crosses a power of two, is run there), smallest first."""
    ends = {lo, min(lo + 1, hi), max(hi - 1, lo), hi}
    inner = [1 << k for k in range(max(lo, 1).bit_length(), 64) if lo + 1 < 1 << k < hi - 1]
    if len(inner) > RANGE_SPREAD:
        step = (len(inner) - 1) / (RANGE_SPREAD - 1)
        inner = [inner[round(i * step)] for i in range(RANGE_SPREAD)]
    return sorted(ends | set(inner))


def parse_extern_values(text):
    """NAME=V1,V2,... or NAME=LO..HI -> (name, [values], (lo, hi) or None):
    each value as parse_extern takes it, none twice; a range's values are
    range_values'."""
    name, eq, values = text.partition("=")
    if eq and ".." in values:
        lo_text, _, hi_text = values.partition("..")
        lo, hi = parse_extern(f"{name}={lo_text}")[1], parse_extern(f"{name}={hi_text}")[1]
        if lo >= hi:
            raise ValueError(f"--extern {name}={values}: a range LO..HI needs LO below HI")
        return name, range_values(lo, hi), (lo, hi)
    parsed = [parse_extern(f"{name}={v}")[1] for v in values.split(",")] if eq else [parse_extern(text)[1]]
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"--extern {name}: a value is given twice")
    return name, parsed, None


def extern_source(externs):
    """A C file defining each --extern data symbol with its value."""
    lines = ["/* scripts/gate --extern: the data symbols the submission may reference. */"]
    for name, value in externs:
        lines.append(f"long long {name} __attribute__((aligned(16))) = {value}LL;"
                     if value < 2**63 else
                     f"unsigned long long {name} __attribute__((aligned(16))) = {value}ULL;")
    return "\n".join(lines) + "\n"


def defaults_source(given):
    """A C file defining, weakly, each glibc x86 data symbol not in `given`
    (the --extern names): `long`, as glibc declares them."""
    lines = ["/* scripts/gate: glibc's x86 tuning data, as glibc 2.36 sets it for a",
             " * 32 KiB L1d, 1 MiB L3 per thread (override with --extern NAME=VALUE). */"]
    for name, value in GLIBC_X86_DEFAULTS:
        if name not in given:
            lines.append(f"__attribute__((weak, aligned(16))) long {name} = {value}L;")
    return "\n".join(lines) + "\n"


def split_member(path):
    """(archive, member) for ARCHIVE.a(MEMBER.o), else None."""
    m = MEMBER.match(path)
    return (m.group("archive"), m.group("member")) if m else None


def safe_name(index, path):
    """A name for the build's copy of a source: no spaces or letters the
    Makefile or a shell could split or mangle."""
    member = split_member(path)
    base = os.path.basename(path) if not member else os.path.basename(member[0])[:-2] + "-" + member[1]
    stem, ext = os.path.splitext(base)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem) or "source"
    return f"{index}-{stem}{ext}"


def capture(argv, timeout=120, env=None, cwd=None):
    """(status, output) of a short helper command, run under procs."""
    import tempfile
    with tempfile.TemporaryFile() as out:
        try:
            result = procs.run(argv, stdout=out, stderr=out, timeout=timeout, env=env, cwd=cwd)
        except OSError as e:
            return 127, f"{argv[0]}: {e.strerror or e}"
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if result.timed_out:
        return 124, text + f"\n{argv[0]} did not finish in {timeout} s"
    return result.returncode, text


def binutils(cc):
    """The nm, objcopy and objdump that read what `cc` produces: the ones it
    names for its target, else LLVM's, which read every arch."""
    return dict(_binutils(cc))


@functools.lru_cache(maxsize=None)
def _binutils(cc):
    tools = []
    for tool in ("nm", "objcopy", "objdump"):
        rc, out = capture(shlex.split(cc) + [f"-print-prog-name={tool}"], timeout=30)
        tools.append((tool, out.strip() if rc == 0 and out.strip() else tool))
    return tuple(tools)


def usable(tools, obj):
    """`tools`, or LLVM's where its nm cannot read `obj`. Asked once per
    object as it is (a gate asks for each of its readings)."""
    try:
        st = os.stat(obj)
        state = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        state = None
    return dict(_usable(tuple(tools.items()), obj, state))


@functools.lru_cache(maxsize=None)
def _usable(tools, obj, _state):
    tools = dict(tools)
    rc, _ = capture([tools["nm"], obj], timeout=60)
    if rc == 0:
        return tuple(tools.items())
    if shutil.which("llvm-nm"):
        return (("nm", "llvm-nm"), ("objcopy", "llvm-objcopy"),
                ("objdump", "llvm-objdump" if shutil.which("llvm-objdump") else tools["objdump"]))
    return tuple(tools.items())


def symbols(tools, obj, which):
    """Global symbols of `obj`: which="defined" or "undefined"."""
    flag = "--defined-only" if which == "defined" else "--undefined-only"
    rc, out = capture([tools["nm"], flag, "-g", obj], timeout=60)
    if rc != 0:
        raise BuildProblem(f"nm cannot read {obj}: {out.strip().splitlines()[-1] if out.strip() else rc}")
    names = []
    for line in out.splitlines():
        fields = line.split()
        if fields:
            names.append(fields[-1])
    return names


def local_symbols(tools, obj):
    """Local (file-scope) symbols `obj` defines: static functions and
    labels without .globl."""
    rc, out = capture([tools["nm"], "--defined-only", obj], timeout=60)
    if rc != 0:
        return []
    names = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[-2].islower() and fields[-2] not in ("w", "v"):
            names.append(fields[-1])
    return names


def missing_entry(tools, obj, symbol, defined, where=""):
    """Why `symbol` cannot be an entry point of `obj` (one line, `where`
    after the name: " in f.S"), or None. A local symbol defined once can
    be one (compile_object makes it global); defined in several files, it
    is ambiguous."""
    if symbol in defined:
        return not_code(tools, obj, symbol, where)
    shown = ", ".join(s for s in defined if s not in DEFAULT_NAMES) or "nothing"
    copies = local_symbols(tools, obj).count(symbol)
    if copies == 1:
        return not_code(tools, obj, symbol, where)
    if copies > 1:
        return (f"symbol '{symbol}' is local{where} and defined {copies} times (a static function or a "
                f"label without .globl in several files): which one is the entry point is ambiguous")
    return f"symbol '{symbol}' is not defined{where} (it defines: {shown})"


def global_functions(merged, cc):
    """The global code symbols `merged` defines (not glibc's tuning data the
    harness provides), in nm's order: the candidates for an entry point."""
    tools = usable(binutils(cc), merged)
    rc, out = capture([tools["nm"], "--defined-only", "-g", merged], timeout=60)
    if rc != 0:
        return []
    names = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[-2] in CODE_LETTERS.upper() and fields[-1] not in DEFAULT_NAMES:
            names.append(fields[-1])
    return names


# nm's letters for symbols in code (a text section), upper case global,
# lower case local; W is a weak symbol, which nm marks W for code and V for
# data.
CODE_LETTERS = "TtWw"
DATA_WORDS = {"d": "initialised data", "b": "zero-initialised data (bss)", "r": "read-only data",
              "v": "a weak data object", "c": "a common data symbol", "g": "small initialised data",
              "s": "small zero-initialised data", "a": "an absolute value", "i": "an indirect function (ifunc)",
              "u": "a unique global data symbol"}


def not_code(tools, obj, symbol, where=""):
    """Why `symbol`, defined in `obj`, cannot be an entry point because it
    is no code (a table or a variable: gated as code, its bytes would run),
    or None."""
    rc, out = capture([tools["nm"], "--defined-only", obj], timeout=60)
    if rc != 0:
        return None
    letters = {f[-2] for f in (line.split() for line in out.splitlines()) if len(f) >= 2 and f[-1] == symbol}
    if not letters or letters & set(CODE_LETTERS):
        return None
    letter = sorted(letters)[0]
    return (f"symbol '{symbol}'{where} is not a function: nm says it is {DATA_WORDS.get(letter.lower(), 'no code')} "
            f"('{letter}'), not code in a text section")


def globalize(tools, obj, symbols_, defined):
    """Makes each local entry point of `obj` global, in place (the kernel's
    memcpy_orig, memset_erms are local labels), and lists them in
    OBJ's directory, `locals`, for the gate's report. Returns 0 or
    objcopy's status."""
    local = [s for s in symbols_ if s not in defined]
    with open(os.path.join(os.path.dirname(obj), "locals"), "w") as f:
        f.writelines(s + "\n" for s in local)
    if not local:
        return 0
    return os.spawnvp(os.P_WAIT, tools["objcopy"],
                      [tools["objcopy"]] + [f"--globalize-symbol={s}" for s in local] + [obj])


def relocated(tools, obj):
    """The symbols a relocation of `obj` refers to: what its code or data
    really uses. An undefined name none refers to is an assembler constant
    that was never defined (GNU as keeps `.if (0) & (NAME)` so)."""
    rc, out = capture([tools["objdump"], "-r", obj], timeout=120)
    if rc != 0:
        raise BuildProblem(f"objdump cannot read the relocations of {obj}: {out.strip()[-200:]}")
    names = set()
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+\s+\S+\s+([^+\-\s]+)", line)
        if m:
            names.add(m.group(1))
    return names


# Sections whose relocations are no use of the datum by the routine: debug
# information and unwind tables name every variable they describe.
NOT_USES = re.compile(r"^\.(rela?\.)?(debug|eh_frame|comment|note|stab|gnu_debug)")


def data_reads(tools, obj):
    """The symbols a relocation of `obj`'s code or data refers to (the
    routine loads from or points at them), without debug information's and
    unwind tables' relocations."""
    rc, out = capture([tools["objdump"], "-r", obj], timeout=120)
    if rc != 0:
        raise BuildProblem(f"objdump cannot read the relocations of {obj}: {out.strip()[-200:]}")
    names, counted = set(), True
    for line in out.splitlines():
        head = re.match(r"^RELOCATION RECORDS FOR \[([^\]]+)\]", line)
        if head:
            counted = not NOT_USES.match(head.group(1))
            continue
        m = re.match(r"^[0-9a-f]+\s+\S+\s+([^+\-\s]+)", line)
        if m and counted:
            names.add(m.group(1))
    return names


def system_calls(tools, obj):
    """The system-call instructions in `obj`, each as 'insn at symbol+0xOFF'."""
    rc, out = capture([tools["objdump"], "-d", obj], timeout=120)
    if rc != 0:
        raise BuildProblem(f"objdump cannot disassemble {obj}: {out.strip()[-200:]}")
    found, symbol, start = [], "?", 0
    for line in out.splitlines():
        head = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if head:
            symbol, start = head.group(2), int(head.group(1), 16)
            continue
        insn = SYSCALL_RE.search(line)
        at = re.match(r"^\s*([0-9a-f]+):", line)
        if insn and at:
            mnemonic = re.sub(r"\s+", " ", insn.group(1))
            found.append(f"{mnemonic} at {symbol}+{int(at.group(1), 16) - start:#x}")
    return found


def tree_flags(out):
    """The submitter's own build flags (-I, -D, --cflags), which scripts/gate
    keeps in the build directory's `cflags` file, one argument a line."""
    try:
        with open(os.path.join(os.path.dirname(out), "cflags"), encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if line.rstrip("\n")]
    except FileNotFoundError:
        return []


def compile_object(out, symbols_, cc, cflags, sources):
    """Compiles the sources (objects are taken as they are), merges them
    (OUT.parts/merged.o) and writes OUT with every defined global renamed
    mg_gate_*. SYMBOLS is one entry point or several, comma-separated.
    Returns the exit status for scripts/gate-compile: 0, 1 (a compiler
    error), 3 (an entry point is not defined)."""
    parts = os.path.join(os.path.dirname(out), os.path.basename(out)[:-2] + ".parts")
    shutil.rmtree(parts, ignore_errors=True)
    os.makedirs(parts)
    objs, compiles = [], []
    own = tree_flags(out)
    for index, src in enumerate(sources):
        if src.endswith(".o"):
            objs.append(src)
            continue
        obj = os.path.join(parts, f"{index}-{os.path.splitext(os.path.basename(src))[0]}.o")
        # Assembly gets only the include paths of the gate's flags (a .S may
        # include harness/arch/asmdefs.h, as the tree's own variants do)
        # and the ISA it is built for (riscv64: -march, from --requires);
        # the submitter's tree flags reach every file.
        flags = [f for f in shlex.split(cflags) if src.endswith(".c") or f.startswith(("-I", "-march="))]
        # memgate's own code is built with -Werror; a submitter's warnings
        # are theirs to read (the gate shows them), not a refusal. Their
        # own -Werror, among their tree's flags, still holds.
        flags += ["-Wno-error"] if src.endswith(".c") else []
        flags += own
        # -MD: the files the compiler read, for gate_prebuilt.
        argv = shlex.split(cc) + flags + ["-MD", "-MF", obj[:-2] + ".d", "-c", "-o", obj, src]
        rc = os.spawnvp(os.P_WAIT, argv[0], argv)
        if rc != 0:
            return 1
        compiles.append(argv)
        objs.append(obj)
    merged = os.path.join(parts, "merged.o")
    # The compiler driver merges, so the linker gets the arch's emulation
    # (the host's plain `ld -r` refuses i386 objects).
    if os.spawnvp(os.P_WAIT, shlex.split(cc)[0], shlex.split(cc) + ["-r", "-nostdlib", "-o", merged] + objs) != 0:
        return 1
    tools = usable(binutils(cc), merged)
    write_commands(parts, cc, compiles, tools)
    defined = symbols(tools, merged, "defined")
    for symbol in symbols_.split(","):
        why = missing_entry(tools, merged, symbol, defined, f" in {' '.join(sources)}")
        if why:
            print(f"gate: {why}", file=sys.stderr)
            return 3
    if globalize(tools, merged, symbols_.split(","), defined) != 0:
        return 1
    defined = symbols(tools, merged, "defined")
    failures = [s for s in symbols(tools, merged, "undefined") if s in NORETURN_FAILURES]
    renames = os.path.join(parts, "renames")
    with open(renames, "w") as f:
        f.writelines(f"{name} mg_gate_{name}\n" for name in defined)
        f.writelines(f"{name} {NORETURN_PREFIX}{name}\n" for name in failures)
    return os.spawnvp(os.P_WAIT, tools["objcopy"], [tools["objcopy"], f"--redefine-syms={renames}", merged, out])


def write_commands(parts, cc, compiles, tools):
    """parts/commands.json: the compile commands, the driver and binutils,
    for gate_prebuilt (which asks the driver for the programs it runs only
    when it records the build: not on the way to a refusal)."""
    with open(os.path.join(parts, "commands.json"), "w", encoding="utf-8") as f:
        json.dump({"compiles": compiles, "cc": cc, "binutils": list(tools.values())}, f, indent=1)


def tool_files(cc, binutils_names):
    """The real files of the driver, the programs it runs (cc1, as, ld,
    collect2) and binutils."""
    names = [shlex.split(cc)[0]] + list(binutils_names)
    for prog in ("cc1", "as", "ld", "collect2"):
        rc, out = capture(shlex.split(cc) + [f"-print-prog-name={prog}"], timeout=30)
        if rc == 0 and out.strip():
            names.append(out.strip())
    return sorted({os.path.realpath(shutil.which(n) or n) for n in names if shutil.which(n) or os.path.isabs(n)})


def inspect(merged, cc, entry_symbols, allowed, where=""):
    """The build-time rules on the merged object, before renaming: a list of
    one-line problems (empty: none). `entry_symbols`: one name or a list."""
    tools = usable(binutils(cc), merged)
    problems = []
    defined = symbols(tools, merged, "defined")
    for symbol in [entry_symbols] if isinstance(entry_symbols, str) else entry_symbols:
        why = missing_entry(tools, merged, symbol, defined, where)
        if why:
            return [why]
    undefined = [s for s in symbols(tools, merged, "undefined")
                 if s not in LINKER_SYMBOLS and s not in allowed and s not in NORETURN_FAILURES]
    referenced = relocated(tools, merged)
    constants = sorted({s for s in undefined if s not in referenced})
    undefined = [s for s in undefined if s in referenced]
    if constants:
        problems.append("uses assembler constants it does not define: " + ", ".join(constants)
                        + " (names in an expression, such as an .if, that no instruction or datum refers to: "
                        "constants of its tree's headers, to give with -D NAME=VALUE or their header with -I; "
                        "not data for --extern)")
    if undefined:
        problems.append("references symbols it does not define: " + ", ".join(sorted(set(undefined)))
                        + " (a routine calls nothing but the failure functions " + ", ".join(NORETURN_FAILURES)
                        + "; only data symbols given with --extern NAME=VALUE, and on x86 glibc's tuning data, may be referenced)"
                        + string_call_hint(undefined))
    calls = system_calls(tools, merged)
    if calls:
        problems.append("makes system calls: " + ", ".join(calls))
    return problems


def string_call_hint(undefined):
    """What to write instead of a call of memcpy, memmove or memset, which a
    C submission makes with a fixed-size copy (memcpy(&w, p, 8)) since it is
    built with -fno-builtin, so that no loop of it becomes such a call."""
    called = sorted({s for s in undefined if s in ("memcpy", "memmove", "memset")})
    if not called:
        return ""
    name = called[0]
    return (f"; {', '.join(called)}: C submissions are built with -fno-builtin, so that no loop becomes a call of "
            f"the routine under test; for a fixed-size copy write __builtin_{name}(...), which the compiler "
            f"inlines (e.g. __builtin_memcpy(&w, p, 8) for an unaligned word)")


def main(argv):
    """scripts/gate-compile OUT.o SYMBOL CC "CFLAGS" SOURCE..."""
    if len(argv) < 5:
        print("usage: scripts/gate-compile OUT.o SYMBOL CC CFLAGS SOURCE...", file=sys.stderr)
        return 2
    out, symbol, cc, cflags = argv[:4]
    return compile_object(out, symbol, cc, cflags, argv[4:])

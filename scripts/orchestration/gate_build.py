"""Building a submission into the harness: the shared build, the run's
own build and results directories, the copies of the submitted files, the
build-time rules on the compiled object, and the link."""

import datetime
import fcntl
import os
import re
import shutil
import sys
import tempfile
import time

from . import gate_cache, kernel_shim, procs, submission, workspace
from .check_result import Check
from .gate_context import gate_cc
from .gate_options import FEATURE_BITS, OPS, die
from .records import CouldNotJudge

BUILD_TIMEOUT = 900


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
    # On every core: a gate's own build is three flavours of the submission
    # and of the table, and six programs to link (13 s one at a time here).
    argv = (["make", "--no-print-directory", "-s", f"-j{os.cpu_count() or 1}"] + ctx.make_arch + list(extra)
            + targets)
    with open(log, "ab") as out:
        result = procs.run(argv, stdout=out, stderr=out, timeout=BUILD_TIMEOUT)
    if result.timed_out:
        die(f"the build did not finish in {BUILD_TIMEOUT} s (see {log})")
    return result.returncode == 0


def list_table(ctx, which="all"):
    rc, out = submission.capture(ctx.runner + [f"{ctx.B}/memgate", "list", f"--set={which}", "--tsv"], timeout=120)
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
            # A fresh clone has no build/ARCH: this builds it; when it cannot,
            # one line says what to run to see why.
            arch = f" for {ctx.foreign}" if ctx.foreign else ""
            die(f"memgate itself does not build{arch}: run make{' ARCH=' + ctx.foreign if ctx.foreign else ''} to see why")
    ctx.table = list_table(ctx)
    ctx.main_set = {row[0] for row in list_table(ctx, "main")}
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
    make_build_dir(ctx)
    make_results(ctx)


def make_build_dir(ctx):
    parent = os.path.join("build", "gate", *([ctx.foreign] if ctx.foreign else []))
    try:
        os.makedirs(parent, exist_ok=True)
        ctx.W = os.path.relpath(tempfile.mkdtemp(prefix=f"{ctx.name}-", dir=parent))
    except OSError as e:
        die(f"cannot create a build directory under {parent}: {e.strerror or e}")


def keep_sources(ctx, given):
    """A cached verdict's results folder: the files as copy_sources keeps
    them (ctx.files), without a build."""
    make_build_dir(ctx)
    try:
        copy_sources(ctx, given)
    finally:
        shutil.rmtree(ctx.W, ignore_errors=True)


def make_results(ctx):
    """This run's results directory (unique), a folder per entry point
    when there are several."""
    results = gate_cache.results_root()
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
    ctx.sources, ctx.files, ctx.source_dirs, ctx.given = [], [], [], []
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
            where = os.path.dirname(os.path.abspath(path))
            if where not in ctx.source_dirs:
                ctx.source_dirs.append(where)
        ctx.sources.append(build_copy)
        # The user's own file, which a standalone reproducer is built from
        # (orchestration.emit_build); an archive's member has none.
        ctx.given.append("" if member else os.path.abspath(path))
        rel = os.path.relpath(os.path.abspath(path))
        if rel.startswith("..") or member:
            os.makedirs(os.path.join(ctx.root_R, "sources"), exist_ok=True)
            base = os.path.basename(build_copy)[len(f"{index}-"):] if member else os.path.basename(path)
            kept = os.path.join(ctx.root_R, "sources", base)
            if os.path.exists(kept):  # two files of one name
                kept = os.path.join(ctx.root_R, "sources", f"{index}-{base}")
            copy_checked(build_copy if member else path, kept)
            rel = os.path.relpath(os.path.abspath(kept))
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
            e["op"], {"page": "MG_RET_VOID", "usercopy": "MG_RET_UNCOPIED"}.get(e["family"], "MG_RET_DST"))
        conv = ctx.opts.get("convention")
        conv = submission.c_string(conv) if conv else "NULL"
        lines.append(f"MG_SUBMITTED({ctx.arch}, {e['name']}, mg_gate_{e['symbol']}, {OPS[e['op']][0]}, {ret}, "
                     f"{contract_macro(ctx, e)}, {features}, {conv}, {about})\n")
    families = sorted({e["family"] for e in ctx.entries})
    files = {"sources": "\n".join(ctx.sources) + "\n", "given": "".join(g + "\n" for g in ctx.given),
             "symbol": ",".join(e["symbol"] for e in ctx.entries) + "\n",
             "family": " ".join(families) + "\n", "submitted.def": "".join(lines)}
    # The submitter's tree flags go to scripts/gate-compile (`cflags`); the
    # contract's flags to the Makefile (`contract-cflags`): each once.
    # A file's #include "sibling" is looked for beside the file as given
    # (the copy is built elsewhere): arm64's copy_from_user.S includes
    # copy_template.S, a C file a header of its own.
    quoted = ["-iquote" + d for d in ctx.source_dirs]
    flags = kernel_flags(ctx) + quoted + ctx.opts["tree_flags"]
    if flags:
        files["cflags"] = "".join(flag + "\n" for flag in flags)
    # Kernel code is built without vector, x87 or FP/SIMD registers, as
    # the kernel builds its own (x86-64, arm64), so that the compiler's
    # own vectorising is not blamed on the routine's author (one build for
    # every entry: any kernel entry asks it).
    arch = ctx.host if ctx.arch == "generic" else ctx.arch
    kernel = any(e["contract"] == "kernel" for e in ctx.entries)
    no_fpu = kernel and "fpu" not in ctx.requires and arch in ("x86_64", "aarch64")
    flags = ["-mgeneral-regs-only"] if no_fpu else []
    if arch == "riscv64":
        flags.append(riscv_march(ctx.requires))
    if arch == "armhf":
        flags.append(armhf_fpu(ctx.requires))
    files["contract-cflags"] = " ".join(flags) + "\n"
    for name, text in files.items():
        with open(os.path.join(ctx.W, name), "w") as f:
            f.write(text)


def riscv_march(requires):
    """riscv64 code is built for RV64GC and what it declares (--requires
    v, zba, zbb, zbs), so that the compiler vectorises a C routine only
    where its author said V is there, and an assembly routine that uses
    an extension it does not declare is told so by the assembler. One
    that turns it on itself (.option arch) dies under the RV64GC model."""
    extensions = [f for f in ("v", "zba", "zbb", "zbs") if f in requires]
    return "-march=rv64gc" + "".join(("" if f == "v" else "_") + f for f in extensions)


def armhf_fpu(requires):
    """armhf code is built for Debian's baseline, VFPv3-D16, and what it
    declares: neon (which brings d16-d31) or vfpd32 alone. The compiler
    then uses NEON and d16-d31 only where the author said the CPU has them,
    and an assembly routine that uses them undeclared is told so by the
    assembler; one that turns them on itself (.fpu neon) is caught by the
    ISA audit, and dies under the VFPv3-D16 model."""
    if "neon" in requires:
        return "-mfpu=neon"
    return "-mfpu=vfpv3" if "vfpd32" in requires else "-mfpu=vfpv3-d16"


def kernel_flags(ctx):
    """With --kernel: the shim, and an empty stand-in, in this build, for
    each header the files include (made from their #include lines)."""
    if not ctx.opts.get("kernel"):
        return []
    incdir = os.path.abspath(os.path.join(ctx.W, "kernel-include"))
    kernel_shim.stub_includes([s for s in ctx.sources if s.endswith((".S", ".s", ".c"))], incdir)
    return ["-I" + incdir, "-include", kernel_shim.SHIM]


def show_compiler(ctx, log, given):
    """The compiler's messages, with the build's copies named as given."""
    try:
        text = open(log, encoding="utf-8", errors="replace").read()
    except OSError:
        text = ""
    for src, name in zip(ctx.sources, given):
        text = text.replace(src, name)
    # make's own lines ("make: *** [Makefile:366: build/gate/...] Error 1")
    # name memgate's build, not the submitter's code.
    lines = [l for l in text.splitlines()
             if re.search(r"error|Error|undefined reference|not recognized|No such file|cannot find", l)
             and not l.startswith(("make: ", "make["))]
    return "\n".join(lines[:20])


def does_not_build(ctx, log, given):
    """Ends the run (exit 2) with one line saying what to do, then the
    compiler's messages."""
    die(f"{' '.join(given)} does not build, so nothing was judged: fix what the compiler says below "
        f"and run the gate again\n{show_compiler(ctx, log, given)}")


def compiler_warnings(ctx, log, given):
    """The compiler's warnings on the submitted files (FILE:LINE:COL:
    warning: ...; not the linker's on the merged object), the files named
    as the user named them."""
    try:
        text = open(log, encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    for src, name in zip(ctx.sources, ctx.opts.get("submitted") or given):
        text = text.replace(src, name)
    return [line for line in text.splitlines() if re.match(r"\S+:\d+:\d+: warning: ", line)]


def show_warnings(ctx):
    """The compiler's warnings, on stderr, once the build-time rules have
    passed (a refusal stays one line): the submitter's to read, never a
    verdict (a submission is built with -Wno-error)."""
    warned = getattr(ctx, "compiler_warned", [])
    for line in warned[:5]:
        print(f"gate: the compiler warns (not a verdict): {line}", file=sys.stderr)
    if len(warned) > 5:
        # The results keep the compiler's log: an accepted run's build
        # directory is removed at its end, and the line must still work.
        log = os.path.join(ctx.root_R, "build.log")
        try:
            shutil.copyfile(os.path.join(ctx.W, "build.log"), log)
        except OSError:
            log = os.path.join(ctx.W, "build.log")
        print(f"gate: ... and {len(warned) - 5} more warnings in {workspace.CURRENT.shown(log)}", file=sys.stderr)
    ctx.compiler_warned = []


def named_by_file(ctx):
    """Whether the entry point is the default one: named after the file,
    neither --symbol nor --entry given."""
    return bool(ctx.opts.get("symbol_from_file")) and len(ctx.entries) == 1


def adopt_entry(ctx, symbol, names):
    """The file defines one function, not the one named after it: that is
    the one gated, and a line says so (issue 44)."""
    shown = " ".join(ctx.opts.get("submitted") or []) or names
    print(f"gate: {shown} defines one function, {symbol}, not {ctx.symbol}: gating {symbol} "
          "(--symbol names the entry point)", file=sys.stderr)
    taken = {row[0] for row in ctx.table}
    entry = ctx.entries[0]
    guessed = entry["name"]
    entry["symbol"] = symbol
    entry["name"] = symbol if symbol not in taken else f"{symbol}_submitted"
    ctx.opts["symbol"] = symbol
    ctx.opts["entries"] = [(entry["op"], symbol)]
    rename_dirs(ctx, guessed, entry["name"])
    ctx.select(entry)


def rename_dirs(ctx, old, new):
    """The run's build and results directories, made before the build
    under the name guessed from the file (`old`), named after the entry
    point gated (`new`), as the variant and every later build are: one
    name for the run's folders. Each is renamed onto a fresh empty
    directory of the new name (rename(2) replaces an empty one), so no
    other gate can take the name; the paths into them are moved with them.
    A rename that fails leaves the old name (it is a name only)."""
    w = renamed(ctx.W, f"{new}-")
    if w:
        ctx.sources = [moved(p, ctx.W, w) for p in ctx.sources]
        ctx.W = w
    base = os.path.basename(os.path.normpath(ctx.root_R))
    when = base[len(old) + 1:].rsplit("-", 1)[0] if base.startswith(f"{old}-") else stamp()
    r = renamed(ctx.root_R, f"{new}-{when}-")
    if r:
        ctx.files = [moved(p, ctx.root_R, r) for p in ctx.files]
        for e in ctx.entries:
            e["R"] = moved(e["R"], ctx.root_R, r)
        ctx.root_R = r


def renamed(path, prefix):
    """`path` renamed to a new directory PREFIXXXXXXXXX beside it, named
    as `path` is (relative or absolute); None when it cannot be."""
    fresh = None
    try:
        fresh = tempfile.mkdtemp(prefix=prefix, dir=os.path.dirname(path) or ".")
        os.rename(path, fresh)
    except OSError:
        if fresh:
            shutil.rmtree(fresh, ignore_errors=True)
        return None
    return fresh if os.path.isabs(path) else os.path.relpath(fresh)


def moved(path, old, new):
    """`path` as it is named after directory `old` became `new` (relative
    or absolute, as it was); a path outside `old` as it is."""
    full, top = os.path.abspath(path), os.path.abspath(old)
    if full != top and not full.startswith(top + os.sep):
        return path
    there = os.path.join(os.path.abspath(new), os.path.relpath(full, top)) if full != top else os.path.abspath(new)
    return there if os.path.isabs(path) else os.path.relpath(there)


def compile_submission(ctx, given):
    """Compiles and merges the submission into this build directory (Usage,
    exit 2, if it does not build): what the verdict cache hashes
    (gate_cache.code_hash). Returns seconds."""
    copy_sources(ctx, given)
    names = " ".join(given)
    t = time.monotonic()
    while True:
        log = os.path.join(ctx.W, "build.log")  # adopt_entry renames the build directory
        write_build_files(ctx)
        if make(ctx, [f"{ctx.W}/plain.o"], log, gate_vars(ctx)):
            break
        missing = entry_not_defined(ctx, names)
        if not missing:
            does_not_build(ctx, log, given)
        functions = submission.global_functions(merged_of(ctx), gate_cc(ctx)) if named_by_file(ctx) else []
        if len(functions) != 1 or functions[0] == ctx.symbol:
            die(missing + ("; name the one to gate with --symbol NAME" if named_by_file(ctx) else ""))
        adopt_entry(ctx, functions[0], names)
    ctx.compiler_warned = compiler_warnings(ctx, log, given)
    local = local_entries(ctx)
    for e in ctx.entries:
        e["binding"] = "local" if e["symbol"] in local else "global"
    ctx.compiled = (ctx.W, time.monotonic() - t)
    return ctx.compiled[1]


def merged_of(ctx):
    return os.path.join(ctx.W, "plain.parts", "merged.o")


def entry_not_defined(ctx, names):
    """Why the compile step failed when it is an entry point the merged
    object lacks (one line), else None."""
    if not os.path.exists(merged_of(ctx)):
        return None
    problems = submission.inspect(merged_of(ctx), gate_cc(ctx), [e["symbol"] for e in ctx.entries],
                                  [n for n, _ in ctx.opts["extern"]], f" in {names}")
    return problems[0] if problems and problems[0].startswith("symbol ") else None


def check_rules(ctx, given):
    """The build-time rules on the compiled submission (Usage, exit 2, one
    line each), once per build directory."""
    if getattr(ctx, "rules_checked", None) == ctx.W:
        return
    symbols = [e["symbol"] for e in ctx.entries]
    try:
        problems = submission.inspect(os.path.join(ctx.W, "plain.parts", "merged.o"), gate_cc(ctx), symbols,
                                      [n for n, _ in ctx.opts["extern"]])
    except submission.BuildProblem as e:
        die(str(e))
    if problems:
        # One line each; main() puts "gate: " before the first.
        die("\ngate: ".join(f"{' '.join(given)} {p}" for p in problems))
    ctx.rules_checked = ctx.W
    show_warnings(ctx)


def native_fuzzers(ctx):
    """Whether this run builds the coverage-guided fuzzers (the fuzz check
    natively; on a foreign arch it is the random-case driver)."""
    return not ctx.skipped("fuzz") and not ctx.foreign


def gate_vars(ctx):
    yes = lambda b: "yes" if b else "no"
    return [f"GATE={ctx.W}", f"GATE_FUZZ={yes(native_fuzzers(ctx))}",
            f"GATE_RANDOM={yes(not ctx.skipped('fuzz'))}"]


def build(ctx, given):
    """Compiles the submission (unless compile_submission did, into this
    build directory), checks the build-time rules on it, then links this
    run's programs. Usage (exit 2) on any problem. Returns seconds."""
    done = getattr(ctx, "compiled", None)
    seconds = done[1] if done and done[0] == ctx.W else compile_submission(ctx, given)
    log = os.path.join(ctx.W, "build.log")
    t = time.monotonic()
    check_rules(ctx, given)
    # Without fuzzers what the builds share is the tree's build, which
    # prepare() made.
    if native_fuzzers(ctx):
        with Lock():
            if not make(ctx, ["gate-shared"], log, gate_vars(ctx)):
                does_not_build(ctx, log, given)
    if not make(ctx, ["gate-build"], log, gate_vars(ctx)):
        does_not_build(ctx, log, given)
    return seconds + time.monotonic() - t


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
    return Check("build", "pass", 0, seconds, note)

"""scripts/zoo: gates every copy, move and clear routine this machine's own
Debian packages ship, at their installed versions, straight from the
packages (no copies in the repository): glibc's libc.a for x86-64, i386 and
aarch64, musl's libc.a, and the Linux kernel's arch/x86/lib and
arch/arm64/lib routines from the linux-source tarball, built with
zoo/kernel/shim.h in place of the kernel's macros, one row per alternative.

It prints one row per routine (source, entry, arch, verdict, warnings,
seconds) and the wall time per arch and per routine, and writes the same as
JSON (zoo.json) and as a static HTML page (zoo.html) with each routine's
speed plot, in the output folder (build/zoo unless --out).

Exit status: 0 every routine accepted (with or without warnings) or skipped
for a CPU feature this machine lacks; 1 some routine rejected; 2 bad usage,
or some routine could not be judged (its row says why)."""

import concurrent.futures
import hashlib
import html
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from . import cli, cpu_models, gate_options, isa_features, kernel_shim, procs, records, workspace, zoo_found, zoo_isa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = "memgate-zoo/1"
SHIM = kernel_shim.SHIM
USAGE = """\
scripts/zoo [--list] [--audit-only] [--only REGEX] [--sources glibc,musl,kernel] [--arch ARCH,...]
            [--seconds N] [--emulated-factor N] [--quick] [--jobs N] [--out DIR]
            [--gate-arg ARG]...

Finds every copy, move and clear routine of the installed glibc (libc.a for
x86_64, i386, aarch64), musl and linux-source packages, gates each (one
scripts/gate run per object or kernel alternative, --seconds per entry
point, default 40; --jobs at a time, default: one per core) and writes DIR/zoo.json, DIR/zoo.html and
DIR/zoo.txt (DIR: build/zoo). --seconds per entry point (an object with
three gets it three times over), times --emulated-factor (default 3) for
aarch64 under qemu, orders the runs and bounds each gate at three times
it and 900 s; the gate gets it as N+, its own default deadline or more. --list prints what it found and gates
nothing. --audit-only runs the static audits alone on every routine (no
harness build, no fuzzing; OUT/zoo-isa.json, OUT/zoo-isa.txt): the ISA
audit, whose minimal --requires it compares with the one the zoo declares,
and on x86 the store-order audit. --only keeps the runs whose name matches REGEX (e.g.
'glibc-x86_64-memmove-erms'). --gate-arg passes ARG to every gate run.

Exit status: 0 every routine accepted or skipped (a CPU feature this
machine lacks), 1 some routine rejected, 2 bad usage or some routine could
not be judged, 128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP)."""

# The operations the gate knows, by the names routines carry.
ROUTINE = re.compile(r"^_*(?:pi_)?(memcpy|memmove|mempcpy|memset|copy_page|clear_page)(?:_([A-Za-z0-9_]+))?$")
# The user copies by name: arm64's, which take the C convention. x86's
# are named by KERNEL_USER_COPIES below (their names are not the ops').
USER_ROUTINE = re.compile(r"^__arch_(copy_from_user|copy_to_user|clear_user)$")
# Variants of these are not routines of the gate's operations: the checked
# (_chk, one argument more) and wide (wmemset) ones.
NOT_ROUTINE = re.compile(r"_chk(_|$)|wmemset")

# Name parts of glibc's x86 variants and the CPU features they assume (the
# ifunc selectors' conditions, sysdeps/x86_64/multiarch/ifunc-*.h).
X86_NAME_FEATURES = (
    ("sse2", ("sse2",)),
    ("ssse3", ("ssse3",)),
    ("avx2", ("avx2",)),
    ("avx", ("avx",)),
    ("evex", ("avx512vl", "avx512bw", "bmi2")),
    ("avx512", ("avx512f", "avx512vl", "avx512bw")),
    ("rtm", ("rtm",)),
)
# The same for glibc's aarch64 variants.
# glibc 2.36's aarch64 selectors (sysdeps/aarch64/multiarch/memset.c,
# memcpy.c) pick a64fx only on an A64FX, whose DC ZVA block is 256 bytes,
# and __memset_falkor only where the block is 64 bytes (zva_size == 64);
# both zero with DC ZVA without reading DCZID_EL0 (objdump shows no mrs of
# it), so run elsewhere they zero a block of another size: a precondition
# the gate expresses as --requires zva256 / zva64 (the CPU models that
# have it), not a bug. __memset_generic reads DCZID_EL0 itself; emag and
# kunpeng do not use DC ZVA.
AARCH64_NAME_FEATURES = (("sve", ("sve",)), ("a64fx", ("sve", "zva256")))
# The same for one operation's variants only: falkor's memcpy uses no DC ZVA.
AARCH64_OP_NAME_FEATURES = (("memset", "falkor", ("zva64",)),)
# glibc 2.36's armhf memcpy selector (sysdeps/arm/armv7/multiarch/
# ifunc-memcpy.h) picks __memcpy_neon on HWCAP_ARM_NEON, else __memcpy_vfp
# where the VFP has it (every armhf CPU), else __memcpy_arm: NEON brings
# d16-d31, which the ISA audit finds __memcpy_neon using.
ARMHF_NAME_FEATURES = (("neon", ("neon",)),)
NAME_FEATURES = {"x86_64": X86_NAME_FEATURES, "i386": X86_NAME_FEATURES, "aarch64": AARCH64_NAME_FEATURES,
                 "armhf": ARMHF_NAME_FEATURES}

# The kernel features the alternatives test, as the gate's --requires names
# them (None: a kernel judgement of speed, not a CPU instruction set).
KERNEL_FEATURES = {"X86_FEATURE_REP_GOOD": None, "X86_FEATURE_ERMS": "erms", "X86_FEATURE_FSRM": "fsrm",
                   "X86_FEATURE_FSRS": "fsrs", "X86_FEATURE_XMM2": "sse2", "ARM64_HAS_NO_HW_PREFETCH": None,
                   "ARM64_HAS_MOPS": "mops", "INTEL_MOVSL_MASK": None}
# A CPU with the first has the second (FSRM is a faster ERMS).
KERNEL_IMPLIES = {"X86_FEATURE_FSRM": "X86_FEATURE_ERMS"}
# Bits of ZOO_CPU, as zoo/kernel/shim.h numbers them.
KERNEL_BITS = {"X86_FEATURE_REP_GOOD": 1 << 0, "X86_FEATURE_ERMS": 1 << 1, "X86_FEATURE_FSRM": 1 << 2,
               "X86_FEATURE_FSRS": 1 << 3, "X86_FEATURE_XMM2": 1 << 4,
               # Not a CPUID bit: what init_intel sets at boot (zoo/kernel/shim_c.h).
               "INTEL_MOVSL_MASK": 1 << 5, "ARM64_HAS_NO_HW_PREFETCH": 1 << 8,
               "ARM64_HAS_MOPS": 1 << 9}

ARCHES = ("x86_64", "i386", "aarch64", "riscv64", "armhf")


Usage = cli.Usage


class Unit:
    """One gate run: a package's object (with the objects it calls) or one
    alternative of a kernel file, with every routine entry point in it."""

    def __init__(self, name, source, arch, inputs, entries, requires=(), flags=(), alternative="", convention=""):
        self.name = name                # unique, a file name: glibc-x86_64-memmove-erms
        self.source = source            # what and which version: "glibc 2.36-9 libc.a(memmove-erms.o)"
        self.arch = arch
        self.inputs = list(inputs)      # the gate's file arguments
        self.entries = list(entries)    # [(op, symbol)]
        self.requires = sorted(set(requires))
        self.flags = list(flags)        # more gate arguments (-I, -D, --cflags)
        self.alternative = alternative  # the kernel CPU it stands for, e.g. "rep_good+erms"
        self.convention = convention    # the gate's --convention, "" for the C convention

    def as_dict(self):
        return {"name": self.name, "source": self.source, "arch": self.arch, "inputs": self.inputs,
                "entries": [{"op": op, "symbol": s} for op, s in self.entries], "requires": self.requires,
                "flags": self.flags, "alternative": self.alternative, "convention": self.convention}


# --- reading archives and objects ----------------------------------------------

def run_text(argv, timeout=300):
    """The output of a tool this program cannot do without: its failure is
    a CouldNotJudge naming it."""
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise records.CouldNotJudge(f"{argv[0]} could not run: {e}") from None
    if done.returncode != 0:
        raise records.CouldNotJudge(f"{' '.join(argv[:3])}… failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode(errors="replace")


def parse_nm(text):
    """`nm -A ARCHIVE` (or OBJECT) lines into {member: [(type, name, address)]},
    and the undefined names {member: set}. Members of an archive are named
    as nm prints them (path:member:); a lone object's member is ''."""
    defined, undefined = {}, {}
    for line in text.splitlines():
        head, sep, rest = line.rpartition(": ") if ": " in line else line.rpartition(":")
        if not sep:
            continue
        parts = head.split(":")
        member = parts[1] if len(parts) >= 2 else ""
        fields = rest.split()
        if len(fields) == 3:
            address, kind, name = fields
            defined.setdefault(member, []).append((kind, name, int(address, 16)))
        elif len(fields) == 2 and fields[0] in ("U", "w"):
            undefined.setdefault(member, set()).add(fields[1])
    return defined, undefined


def routine_op(name):
    """The gate's operation of a routine's name, or None."""
    m = ROUTINE.match(name) or USER_ROUTINE.match(name)
    if not m or NOT_ROUTINE.search(name):
        return None
    return m.group(1)


def entries_of(symbols, primary=()):
    """The routine entry points among an object's defined symbols: global
    code (T or W, not an ifunc resolver 'i'), one per operation and address
    (aliases are the same code): the name in `primary` first, then a strong
    symbol, then the name that is the operation itself, then the first."""
    groups = {}
    for kind, name, address in symbols:
        op = routine_op(name)
        if op and kind in ("T", "W"):
            groups.setdefault((op, address), []).append((kind, name))

    out = []
    for (op, _), names in groups.items():
        def rank(item, op=op):
            kind, name = item
            return (name not in primary, kind != "T", name.lstrip("_") != op, name)
        out.append((op, min(names, key=rank)[1]))
    return sorted(out, key=lambda e: (e[0], e[1]))


def features_of(symbols, arch):
    """The CPU features glibc's variant names say they assume."""
    table = NAME_FEATURES.get(arch, ())
    found = set()
    for name in symbols:
        words = set(name.strip("_").split("_"))
        for part, features in table:
            if part in words:
                found.update(features)
        for op, part, features in AARCH64_OP_NAME_FEATURES if arch == "aarch64" else ():
            if part in words and routine_op(name) == op:
                found.update(features)
        # The BZ #29611 fix (Debian's 2.36 has it) makes the memset
        # selector check BMI2 for avx512_unaligned(_erms), which uses bzhi:
        # the ISA audit found it missing here.
        if arch == "x86_64" and routine_op(name) == "memset" and {"avx512", "unaligned"} <= words:
            found.add("bmi2")
    if "avx2" in found:
        found.discard("avx")
    return sorted(found)


def closure(member, defined, undefined):
    """The members an object needs besides itself: those of the same
    archive defining a routine it (or they) jump to, as musl's memmove does
    __memcpy_fwd, or a helper that calls nothing, as glibc's generic
    memcpy calls wordcopy.o's _wordcopy_fwd_aligned. Anything else (data,
    and failure functions such as __chk_fail, which the gate links to its
    stubs) is left to the gate's rules on what a submission may reference."""
    code = {}
    for m, syms in defined.items():
        leaf = not undefined.get(m)
        for kind, name, _ in syms:
            if kind in ("T", "W") and (routine_op(name) or leaf):
                code.setdefault(name, m)
    need, todo = [member], [member]
    while todo:
        for name in sorted(undefined.get(todo.pop(), ())):
            m = code.get(name)
            if m and m not in need:
                need.append(m)
                todo.append(m)
    return need


def package_version(package):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return out or "unknown"


def safe(text):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-")


# An ifunc a routine calls, and what its selector can choose: glibc 2.36's
# armhf memmove tail-calls memcpy for every move that is safe forward
# (dst <= src, or no overlap), and mempcpy calls it (sysdeps/arm/memmove.S,
# mempcpy.c); the memcpy selector picks __memcpy_neon, _vfp or _arm
# (sysdeps/arm/armv7/multiarch/ifunc-memcpy.h). Each choice is a routine
# of its own: the caller linked to it by a stub of one branch (STUB), the
# link the ifunc makes at run time.
IFUNC_CHOICES = {("armhf", "memcpy"): ("__memcpy_neon", "__memcpy_vfp", "__memcpy_arm")}
STUB = {"armhf": ("/* scripts/zoo: {name} as glibc's ifunc resolves it on a CPU its selector\n"
                  " * gives {target}. */\n\t.syntax unified\n\t.arm\n\t.text\n\t.globl\t{name}\n"
                  "\t.type\t{name}, %function\n{name}:\n\tb\t{target}\n\t.size\t{name}, . - {name}\n")}


def archive_units(library, package, arch, archive, nm_text, notes, stub_dir=None):
    """One unit per member of a libc.a that defines a routine; a member
    that calls an ifunc, one per choice of IFUNC_CHOICES (its stub written
    into `stub_dir`), or a note where there is none."""
    version = package_version(package)
    defined, undefined = parse_nm(nm_text)
    units = []
    for member in sorted(defined):
        entries = entries_of(defined[member])
        if not entries:
            continue
        members = closure(member, defined, undefined)
        inside = {name for m in members for _, name, _ in defined.get(m, [])}
        calls = sorted(n for m in members for n in undefined.get(m, ()) if routine_op(n) and n not in inside)
        stem = os.path.splitext(member)[0]
        if calls:
            units += wrapper_units(library, version, arch, archive, member, calls, defined, undefined, notes,
                                   stub_dir)
            continue
        units.append(Unit(f"{library}-{arch}-{safe(stem)}", f"{library} {version} libc.a({member})", arch,
                          [f"{archive}({m})" for m in members], entries,
                          requires=features_of([s for _, s in entries], arch)))
    return units


def wrapper_units(library, version, arch, archive, member, calls, defined, undefined, notes, stub_dir):
    """The units of a member that calls an ifunc: one per choice, the
    member with the chosen routine's members and a stub naming it."""
    choices = IFUNC_CHOICES.get((arch, calls[0])) if len(calls) == 1 else None
    code = {name: m for m, syms in defined.items() for kind, name, _ in syms if kind in ("T", "W")}
    if not choices or stub_dir is None or any(c not in code for c in choices):
        notes.append(f"{library} {arch} libc.a({member}): calls {', '.join(calls)}, which the archive has "
                     "only as an ifunc chosen at run time: a wrapper, not a routine of its own")
        return []
    units, stem = [], os.path.splitext(member)[0]
    entries = entries_of(defined[member])
    for target in choices:
        stub = os.path.join(stub_dir, f"{calls[0]}-is-{target.strip('_')}.S")
        os.makedirs(stub_dir, exist_ok=True)
        records.write_text(stub, STUB[arch].format(name=calls[0], target=target))
        members = list(dict.fromkeys(closure(member, defined, undefined)
                                     + closure(code[target], defined, undefined)))
        units.append(Unit(f"{library}-{arch}-{safe(stem)}+{safe(target.strip('_'))}",
                          f"{library} {version} libc.a({member}), {calls[0]} as {target} "
                          f"(libc.a({code[target]}))", arch,
                          [f"{archive}({m})" for m in members] + [stub], entries,
                          requires=features_of([s for _, s in entries] + [target], arch)))
    return units


# Where the packages put their archives (the first that exists).
ARCHIVES = (
    ("glibc", "libc6-dev", "x86_64", ("/usr/lib/x86_64-linux-gnu/libc.a",)),
    ("glibc", "libc6-dev-i386", "i386", ("/usr/lib32/libc.a",)),
    ("glibc", "libc6-dev-arm64-cross", "aarch64", ("/usr/aarch64-linux-gnu/lib/libc.a",)),
    ("glibc", "libc6-dev-riscv64-cross", "riscv64", ("/usr/riscv64-linux-gnu/lib/libc.a",)),
    ("glibc", "libc6-dev-armhf-cross", "armhf", ("/usr/arm-linux-gnueabihf/lib/libc.a",)),
    ("musl", "musl-dev", "x86_64", ("/usr/lib/x86_64-linux-musl/libc.a", "/usr/lib/musl/lib/libc.a")),
)


def discover_archives(sources, arches, notes):
    units = []
    for library, package, arch, paths in ARCHIVES:
        if library not in sources or arch not in arches:
            continue
        archive = next((p for p in paths if os.path.exists(p)), None)
        if not archive:
            notes.append(f"{library} {arch}: {package} is not installed (scripts/install-deps --zoo)")
            continue
        found = archive_units(library, package, arch, archive, run_text(["nm", "-A", archive]), notes,
                              stub_dir=os.path.join(KERNEL_CACHE, "stubs", f"{library}-{arch}"))
        # The stubs assembled too, for --audit-only (zoo_isa.objects_of).
        for stub in sorted({p for u in found for p in u.inputs if p.endswith(".S")}):
            run_text(compiler_for(arch)[0] + ["-c", stub, "-o", stub[:-2] + ".o"])
        units += found
    return units


# --- the kernel -------------------------------------------------------------------

KERNEL_FILES = {"x86_64": ("arch/x86/lib", ("memcpy_64.S", "memmove_64.S", "memset_64.S", "copy_page_64.S",
                                            "clear_page_64.S")),
                "aarch64": ("arch/arm64/lib", ("memcpy.S", "memmove.S", "memset.S", "copy_page.S",
                                               "clear_page.S", "copy_from_user.S", "copy_to_user.S",
                                               "clear_user.S")),
                # uaccess.S's user copies wait for riscv64's exception table
                # (harness/arch/none/extable.c stands in: none emulated yet).
                "riscv64": ("arch/riscv/lib", ("memcpy.S", "memmove.S", "memset.S")),
                # memcpy.S includes copy_template.S (extracted with the
                # folder's every .S); memmove.S branches to memcpy.S's
                # __memcpy for a move that is safe forward (kernel_units
                # gives it memcpy.S too). clear_page is C on arm (arch/arm/mm).
                "armhf": ("arch/arm/lib", ("memcpy.S", "memmove.S", "memset.S", "copy_page.S"))}
# A routine's own start: SYM_FUNC_START and kin, or the older ENTRY and
# WEAK that 6.1's riscv memcpy.S and memset.S still use.
FUNC_START = re.compile(r"^(?:SYM_(?:TYPED_)?FUNC_START(?:_WEAK)?|ENTRY|WEAK)\((\w+)\)", re.M)
FEATURE = re.compile(r"\b(X86_FEATURE_\w+|ARM64_\w+)\b")


def kernel_tarball():
    found = sorted(p for p in os.listdir("/usr/src") if re.match(r"^linux-source-[0-9.]+\.tar\.(xz|bz2|gz)$", p)) \
        if os.path.isdir("/usr/src") else []
    return os.path.join("/usr/src", found[-1]) if found else None


def extract_kernel(tarball, out):
    """The arch/*/lib sources of the tarball, under out/ (once:
    a stamp names the tarball and its size)."""
    top = re.sub(r"\.tar\.\w+$", "", os.path.basename(tarball))
    tree = os.path.join(out, top)
    stamp = os.path.join(out, f"{top}.extracted")
    # Every .S of the folders: the files a version lacks (6.1 has no arm64
    # memmove.S) are then notes, not a failed extraction; and the C files
    # of the user copies.
    wanted = sorted({f"{top}/{folder}/*.S" for folder, _ in KERNEL_FILES.values()}
                    | {f"{top}/{KERNEL_USER_FOLDER[arch]}/{row[0]}" for arch, table in KERNEL_USER_COPIES.items()
                       for row in table if row[0].endswith(".c")})
    mark = f"{tarball} {os.path.getsize(tarball)} {' '.join(wanted)}\n"
    if os.path.exists(stamp) and open(stamp).read() == mark:
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    run_text(["tar", "-xf", tarball, "-C", out, "--wildcards"] + wanted, timeout=600)
    records.write_text(stamp, mark)
    return tree


def cpus_of(features):
    """Every CPU the alternatives can see: each subset of the features the
    file tests, less those a real CPU cannot have (FSRM without ERMS)."""
    out = []
    for n in range(len(features) + 1):
        for subset in itertools.combinations(sorted(features), n):
            if all(KERNEL_IMPLIES.get(f) in subset for f in subset if f in KERNEL_IMPLIES):
                out.append(subset)
    return out


def compiler_for(arch):
    if arch in ("aarch64", "riscv64"):
        return ["clang", f"--target={arch}-linux-gnu"], f"{arch}-linux-gnu-objdump"
    if arch == "armhf":
        # The Makefile's armhf flags; llvm-objdump reads ARM and Thumb.
        return ["clang", "--target=arm-linux-gnueabihf", "-march=armv7-a", "-mfpu=vfpv3-d16"], "llvm-objdump"
    return (["gcc", "-m32"] if arch == "i386" else ["gcc"]), "objdump"


def assemble(arch, source, incdir, mask, obj, cflags=()):
    cc, _ = compiler_for(arch)
    run_text(cc + ["-c", "-nostdinc", "-I", incdir, "-include", SHIM, f"-DZOO_CPU={mask}", *cflags, source,
                   "-o", obj])


def code_hash(arch, obj):
    """What a kernel CPU's build of a file runs: its disassembly and its
    initialised data (a value boot sets, as init_intel's movsl_mask),
    without the file name, hashed; two CPUs with the same of both are one
    routine."""
    _, objdump = compiler_for(arch)
    text = run_text([objdump, "-d", "--no-show-raw-insn", obj]).split("\n", 2)[-1]
    data = run_text([objdump, "-s", obj]).split("\n", 2)[-1]  # every section's bytes
    return hashlib.sha256((text + data).encode()).hexdigest()


def kernel_units(tree, version, work, notes):
    units = []
    incdir = os.path.join(work, "include")
    for arch, (folder, files) in KERNEL_FILES.items():
        # Which file of the row starts which routine: a file that jumps to
        # another's (arm's memmove.S to memcpy.S's __memcpy) is gated with it.
        starts = {}
        for g in files:
            if os.path.exists(os.path.join(tree, folder, g)):
                for name in FUNC_START.findall(kernel_shim.read(os.path.join(tree, folder, g))):
                    starts.setdefault(name, g)
        for f in files:
            path = os.path.join(tree, folder, f)
            if not os.path.exists(path):
                notes.append(f"linux {version} {folder}/{f}: not in this version")
                continue
            text = open(path, errors="replace").read()
            kernel_shim.stub_includes([path], incdir)
            features = sorted(set(x for x in FEATURE.findall(text) if x in KERNEL_FEATURES))
            primary = FUNC_START.findall(text)
            seen = {}
            for cpu in cpus_of(features):
                mask = sum(KERNEL_BITS[x] for x in cpu)
                obj = os.path.join(work, "obj", arch, f"{f}-{mask}.o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                assemble(arch, path, incdir, mask, obj)
                digest = code_hash(arch, obj)
                if digest in seen:
                    continue
                seen[digest] = cpu
                defined, undefined = parse_nm(run_text(["nm", "-A", obj]))
                entries = entries_of([s for syms in defined.values() for s in syms], primary)
                if not entries:
                    continue
                inputs, objects = [path], [obj]
                todo = sorted(n for names in undefined.values() for n in names)
                while todo:
                    g = starts.get(todo.pop(0))
                    if not g or os.path.join(tree, folder, g) in inputs:
                        continue
                    inputs.append(os.path.join(tree, folder, g))
                    kernel_shim.stub_includes([inputs[-1]], incdir)
                    objects.append(os.path.join(work, "obj", arch, f"{g}-{mask}.o"))
                    assemble(arch, inputs[-1], incdir, mask, objects[-1])
                    todo += sorted(n for names in parse_nm(run_text(["nm", "-A", objects[-1]]))[1].values()
                                   for n in names)
                label = "+".join(re.sub(r"^(X86_FEATURE_|ARM64_)", "", x).lower() for x in cpu) or "none"
                label = label if len(cpus_of(features)) > 1 else ""
                stem = safe(os.path.splitext(f)[0])
                alt = f"-{safe(label)}" if len(cpus_of(features)) > 1 else ""
                units.append(Unit(f"linux-{arch}-{stem}{alt}", f"linux {version} {folder}/{f}", arch, inputs,
                                  entries, requires=[KERNEL_FEATURES[x] for x in cpu if KERNEL_FEATURES[x]],
                                  flags=["-I", incdir, "-D", f"ZOO_CPU={mask}", "--cflags", f"-include {SHIM}"],
                                  alternative=label))
                units[-1].objects = objects  # what --audit-only reads
    return units


# x86-64's user copies (Linux 6.1). Which routine runs is chosen in C, not
# in their files: copy_user_generic's alternative_call_2 (uaccess_64.h)
# calls copy_user_generic_unrolled, _string on X86_FEATURE_REP_GOOD,
# copy_user_enhanced_fast_string on X86_FEATURE_ERMS (whose own
# ALTERNATIVE then tests FSRM), each for raw_copy_from_user and
# raw_copy_to_user; __copy_user_nocache is called from user memory only
# (__copy_from_user_inatomic_nocache), on every CPU; __clear_user's
# ALTERNATIVE_3 calls clear_user_original, _rep_good on REP_GOOD and
# _erms on ERMS without FSRM (with FSRM it is an inline rep stosb, no
# routine). So each routine is gated under the CPUs it is chosen on: (file,
# symbol, ops, CPUs, convention). The clear_user_* are called from inline
# asm ("+c" (size), "+D" (addr), "a" (0), clobber "rdx": docs/conventions.md).
CLEAR_USER_CONVENTION = "args=rdi,rcx ret=rcx clobbers=rdx zero=rax"
KERNEL_USER_COPIES = {"x86_64": (
    ("copy_user_64.S", "copy_user_generic_unrolled", ("copy_from_user", "copy_to_user"), ((),), ""),
    ("copy_user_64.S", "copy_user_generic_string", ("copy_from_user", "copy_to_user"),
     (("X86_FEATURE_REP_GOOD",),), ""),
    ("copy_user_64.S", "copy_user_enhanced_fast_string", ("copy_from_user", "copy_to_user"),
     (("X86_FEATURE_REP_GOOD", "X86_FEATURE_ERMS"),
      ("X86_FEATURE_REP_GOOD", "X86_FEATURE_ERMS", "X86_FEATURE_FSRM")), ""),
    ("copy_user_64.S", "__copy_user_nocache", ("copy_from_user",), ((),), ""),
    ("clear_page_64.S", "clear_user_original", ("clear_user",), ((),), CLEAR_USER_CONVENTION),
    ("clear_page_64.S", "clear_user_rep_good", ("clear_user",), (("X86_FEATURE_REP_GOOD",),),
     CLEAR_USER_CONVENTION),
    ("clear_page_64.S", "clear_user_erms", ("clear_user",), (("X86_FEATURE_REP_GOOD", "X86_FEATURE_ERMS"),),
     CLEAR_USER_CONVENTION))}
# i386's (Linux 6.1): arch/x86/lib/usercopy_32.c, C with inline assembly,
# built as the kernel builds it (-O2, -mregparm=3: the arguments in eax,
# edx, ecx, the result in eax; with CONFIG_X86_INTEL_USERCOPY, as
# X86_GENERIC selects it). raw_copy_{from,to}_user call __copy_user_ll
# (uaccess_32.h), __copy_from_user_inatomic_nocache calls
# __copy_from_user_ll_nocache_nozero, whose Intel nocache copy (movnti)
# runs past 64 bytes on a CPU with SSE2 (static_cpu_has); clear_user and
# __clear_user are the clears. __copy_user_ll's Intel unrolled copy
# (__copy_user_intel) is taken when (to ^ from) & movsl_mask.mask, and the
# file's movsl_mask stays 0 until init_intel sets it to 7 at boot on
# Intel's families 6 and 15: the INTEL_MOVSL_MASK rows are that boot.
# ecx is a scratch register of the C convention: a two-argument function
# may change it.
REGPARM = {3: "args=eax,edx,ecx ret=eax", 2: "args=eax,edx ret=eax clobbers=ecx"}
KERNEL_USER_COPIES["i386"] = (
    ("usercopy_32.c", "__copy_user_ll", ("copy_from_user", "copy_to_user"), ((), ("INTEL_MOVSL_MASK",)),
     REGPARM[3]),
    ("usercopy_32.c", "__copy_from_user_ll_nocache_nozero", ("copy_from_user",), ((), ("X86_FEATURE_XMM2",)),
     REGPARM[3]),
    ("usercopy_32.c", "clear_user", ("clear_user",), ((),), REGPARM[2]),
    ("usercopy_32.c", "__clear_user", ("clear_user",), ((),), REGPARM[2]))
KERNEL_C_FLAGS = {"i386": ("-O2", "-mregparm=3", "-DCONFIG_X86_INTEL_USERCOPY", "-Wno-unused-parameter")}
KERNEL_USER_FOLDER = {"x86_64": "arch/x86/lib", "i386": "arch/x86/lib"}


def cpu_label(cpu):
    return "+".join(re.sub(r"^(X86_FEATURE_|ARM64_)", "", x).lower() for x in cpu) or "none"


def kernel_user_units(tree, version, work, notes):
    """One unit per user copy, operation and CPU it is chosen on
    (KERNEL_USER_COPIES); a symbol the version lacks is a note."""
    units = []
    incdir = os.path.join(work, "include")
    for arch, table in KERNEL_USER_COPIES.items():
        folder = KERNEL_USER_FOLDER[arch]
        for f, symbol, ops, cpus, convention in table:
            path = os.path.join(tree, folder, f)
            if not os.path.exists(path):
                notes.append(f"linux {version} {folder}/{f}: not in this version (its {symbol})")
                continue
            kernel_shim.stub_includes([path], incdir)
            seen = set()
            for cpu in cpus:
                mask = sum(KERNEL_BITS[x] for x in cpu)
                obj = os.path.join(work, "obj", arch, f"{f}-{mask}.o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                cflags = KERNEL_C_FLAGS.get(arch, ()) if f.endswith(".c") else ()
                assemble(arch, path, incdir, mask, obj, cflags)
                defined, _ = parse_nm(run_text(["nm", "-A", obj]))
                if not any(kind == "T" and name == symbol for syms in defined.values() for kind, name, _ in syms):
                    notes.append(f"linux {version} {folder}/{f}: no {symbol} in this version")
                    break
                digest = code_hash(arch, obj)
                if digest in seen:
                    continue
                seen.add(digest)
                label = cpu_label(cpu)
                for op in ops:
                    name = f"linux-{arch}-{safe(symbol)}-{safe(label)}" + (f"-{op}" if len(ops) > 1 else "")
                    units.append(Unit(name, f"linux {version} {folder}/{f}", arch, [path], [(op, symbol)],
                                      requires=[KERNEL_FEATURES[x] for x in cpu if KERNEL_FEATURES[x]],
                                      flags=["-I", incdir, "-D", f"ZOO_CPU={mask}", "--cflags",
                                             " ".join([f"-include {SHIM}", *cflags])],
                                      alternative=label, convention=convention))
                    units[-1].objects = [obj]
    return units


def discover_kernel(arches, out, notes):
    tarball = kernel_tarball()
    if not tarball:
        notes.append("linux: linux-source-* is not installed (scripts/install-deps --zoo)")
        return []
    version = re.sub(r"^linux-source-|\.tar\.\w+$", "", os.path.basename(tarball))
    version = f"{version} ({package_version('linux-source-' + version)})"
    tree = extract_kernel(tarball, os.path.join(out, "src"))
    units = kernel_units(tree, version, os.path.join(out, "kernel"), notes)
    units += kernel_user_units(tree, version, os.path.join(out, "kernel"), notes)
    return [u for u in units if u.arch in arches]


# The kernel's extracted sources and their builds, whatever --out is: the
# extraction takes a while, once.
KERNEL_CACHE = os.path.join(ROOT, "build", "zoo")


def discover(sources, arches, out, notes):
    """Every unit of the sources and arches, as the last discovery found
    them while nothing it read changed (zoo_found)."""
    archives = [p for _, _, arch, paths in ARCHIVES for p in paths]
    want = zoo_found.key(sources, arches, archives, "/usr/src", SHIM)
    where = os.path.join(KERNEL_CACHE, "discovery.json")
    kept = zoo_found.load(where, want)
    if kept is not None:
        found, old_notes = kept
        notes.extend(old_notes)
        return [unit_of(u) for u in found]
    mine = []
    units = discover_archives(sources, arches, mine)
    if "kernel" in sources:
        units += discover_kernel(arches, KERNEL_CACHE, mine)
    notes.extend(mine)
    zoo_found.save(where, want, [dict(u.as_dict(), objects=getattr(u, "objects", [])) for u in units], mine)
    return units


def unit_of(d):
    """A Unit from its as_dict() (and the objects --audit-only reads)."""
    u = Unit(d["name"], d["source"], d["arch"], d["inputs"], [(e["op"], e["symbol"]) for e in d["entries"]],
             d.get("requires") or (), d.get("flags") or (), d.get("alternative") or "", d.get("convention") or "")
    if d.get("objects"):
        u.objects = list(d["objects"])
    return u


# --- gating -----------------------------------------------------------------------

def cpu_flags():
    """This machine's x86 feature flags (/proc/cpuinfo), or None elsewhere."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def missing_features(unit, flags):
    """The features the unit assumes that this CPU lacks (x86 runs on the
    CPU itself; aarch64 under qemu, whose CPU model has them all); never
    a speed-only one (erms: every x86 CPU runs rep movsb)."""
    if unit.arch not in ("x86_64", "i386") or flags is None:
        return []
    return [f for f in unit.requires if f not in flags and f not in isa_features.SPEED_ONLY]


def gate_features():
    from . import gate
    return gate.FEATURES


def gate_argv(unit, seconds, quick, report, extra):
    # N+: the gate's default deadline, or N if larger: the profile decides
    # what runs, never this number.
    argv = [os.path.join(ROOT, "scripts", "gate"), "--arch", unit.arch, "--seconds", f"{seconds}+",
            "--report", report]
    if quick:
        argv.append("--quick")
    # The features the gate can express; the rest this program checks
    # against the CPU itself (missing_features) before running the gate.
    told = [f for f in unit.requires if f in gate_features()]
    if told:
        argv += ["--requires", ",".join(told)]
    for op, symbol in unit.entries:
        argv += ["--entry", f"{op}={symbol}"]
    if unit.convention:
        argv += ["--convention", unit.convention]
    return argv + unit.flags + list(extra) + unit.inputs


def last_reason(text):
    """The line of the gate's output that says why it could not judge (the
    gate's own one-line contract), else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if "could not judge" in line or line.startswith("gate:"):
            return line
    return lines[-1] if lines else "no output"


def entry_results(doc):
    """One dict per entry point in a gate report: the report's "entries"
    when it has them, else the report itself for its one entry."""
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if isinstance(entries, list) and entries:
        return entries
    return [doc] if isinstance(doc, dict) else []


def status_of(rc, verdict, warnings):
    if rc == 0 and verdict in ("accepted", "ACCEPTED", None):
        return "warnings" if warnings else "accepted"
    if rc == 1:
        return "rejected"
    return "error"


def row(unit, op, symbol, status, seconds, warnings=(), reason="", findings=(), plot=None, report=None, isa=None):
    return {"isa": isa, "requires": list(unit.requires), "source": unit.source, "entry": f"{op}={symbol}", "op": op, "symbol": symbol, "arch": unit.arch,
            "alternative": unit.alternative, "convention": unit.convention, "unit": unit.name, "verdict": status,
            "warnings": [str(w) for w in warnings], "reason": reason, "findings": list(findings),
            "seconds": round(seconds, 1), "plot": plot, "report": report,
            # The numbers it was run with (the gate report's data_symbols:
            # glibc's model's value sets, or --extern's), or None.
            "data_symbols": None,
            # When its gate run started (seconds from the zoo's start) and
            # how long the run took: gate_unit fills them in.
            "started": None, "unit_seconds": None}


def warning_text(w):
    """A warning of the gate's report as zoo.json keeps it: its text, and
    the command that replays it when it has one (the gate keeps its
    build)."""
    if isinstance(w, dict):
        text = w.get("text") or w.get("summary") or w.get("class") or json.dumps(w, sort_keys=True)
        return text + (f"; repro: {w['repro']}" if w.get("text") and w.get("repro") else "")
    return str(w)


def finding_text(f):
    """A gate finding as its report line says it: [check] class: detail,
    with the CPU model or --extern values of its run."""
    if isinstance(f, dict) and f.get("kind") and f.get("detail"):
        run = f" ({f['run']})" if f.get("run") else ""
        return f"[{f.get('check', '?')}] {f['kind']}: {f['detail']}{run}"
    if isinstance(f, dict):
        return f.get("text") or f.get("summary") or f.get("class") or json.dumps(f, sort_keys=True)
    return str(f)


def cannot_judge(entry):
    """Why the gate could not judge an entry, from its report's fields."""
    why = [f"{c.get('check')}: {c.get('reason')}" for c in entry.get("could_not_judge") or [] if isinstance(c, dict)]
    return f"could not judge: {'; '.join(why)}" if why else ""


def rows_of_run(unit, rc, timed_out, seconds, output, report_path, plot):
    """The rows of one gate run, from its report (read back) and exit status."""
    share = seconds / max(1, len(unit.entries))
    doc = None
    if os.path.exists(report_path):
        try:
            with open(report_path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            doc = None
    if timed_out:
        return [row(unit, op, s, "error", share, reason="could not judge: the gate ran past the zoo's limit")
                for op, s in unit.entries]
    if rc in (0, 1) and doc is None:
        return [row(unit, op, s, "error", share, reason="could not judge: the gate wrote no readable report")
                for op, s in unit.entries]
    if doc is None:
        return [row(unit, op, s, "error", share, reason=last_reason(output)) for op, s in unit.entries]
    by_symbol = {e.get("symbol"): e for e in entry_results(doc)}
    times = entry_seconds(unit, by_symbol, seconds)
    out = []
    for op, symbol in unit.entries:
        e = by_symbol.get(symbol) or (entry_results(doc)[0] if len(unit.entries) == 1 else None)
        if e is None:
            out.append(row(unit, op, symbol, "error", share, reason="could not judge: the report has no row for it"))
            continue
        warnings = [warning_text(w) for w in e.get("warnings") or []]
        findings = [finding_text(f) for f in e.get("findings") or []]
        verdict = str(e.get("verdict", "")).lower()
        entry_rc = rc if "verdict" not in e else (0 if verdict.startswith("accepted") else
                                                   1 if verdict.startswith("rejected") else 2)
        status = status_of(entry_rc, None, warnings)
        reason = "" if status != "error" else (cannot_judge(e) or last_reason(output))
        out.append(row(unit, op, symbol, status, times.get(symbol, share), warnings, reason, findings, plot,
                       report_path, zoo_isa.of_entry(e)))
        if isinstance(e.get("data_symbols"), dict):
            out[-1]["data_symbols"] = e["data_symbols"]
        # A verdict the gate reused (gate_cache): where and when it was judged.
        cached = e.get("cached") or doc.get("cached")
        if isinstance(cached, dict):
            out[-1]["cached"] = f"from {cached.get('from', '?')}, {cached.get('date', '?')}"
    return out


def own_seconds(entry):
    """An entry's own time in a gate report: its seconds less the build's
    (which the gate counts in every entry of the run), or None."""
    total = entry.get("seconds") if isinstance(entry, dict) else None
    if not isinstance(total, (int, float)):
        return None
    build = sum(c.get("seconds") or 0 for c in entry.get("checks") or [] if isinstance(c, dict)
                and c.get("name") == "build")
    return max(0.0, total - build)


def entry_seconds(unit, by_symbol, seconds):
    """{symbol: seconds} of a run's entries: each one's own checks, plus an
    even part of the rest of the run's wall time (the build, the reports),
    so that they add up to the run's; {} when the report lacks the times
    (then each gets an even share)."""
    own = {s: own_seconds(by_symbol.get(s)) for _, s in unit.entries}
    if len(unit.entries) < 2 or any(v is None for v in own.values()):
        return {}
    rest = max(0.0, seconds - sum(own.values())) / len(unit.entries)
    return {s: v + rest for s, v in own.items()}


def emit_reproducer(report_path, out_c):
    """The standalone C program of the first finding that has a repro
    command (scripts/repro --emit-c), or None."""
    try:
        with open(report_path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    for e in entry_results(doc):
        for f in e.get("findings") or []:
            cmd = f.get("repro") if isinstance(f, dict) else None
            if cmd and "scripts/repro" in cmd:
                # The report's repro command is a shell line the gate wrote.
                try:
                    subprocess.run(f"{cmd} --emit-c {shlex.quote(out_c)}", shell=True, cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
                except subprocess.TimeoutExpired:
                    return None
                if os.path.exists(out_c):
                    return out_c
    return None


def keep_plot(where, unit, symbol, out):
    """The gate's speed plot of an entry (NAME-speed.svg next to the
    report, NAME the entry's variant), copied into out/plots/; or None."""
    plots = sorted(p for p in os.listdir(where) if p.endswith("-speed.svg"))
    mine = [p for p in plots if p == f"{symbol}-speed.svg"] or \
        [p for p in plots if symbol in p] or (plots if len(unit.entries) == 1 else [])
    if not mine:
        return None
    plot = os.path.join(os.path.relpath(where, out), f"{unit.name}-{symbol}.svg")
    shutil.copyfile(os.path.join(where, mine[0]), os.path.join(out, plot))
    return plot


def build_arches(units, out, jobs=2):
    """memgate built for every arch the units need, once, before any gate
    runs (each gate run then finds it built and builds only its own
    programs): {arch: None if built, else why not}. On the host, the fuzz
    targets' shared objects too, which the gates would otherwise build one
    at a time under their lock; `make -j` uses every core here."""
    host = "i386" if re.match(r"^i.86$", os.uname().machine) else os.uname().machine
    status = {}
    for arch in sorted({u.arch for u in units}):
        log = os.path.join(out, f"make-{arch}.log")
        argv = ["make", "--no-print-directory", f"-j{jobs}", "all"] + ([] if arch == host else [f"ARCH={arch}"])
        result = procs.run(argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, timeout=3600)
        if result.returncode == 0 and not result.timed_out and arch == host:
            argv, result = prebuild_fuzz_commons(units, out, jobs, log, host)
        status[arch] = None if result.returncode == 0 and not result.timed_out else \
            f"could not judge: memgate does not build for {arch} ({shlex.join(argv)}: see {log})"
    return status


def prebuild_fuzz_commons(units, out, jobs, log, host):
    """What every gate build shares (make gate-shared: the fuzz flavors'
    objects and the fuzz targets of the host units' families, as the gate
    names them), built in parallel: (argv, result). The folder given as GATE
    names the families only; no gate program is built in it."""
    families = sorted({gate_options.OPS[op][1] for u in units if u.arch == host for op, _ in u.entries})
    where = os.path.join(out, "shared-build")
    os.makedirs(where, exist_ok=True)
    records.write_text(os.path.join(where, "family"), " ".join(families) + "\n")
    argv = ["make", "--no-print-directory", f"-j{jobs}", f"GATE={os.path.relpath(where, ROOT)}", "GATE_FUZZ=yes",
            "gate-shared"]
    with open(log, "ab") as f:
        result = procs.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, timeout=3600)
    return argv, result


def factor_of(unit, opts):
    """--emulated-factor for aarch64 under qemu, else 1."""
    emulated = unit.arch == "aarch64" and os.uname().machine != "aarch64"
    return opts["emulated_factor"] if emulated else 1


# What a gate run takes besides its budget (building its programs, the
# reports): for the order of the runs only, never a limit.
BUILD_ESTIMATE = 15
# Each further CPU model of an aarch64 gate under qemu, weighed at this part
# of an entry's budget. The gate divides --seconds among the models, so a
# model adds little time now (in the last full run no aarch64 entry of 120 s
# took more than 121 s, docs/zoo.md); the weight only puts such units ahead
# of native ones with the same budget.
MODEL_SHARE = 0.4


def estimate(unit, opts, flags):
    """About how long the unit's gate run takes, in seconds: 0 for a unit
    this CPU skips."""
    if missing_features(unit, flags):
        return 0.0
    per_entry = opts["seconds"] * factor_of(unit, opts)
    models = len(cpu_models.models_for(unit.requires, unit.arch)) if factor_of(unit, opts) > 1 else 1
    return BUILD_ESTIMATE + len(unit.entries) * per_entry * (1 + MODEL_SHARE * max(0, models - 1))


def schedule(units, opts, flags):
    """The units in the order to start them: the longest first (aarch64
    under qemu, objects with many entry points), so the last to finish is
    a short one and both cores stay busy to the end; ties in discovery
    order."""
    order = {u.name: i for i, u in enumerate(units)}
    return sorted(units, key=lambda u: (-estimate(u, opts, flags), order[u.name]))


def gate_unit(unit, opts, flags, broken=None):
    """Gates one unit (or skips it for a feature this CPU lacks): its rows,
    each with when the run started and how long it took."""
    t = time.monotonic()
    rows = run_unit(unit, opts, flags, broken)
    for r in rows:
        r["started"] = round(t - opts.get("clock", t), 1)
        r["unit_seconds"] = round(time.monotonic() - t, 1)
    return rows


def clear_run(where):
    """A unit's folder, emptied of its last run but its gates' results
    (which a cached verdict names as where it was judged)."""
    os.makedirs(where, exist_ok=True)
    for name in os.listdir(where):
        if name != "results":
            path = os.path.join(where, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)


def run_unit(unit, opts, flags, broken):
    if broken:
        return [row(unit, op, s, "error", 0.0, reason=broken) for op, s in unit.entries]
    lacking = missing_features(unit, flags)
    if lacking:
        return [row(unit, op, s, "skipped", 0.0, reason=f"SKIP (needs {','.join(lacking)})")
                for op, s in unit.entries]
    # A folder of this zoo run's own (runs/RUN-ID/UNIT): an earlier run's
    # results are evidence, kept as they are.
    where = os.path.join(opts["out"], "runs", opts["run_id"], unit.name)
    os.makedirs(where)
    report = os.path.join(where, "report.json")
    # Each entry point counts --seconds (times --emulated-factor under qemu,
    # where the same checks run slower): the order of the runs and the limit.
    budget = opts["seconds"] * factor_of(unit, opts) * len(unit.entries)
    argv = gate_argv(unit, budget, opts["quick"], report, opts["gate_args"])
    log = os.path.join(where, "gate.log")
    records.write_text(os.path.join(where, "command"), shlex.join(argv) + "\n")
    # One verdict cache for every unit (gate_cache): a unit whose code,
    # options, memgate and machine are unchanged is not gated again.
    env = dict(os.environ, MEMGATE_GATE_RESULTS=os.path.abspath(os.path.join(where, "results")),
               MEMGATE_GATE_CACHE=os.path.abspath(os.path.join(opts["out"], "gate-cache")))
    # The gate bounds itself (its deadline, after its build); this limit
    # only catches a gate that does not.
    result = procs.run(argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                       timeout=budget * 3 + 900)
    with open(log, errors="replace") as f:
        output = f.read()
    rows = rows_of_run(unit, result.returncode, result.timed_out, result.seconds, output, report, None)
    for r in rows:
        r["plot"] = keep_plot(where, unit, r["symbol"], opts["out"])
    if any(r["verdict"] == "rejected" for r in rows):
        c = emit_reproducer(report, os.path.join(where, f"{unit.name}-repro.c"))
        for r in rows:
            if r["verdict"] == "rejected":
                r["reproducer"] = os.path.relpath(c, opts["out"]) if c else None
    return rows


# --- reports ---------------------------------------------------------------------

VERDICTS = ("accepted", "warnings", "rejected", "skipped", "error")


def totals(rows):
    return {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}


def per_arch_seconds(rows):
    out = {}
    for r in rows:
        out[r["arch"]] = round(out.get(r["arch"], 0.0) + r["seconds"], 1)
    return out


def per_arch_wall(rows):
    """{arch: {"runs", "gate_seconds", "first_start", "last_end",
    "wall_seconds"}}: how much gate time each arch took, and when (seconds
    from the zoo's start) its first gate run started and its last ended,
    with the span between."""
    out = {}
    for r in rows:
        if r.get("started") is None:
            continue
        a = out.setdefault(r["arch"], {"runs": set(), "gate_seconds": 0.0, "first_start": r["started"],
                                       "last_end": r["started"]})
        a["runs"].add(r["unit"])
        a["gate_seconds"] += r["seconds"]
        a["first_start"] = min(a["first_start"], r["started"])
        a["last_end"] = max(a["last_end"], r["started"] + (r.get("unit_seconds") or 0.0))
    return {arch: {"runs": len(a["runs"]), "gate_seconds": round(a["gate_seconds"], 1),
                   "first_start": round(a["first_start"], 1), "last_end": round(a["last_end"], 1),
                   "wall_seconds": round(a["last_end"] - a["first_start"], 1)} for arch, a in out.items()}


def clock_text(seconds):
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}:{secs:02d}"


def exit_status(rows):
    t = totals(rows)
    if t["error"]:
        return 2
    return 1 if t["rejected"] else 0


def text_table(rows):
    head = ("source", "entry", "arch", "verdict", "warnings", "seconds")
    body = []
    for r in rows:
        verdict = r["verdict"].upper() if r["verdict"] != "skipped" else r["reason"]
        if r["verdict"] == "error":
            verdict = f"ERROR: {r['reason']}"
        alt = f" [{r['alternative']}]" if r["alternative"] else ""
        verdict += " (cached)" if r.get("cached") else ""
        body.append((r["source"] + alt, r["entry"], r["arch"], verdict, str(len(r["warnings"])),
                     f"{r['seconds']:.1f}"))
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head) - 1)]
    lines = []
    for cells in [head] + body:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + cells[-1].rjust(7))
    return "\n".join(lines)


def summary_lines(doc):
    t = doc["totals"]
    lines = [f"zoo: {len(doc['rows'])} routines: " + ", ".join(f"{t[v]} {v}" for v in VERDICTS),
             f"zoo: wall time {doc['wall_seconds']:.1f} s ({clock_text(doc['wall_seconds'])}) with {doc['jobs']} "
             f"jobs (finding the routines {doc.get('discover_seconds', 0.0):.1f} s, building memgate "
             f"{doc.get('build_seconds', 0.0):.1f} s); gate time per arch: "
             + ", ".join(f"{a} {s:.1f} s" for a, s in sorted(doc["arch_seconds"].items()))]
    for arch, a in sorted((doc.get("arch_wall") or {}).items()):
        lines.append(f"zoo: {arch}: {a['runs']} gate runs, {a['gate_seconds']:.1f} s of gate time, from "
                     f"{clock_text(a['first_start'])} to {clock_text(a['last_end'])} ({a['wall_seconds']:.1f} s "
                     "of wall time)")
    lines += [f"zoo: note: {n}" for n in doc["notes"]]
    return lines


CSS = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #bbb;padding:3px 7px;text-align:left}
th{background:#eee}td.num{text-align:right}
tr.accepted td.v{background:#c8f0c8}tr.warnings td.v{background:#fff0a8}
tr.rejected td.v{background:#f6b0b0}tr.skipped td.v{background:#ddd}tr.error td.v{background:#f0a0f0}
.totals span{display:inline-block;margin-right:1em;padding:2px 8px;border:1px solid #bbb}
figure{display:inline-block;margin:1em;vertical-align:top}figure img{max-width:860px;border:1px solid #ccc}"""


def value_sets_text(r):
    """The matrix's cell for the numbers a row's routine read: the value
    sets it ran under (by their producers) and how many the model left
    out, or '-' when it reads none."""
    d = r.get("data_symbols")
    if not isinstance(d, dict) or not d.get("reads"):
        return "-"
    sets = [s for s in d.get("sets") or [] if isinstance(s, dict)]
    ran = "; ".join(str(s.get("run", "?")) for s in sets)
    if not d.get("model"):
        return f"{', '.join(d['reads'])}: {ran or 'the defaults'}"
    return (f"glibc {d.get('glibc_version', '?')}: {len(sets)} run ({ran}), "
            f"{len(d.get('not_run') or [])} not run")


def html_page(doc):
    e = html.escape
    t = doc["totals"]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>memgate zoo</title>", f"<style>{CSS}</style></head><body>",
           "<h1>memgate zoo: the routines of this machine's packages</h1>",
           f"<p>{e(doc['started'])}, memgate {e(doc['memgate'])}, {e(str(doc['seconds_per_run']))} s per entry point"
           f"{' (quick)' if doc['quick'] else ''}, wall time {doc['wall_seconds']:.0f} s.</p>",
           '<p class="totals" id="totals">' + "".join(f'<span class="{v}">{v}: {t[v]}</span>' for v in VERDICTS)
           + "</p>", '<table id="matrix"><thead><tr><th>source</th><th>alternative</th><th>entry</th><th>arch</th>'
           "<th>verdict</th><th>warnings</th><th>seconds</th><th>--requires (the selector's)</th>"
           "<th>minimal --requires (the ISA audit's)</th><th>value sets (the numbers it reads)</th>"
           "<th>plot</th></tr></thead><tbody>"]
    for i, r in enumerate(doc["rows"]):
        verdict = {"skipped": r["reason"], "error": f"error: {r['reason']}"}.get(r["verdict"], r["verdict"])
        details = "".join(f"<br><small>{e(x)}</small>" for x in r["warnings"] + r["findings"]
                          + ([f"cached: {r['cached']}"] if r.get("cached") else []))
        if r.get("reproducer"):
            details += f'<br><small>reproducer: <a href="{e(r["reproducer"])}">{e(r["reproducer"])}</a></small>'
        plot = f'<a href="#plot-{i}">plot</a>' if r.get("plot") else ""
        out.append(f'<tr class="{e(r["verdict"])}"><td>{e(r["source"])}</td><td>{e(r["alternative"])}</td>'
                   f'<td>{e(r["entry"])}</td><td>{e(r["arch"])}</td><td class="v">{e(verdict)}{details}</td>'
                   f'<td class="num">{len(r["warnings"])}</td><td class="num">{r["seconds"]:.1f}</td>'
                   f'<td>{e(",".join(r.get("requires") or []) or "-")}</td>'
                   f'<td>{e(",".join((r.get("isa") or {}).get("minimal_requires") or []) or ("-" if r.get("isa") else "not audited"))}</td>'
                   f"<td>{e(value_sets_text(r))}</td><td>{plot}</td></tr>")
    out.append("</tbody></table>")
    if doc.get("arch_wall"):
        out.append('<h2>Time per arch</h2><table id="arches"><thead><tr><th>arch</th><th>gate runs</th>'
                   "<th>gate seconds</th><th>first start</th><th>last end</th><th>wall seconds</th></tr></thead><tbody>")
        for arch, a in sorted(doc["arch_wall"].items()):
            out.append(f'<tr><td>{e(arch)}</td><td class="num">{a["runs"]}</td><td class="num">{a["gate_seconds"]:.1f}'
                       f'</td><td class="num">{clock_text(a["first_start"])}</td><td class="num">'
                       f'{clock_text(a["last_end"])}</td><td class="num">{a["wall_seconds"]:.1f}</td></tr>')
        out.append("</tbody></table>")
    if doc["notes"]:
        out.append("<h2>Not gated</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in doc["notes"]) + "</ul>")
    out.append("<h2>Speed</h2>")
    for i, r in enumerate(doc["rows"]):
        if r.get("plot"):
            out.append(f'<figure id="plot-{i}"><img src="{e(r["plot"])}" alt="speed of {e(r["entry"])}">'
                       f"<figcaption>{e(r['source'])} {e(r['entry'])} ({e(r['arch'])})</figcaption></figure>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_reports(doc, out):
    records.write_json(os.path.join(out, "zoo.json"), doc)
    records.write_text(os.path.join(out, "zoo.html"), html_page(doc))
    records.write_text(os.path.join(out, "zoo.txt"), text_table(doc["rows"]) + "\n" + "\n".join(summary_lines(doc))
                       + "\n")


# --- the command -----------------------------------------------------------------

def parse(argv):
    opts = {"list": False, "audit_only": False, "only": None, "sources": ["glibc", "musl", "kernel"], "arches": list(ARCHES),
            "seconds": 40, "emulated_factor": 3, "quick": False, "jobs": os.cpu_count() or 2,
            "out": os.path.join(ROOT, "build", "zoo"), "gate_args": []}
    cli.refuse_non_utf8(argv, ("--list", "--quick", "--audit-only"))
    seen = set()
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            cli.print_help(USAGE)
            sys.exit(0)
        if arg in ("--list", "--quick", "--audit-only"):
            cli.once(seen, arg)
            opts[arg[2:].replace("-", "_")] = True
            continue
        name, eq, value = arg.partition("=")
        if name in ("--list", "--quick", "--audit-only"):
            raise Usage(f"{name} takes no value ('{arg}')")
        if name not in ("--only", "--sources", "--arch", "--seconds", "--emulated-factor", "--jobs", "--out",
                        "--gate-arg"):
            raise Usage(f"unknown option '{arg}' (see --help)")
        if not eq:
            value = next(it, None)
            if value is None:
                raise Usage(f"{name} needs a value")
        if not value.strip():
            raise Usage(f"{name} needs a value, not an empty one")
        if name != "--gate-arg":
            cli.once(seen, name)
        if name == "--only":
            try:
                opts["only"] = re.compile(value)
            except re.error as e:
                raise Usage(f"--only '{value}' is not a regular expression: {e}") from None
        elif name == "--sources":
            opts["sources"] = [s for s in value.split(",") if s]
            bad = [s for s in opts["sources"] if s not in ("glibc", "musl", "kernel")]
            if bad or not opts["sources"]:
                raise Usage(f"--sources '{value}': want glibc, musl, kernel")
        elif name == "--arch":
            opts["arches"] = [a for a in value.split(",") if a]
            bad = [a for a in opts["arches"] if a not in ARCHES]
            if bad or not opts["arches"]:
                raise Usage(f"--arch '{value}': want {', '.join(ARCHES)}")
        elif name in ("--seconds", "--jobs", "--emulated-factor"):
            if not re.match(r"^[1-9][0-9]{0,4}$", value):
                raise Usage(f"{name} '{value}' is not a whole number from 1 to 99999")
            opts[name[2:].replace("-", "_")] = int(value)
        elif name == "--out":
            opts["out"] = os.path.abspath(value)
        else:
            opts["gate_args"].append(value)
    return opts


def version():
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=30).stdout.decode().strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def main(argv):
    run = {}
    return cli.run_main("zoo", lambda: gate_all(argv, run), lambda: interrupted_note(run))


def gate_units(units, opts, flags, built):
    """Every unit's rows, gated `--jobs` at a time. Each gate run is a group
    of its own, ended with everything it started when it ends (procs.run);
    on an interruption every one still running is stopped before the
    threads are waited for."""
    rows = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=opts["jobs"])
    futures = {}
    try:
        # The pool starts them in this order.
        for u in schedule(units, opts, flags):
            futures[pool.submit(gate_unit, u, opts, flags, built.get(u.arch))] = u
        for fut in concurrent.futures.as_completed(futures):
            unit = futures[fut]
            try:
                got = fut.result()
            except (OSError, records.CouldNotJudge) as e:
                got = [row(unit, op, s, "error", 0.0, reason=f"could not judge: {e}") for op, s in unit.entries]
            for r in got:
                print(f"zoo: {r['verdict']:8} {r['seconds']:6.1f} s  {r['arch']:7} {r['entry']}  ({r['source']}"
                      f"{' [' + r['alternative'] + ']' if r['alternative'] else ''})", flush=True)
            rows += got
    except KeyboardInterrupt:
        for fut in futures:
            fut.cancel()
        cli.stop_children()
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)
    return rows


def new_run_id(out):
    """A name under out/runs/ that no earlier zoo run used (it is made)."""
    base = time.strftime("%Y%m%d-%H%M%S")
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    for n in itertools.count(1):
        name = base if n == 1 else f"{base}-{n}"
        try:
            os.mkdir(os.path.join(out, "runs", name))
            return name
        except FileExistsError:
            continue


def interrupted_note(run):
    """The interrupted line's end: where the partial results are (marked)."""
    where = run.get("where")
    if not where:
        return "nothing was gated yet; earlier results are as they were"
    try:
        records.write_text(os.path.join(where, "PARTIAL"), "interrupted: the gate runs of this zoo run that were "
                           "stopped have no verdict; zoo.json, zoo.txt and zoo.html are of an earlier run\n")
    except records.CouldNotJudge:
        pass
    return f"every gate run is stopped; this run's results so far are in {where}/ (partial)"


def move(opts):
    """Into the results directory when started anywhere but the tree
    (orchestration/workspace.py): the kernel cache, the gate runs and the
    default --out are then there."""
    global ROOT, KERNEL_CACHE
    if workspace.chosen() is None:
        return
    default = opts["out"] == os.path.join(ROOT, "build", "zoo")
    try:
        ROOT = workspace.enter().here
    except workspace.Unusable as e:
        raise Usage(str(e)) from None
    KERNEL_CACHE = os.path.join(ROOT, "build", "zoo")
    if default:
        opts["out"] = KERNEL_CACHE


def gate_all(argv, run=None):
    opts = parse(argv)
    move(opts)
    run = {} if run is None else run
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    clock = time.monotonic()
    notes = []
    try:
        os.makedirs(opts["out"], exist_ok=True)
    except OSError as e:
        raise Usage(f"--out {opts['out']}: cannot create it ({e.strerror or e})") from None
    if not os.access(opts["out"], os.W_OK | os.X_OK):
        raise Usage(f"--out {opts['out']}: not a folder it can write in")
    units = discover(opts["sources"], opts["arches"], opts["out"], notes)
    discover_seconds = time.monotonic() - clock
    if opts["only"]:
        units = [u for u in units if opts["only"].search(u.name)]
    if opts["list"]:
        for u in units:
            print(f"{u.name}\t{u.arch}\t{' '.join(f'{op}={s}' for op, s in u.entries)}\t"
                  f"{','.join(u.requires) or '-'}\t{u.source}\t{u.convention or 'c'}")
        for n in notes:
            print(f"zoo: note: {n}", file=sys.stderr)
        return 0
    if not units:
        print("zoo: no routine found to gate (see --list)", file=sys.stderr)
        return 2
    if opts["audit_only"]:
        return zoo_isa.run(units, opts["out"], started, notes)
    flags = cpu_flags()
    opts["run_id"] = new_run_id(opts["out"])
    run["where"] = os.path.join(opts["out"], "runs", opts["run_id"])
    t = time.monotonic()
    built = build_arches(units, opts["out"], opts["jobs"])
    build_seconds = time.monotonic() - t
    print(f"zoo: memgate built for {', '.join(sorted(built))} in {build_seconds:.1f} s", flush=True)
    rows = []
    print(f"zoo: gating {len(units)} objects and alternatives, {opts['jobs']} at a time, the longest first, "
          f"{opts['seconds']} s per entry point",
          flush=True)
    opts["clock"] = clock
    rows = gate_units(units, opts, flags, built)
    order = {u.name: i for i, u in enumerate(units)}
    rows.sort(key=lambda r: (order[r["unit"]], r["entry"]))
    doc = {"schema": SCHEMA, "started": started, "memgate": version(), "seconds_per_run": opts["seconds"],
           "quick": opts["quick"], "jobs": opts["jobs"], "wall_seconds": round(time.monotonic() - clock, 1),
           "discover_seconds": round(discover_seconds, 1), "build_seconds": round(build_seconds, 1),
           "totals": totals(rows),
           "arch_seconds": per_arch_seconds(rows), "arch_wall": per_arch_wall(rows), "notes": notes,
           "units": [u.as_dict() for u in units], "rows": rows}
    try:
        write_reports(doc, opts["out"])
    except OSError as e:
        print(f"zoo: could not judge: writing the reports failed: {e}", file=sys.stderr)
        return 2
    print(text_table(rows))
    for line in summary_lines(doc):
        print(line)
    print(f"zoo: {os.path.join(opts['out'], 'zoo.html')}")
    return exit_status(rows)

"""The gate's `misaligned` check (riscv64 and armhf under qemu-user): every
load or store of the routine that is not aligned to its width, as qemu's
plugin build/ARCH/qemu-misaligned.so (targets/qemu_misaligned.c) saw them
during the sweep. On RISC-V hardware such an access may trap, be emulated
by the kernel or firmware at a cost of hundreds of cycles, or run fast:
kernel and firmware code must not make one (a finding), user code that
does pays for it on most boards (a warning), and `--requires
misaligned_fast` says the routine is for a CPU where they are fast
(neither). ARMv7 performs unaligned LDR/STR itself (those that need
alignment fault under qemu too: contract.md H10): on armhf the watch is
for a routine declared for a target without unaligned access, `--requires
no_unaligned` (SCTLR.A set, -mno-unaligned-access: picolibc's armv7-a
memcpy shipped unaligned ldr for one), where each is a finding.
docs/arches.md, "Misaligned accesses", says what it can miss.

A unit of the registry's watch stage (check_view says the interface):
the gate runs memgate verify with what start() adds to its environment,
then asks judge()."""

import collections
import json
import os
import shlex
import struct
import subprocess

from . import cpu_models, elf_code
from .check_result import Check, cannot, na

PLUGIN = "qemu-misaligned.so"
DECLARATION = "misaligned_fast"
ARMHF_DECLARATION = "no_unaligned"
LOG = "misaligned.jsonl"
MAX_SYMBOLS = 1024  # as targets/qemu_misaligned.c takes them
PT_LOAD, PF_X = 1, 1

# The SARIF rule text (short, full, help) of its class (report.ABOUT).
ABOUT = {
    "misaligned-access": ("A load or store not aligned to its width, in kernel code or for a target without unaligned access",
                          "On riscv64 the gate watched the sweep with qemu's plugin and saw the routine load or store at an address that is not a multiple of the access's width (an element's, for a vector access). On RISC-V hardware such an access may trap, or be emulated by the kernel or firmware at a cost of hundreds of cycles; kernel and firmware code must not make one. Under the user contract it is a warning; --requires misaligned_fast allows it. On armhf the routine declared --requires no_unaligned (a target without unaligned access, where such an access faults): every one is a finding.",
                          "The message gives the width, load or store, the address and the instruction as symbol+offset; the replay runs the same sweep under the plugin and prints what it saw. See docs/arches.md, \"Misaligned accesses\"."),
}


def not_applicable(view):
    """Why the check does not apply to this run, or ""."""
    arch = view.foreign or view.host
    if arch == "armhf" and ARMHF_DECLARATION not in view.requires:
        return ("ARMv7 performs unaligned LDR/STR itself, and qemu faults on those that need alignment "
                f"(H10); --requires {ARMHF_DECLARATION} watches for a target without unaligned access")
    if arch not in ("riscv64", "armhf"):
        return f"riscv64's and armhf's check: {arch} hardware performs misaligned loads and stores itself"
    if not view.emulated:
        return f"{arch} runs natively here: the check is qemu-user's plugin"
    first = cpu_models.MODELS[arch][0][0]
    if arch == "armhf" and view.cpu_model not in ("", first):
        return f"watched under {first}: where an access is aligned does not depend on the CPU model"
    return ""


def plugin_path(view):
    return os.path.abspath(os.path.join(view.B, PLUGIN))


def code_symbols(view):
    """The names of the submission's functions (plain.o's code symbols,
    globals renamed mg_gate_*, statics as they are): what the plugin
    watches. elf_code.BadObject if plain.o cannot be read."""
    obj = elf_code.Object(os.path.join(view.W, "plain.o"))
    code = {s.index for s in obj.code_sections()}
    return sorted({s.name for s in obj.symbols if s.name and s.shndx in code and s.kind in (0, elf_code.STT_FUNC)
                   and not s.name.startswith(("$", ".L"))})


def plugin_value(view, out, symbols):
    """QEMU_PLUGIN's value (qemu-user reads it as -plugin)."""
    return ",".join([f"file={plugin_path(view)}", f"out={os.path.abspath(out)}"] + [f"sym={s}" for s in symbols])


def applies(view):
    """riscv64's and armhf's row only: another arch's report carries no
    row that can never apply there (as x86's has no below-sp)."""
    return (view.foreign or view.host) in ("riscv64", "armhf")


def refuses(requires, arch):
    """Why the plan is refused before anything builds: a declaration is
    riscv64's or armhf's, and the routine another arch's; or ""."""
    for declaration, owner in ((DECLARATION, "riscv64"), (ARMHF_DECLARATION, "armhf")):
        if declaration in requires and arch != owner:
            return f"--requires {declaration}: {owner}'s declaration, and this routine is for {arch}"
    return ""


# What start() found before memgate verify runs: why the watch is n/a
# (reason) or cannot judge (problem), else the plugin's log and the
# functions it watches; env is what it adds to verify's environment.
Watching = collections.namedtuple("Watching", "reason problem log symbols env")


def start(view):
    """The Watching of this run (the plugin's env, QEMU_PLUGIN, which
    qemu-user reads as -plugin), with no log left of an earlier run."""
    log = os.path.join(view.R, LOG)
    reason = not_applicable(view)
    if reason:
        return Watching(reason, "", log, [], {})
    symbols, problem = watched_symbols(view)
    if problem:
        return Watching("", problem, log, symbols, {})
    try:
        os.unlink(log)  # a result only of this run's verify
    except FileNotFoundError:
        pass
    return Watching("", "", log, symbols, {"QEMU_PLUGIN": plugin_value(view, log, symbols)})


def loads_plugins(qemu):
    """Whether this qemu-user takes -plugin (a static build, as
    bookworm-backports' qemu-user, has none)."""
    try:
        out = subprocess.run([qemu, "-h"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30,
                             text=True, errors="replace").stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(line.startswith("-plugin") for line in out.splitlines())


def watched_symbols(view):
    """(the functions the plugin is to watch, "") or (..., why it cannot)."""
    arch = view.foreign or view.host
    if not os.path.isfile(plugin_path(view)):
        return [], f"no {plugin_path(view)} (make ARCH={arch} builds it)"
    if not loads_plugins(view.emulated):
        return [], (f"{view.emulated} loads no plugins (a static build): the watch needs a qemu-user that does, "
                    f"as Debian 12's (QEMU_{'ARM' if arch == 'armhf' else 'RISCV64'} names it)")
    try:
        symbols = code_symbols(view)
    except elf_code.BadObject as e:
        return [], str(e)
    if not symbols or len(symbols) > MAX_SYMBOLS:
        return symbols, (f"{len(symbols)} function symbols in {view.W}/plain.o: the plugin watches "
                         f"1 to {MAX_SYMBOLS}")
    return symbols, ""


def judge(view, watching):
    """(Check, findings, warnings) after memgate verify ran with
    watching.env; its rows are view.earlier."""
    if watching.reason:
        return na("misaligned", watching.reason), [], []
    if watching.problem:
        return cannot("misaligned", watching.problem), [], []
    sweep = next((c for c in view.earlier if c.name == "sweep"), None)
    if sweep is None or sweep.status == "error":
        return cannot("misaligned", "the sweep it watches could not be judged"), [], []
    try:
        seen = read_log(watching.log)
        where = Locator(os.path.join(view.W, "memgate"))
    except (OSError, ValueError, elf_code.BadObject) as e:
        return cannot("misaligned", f"the plugin's report {watching.log}: {e}"), [], []
    seen = [dict(r, at=where.name(r)) for r in seen]
    repro = replay_text(view, view.verify_argv, watching.symbols)
    return verdict(view, seen, sweep, repro, watching.symbols)


def read_log(path):
    """The plugin's records, one per instruction (the first access each
    process saw). OSError when the file is missing: the plugin never ran."""
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    out, pcs = [], set()
    for line in lines:
        r = json.loads(line)
        if r.get("record") != "misaligned":
            raise ValueError(f"not a misaligned record: {line[:80]}")
        if r["pc"] not in pcs:
            pcs.add(r["pc"])
            out.append(r)
    return out


class Locator:
    """Maps a pc as loaded to `symbol+offset` in the program's own symbols:
    the plugin says where the code was loaded (start_code), the program's
    first executable segment where it was linked."""

    def __init__(self, program):
        self.obj = elf_code.Object(program)
        self.linked = first_code_segment(self.obj.raw)
        self.funcs = sorted((s.value, s.name) for s in self.obj.symbols if s.kind == elf_code.STT_FUNC and s.value)

    def name(self, record):
        pc = int(record["pc"], 16) - int(record["start_code"], 16) + self.linked
        best = None
        for value, name in self.funcs:
            if value <= pc:
                best = (value, name)
            else:
                break
        if best is None or best[1] != record.get("symbol"):
            return record.get("symbol") or f"pc {record['pc']}"
        return f"{best[1]}+{pc - best[0]:#x}"


def first_code_segment(raw):
    """p_vaddr of the first executable PT_LOAD of a 32- or 64-bit
    little-endian ELF program."""
    if raw[4] == 1:  # ELFCLASS32: Elf32_Phdr is type, offset, vaddr, ..., flags at 24
        phoff, = struct.unpack_from("<I", raw, 28)
        size, count = struct.unpack_from("<HH", raw, 42)
        for i in range(count):
            kind, _, vaddr, _, _, _, flags = struct.unpack_from("<7I", raw, phoff + i * size)
            if kind == PT_LOAD and flags & PF_X:
                return vaddr
        raise ValueError("no executable segment")
    phoff, = struct.unpack_from("<Q", raw, 32)
    size, count = struct.unpack_from("<HH", raw, 54)
    for i in range(count):
        kind, flags = struct.unpack_from("<II", raw, phoff + i * size)
        if kind == PT_LOAD and flags & PF_X:
            return struct.unpack_from("<Q", raw, phoff + i * size + 16)[0]
    raise ValueError("no executable segment")


def replay_text(view, argv, symbols):
    """The command that shows them again: the same memgate verify under
    the plugin, then its report."""
    out = os.path.join(view.R, "misaligned-replay.jsonl")
    env = ["QEMU_PLUGIN=" + plugin_value(view, out, symbols)]
    argv = [a for a in argv if not a.startswith(("--findings=", "--format="))]
    return f"{shlex.join(env + argv)} >/dev/null; cat {shlex.quote(out)}"


def describe(r):
    kind = "store" if r["access"] == "store" else "load"
    return f"a {r['width']}-byte {kind} at {r['address']} (address % {r['width']} = {int(r['address'], 16) % r['width']}) by {r['at']}"


def verdict(view, seen, sweep, repro, symbols):
    """(Check, findings, warnings) of what the plugin saw (`seen`, each
    record with its `at`) in the functions `symbols`, after `sweep`."""
    declared = DECLARATION in view.requires
    strict = (view.foreign or view.host) == "armhf"  # declared no_unaligned, or n/a
    kernel = view.contract == "kernel" or strict
    count = f"{len(seen)} instruction{'s' if len(seen) != 1 else ''}"
    if not seen:
        if sweep.status == "fail":
            return na("misaligned", "the sweep found something first"), [], []
        if sweep.status == "n/a":  # stopped by another row's findings: its note says which
            return na("misaligned", f"the sweep did not run to its end: {sweep.note}"), [], []
        some = symbols[:3] + ([f"{len(symbols) - 3} more"] if len(symbols) > 3 else [])
        return Check("misaligned", "pass", sweep.cases, 0, "no misaligned load or store in the sweep, "
                     f"watched by qemu's plugin in {', '.join(some)}"), [], []
    if declared:
        return Check("misaligned", "pass", sweep.cases, 0, f"{count} made misaligned accesses, which "
                     f"--requires {DECLARATION} allows (first: {describe(seen[0])})"), [], []
    why = (f"the routine is for a target without unaligned access (--requires {ARMHF_DECLARATION}: SCTLR.A set, "
           "or built with -mno-unaligned-access), where it is an alignment fault" if strict else
           "kernel and firmware code must not make them: they may trap, or be emulated at a cost of hundreds "
           "of cycles" if kernel else
           "on most RISC-V boards each traps and is emulated, hundreds of cycles (--requires "
           f"{DECLARATION} says the routine is for a CPU where they are fast)")
    if kernel:
        findings = [{"check": "misaligned", "kind": "misaligned-access",
                     "detail": f"misaligned access: {describe(r)}: {why}", "input": "", "repro": repro,
                     "signature": f"{view.name} misaligned-access {r['at']}", "at": r["at"],
                     "address": r["address"], "width": r["width"], "access": r["access"]} for r in seen]
        return Check("misaligned", "fail", sweep.cases, 0, f"{count} made misaligned accesses"), findings, []
    # A finding's repro gets the CPU model from gate_runs, a warning's here.
    repro = f"QEMU_CPU={view.cpu_model} {repro}" if view.cpu_model else repro
    warning = {"check": "misaligned", "name": "misaligned-access", "repro": repro,
               "text": f"{count} made misaligned accesses, first {describe(seen[0])}: {why}"}
    return Check("misaligned", "pass", sweep.cases, 0, f"{count} made misaligned accesses (a warning: the user "
                 "contract)"), [], [warning]

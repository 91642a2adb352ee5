"""The gate's `misaligned` check (riscv64 under qemu-user): every load or
store of the routine that is not aligned to its width, as qemu's plugin
build/riscv64/qemu-misaligned.so (targets/qemu_misaligned.c) saw them
during the sweep. On RISC-V hardware such an access may trap, be emulated
by the kernel or firmware at a cost of hundreds of cycles, or run fast:
kernel and firmware code must not make one (a finding), user code that
does pays for it on most boards (a warning), and `--requires
misaligned_fast` says the routine is for a CPU where they are fast
(neither). docs/arches.md, "Misaligned accesses", says what it can miss."""

import json
import os
import shlex
import struct

from . import elf_code
from .check_result import Check, cannot, na

PLUGIN = "qemu-misaligned.so"
DECLARATION = "misaligned_fast"
LOG = "misaligned.jsonl"
MAX_SYMBOLS = 1024  # as targets/qemu_misaligned.c takes them
PT_LOAD, PF_X = 1, 1


def not_applicable(ctx):
    """Why the check does not apply to this run, or ""."""
    arch = ctx.foreign or ctx.host
    if arch != "riscv64":
        return f"riscv64's check: {arch} hardware performs misaligned loads and stores itself"
    if not ctx.emulated:
        return "riscv64 runs natively here: the check is qemu-user's plugin"
    return ""


def plugin_path(ctx):
    return os.path.abspath(os.path.join(ctx.B, PLUGIN))


def code_symbols(ctx):
    """The names of the submission's functions (plain.o's code symbols,
    globals renamed mg_gate_*, statics as they are): what the plugin
    watches. elf_code.BadObject if plain.o cannot be read."""
    obj = elf_code.Object(os.path.join(ctx.W, "plain.o"))
    code = {s.index for s in obj.code_sections()}
    return sorted({s.name for s in obj.symbols if s.name and s.shndx in code and s.kind in (0, elf_code.STT_FUNC)
                   and not s.name.startswith(("$", ".L"))})


def plugin_value(ctx, out, symbols):
    """QEMU_PLUGIN's value (qemu-user reads it as -plugin)."""
    return ",".join([f"file={plugin_path(ctx)}", f"out={os.path.abspath(out)}"] + [f"sym={s}" for s in symbols])


class Watch:
    """One run's watch: the env memgate verify runs with, then its judge."""

    def __init__(self, ctx):
        self.arch = ctx.foreign or ctx.host
        self.reason = not_applicable(ctx)
        self.problem = ""
        self.log = os.path.join(ctx.R, LOG)
        self.symbols = []
        if self.reason:
            return
        if not os.path.isfile(plugin_path(ctx)):
            self.problem = f"no {plugin_path(ctx)} (make ARCH=riscv64 builds it)"
            return
        try:
            self.symbols = code_symbols(ctx)
        except elf_code.BadObject as e:
            self.problem = str(e)
            return
        if not self.symbols or len(self.symbols) > MAX_SYMBOLS:
            self.problem = (f"{len(self.symbols)} function symbols in {ctx.W}/plain.o: the plugin watches "
                            f"1 to {MAX_SYMBOLS}")
            return
        try:
            os.unlink(self.log)  # a result only of this run's verify
        except FileNotFoundError:
            pass

    def has_row(self):
        """riscv64's row only: another arch's report carries no row that
        can never apply there (as x86's has no below-sp)."""
        return self.arch == "riscv64"

    def active(self):
        return not self.reason and not self.problem

    def env(self, ctx, env):
        if not self.active():
            return env
        return dict(env, QEMU_PLUGIN=plugin_value(ctx, self.log, self.symbols))

    def judge(self, ctx, verify_checks, argv):
        """(Check, findings, warnings) after memgate verify ran with env()."""
        if self.reason:
            return na("misaligned", self.reason), [], []
        if self.problem:
            return cannot("misaligned", self.problem), [], []
        sweep = next((c for c in verify_checks if c.name == "sweep"), None)
        if sweep is None or sweep.status == "error":
            return cannot("misaligned", "the sweep it watches could not be judged"), [], []
        try:
            seen = read_log(self.log)
            where = Locator(os.path.join(ctx.W, "memgate"))
        except (OSError, ValueError, elf_code.BadObject) as e:
            return cannot("misaligned", f"the plugin's report {self.log}: {e}"), [], []
        seen = [dict(r, at=where.name(r)) for r in seen]
        return verdict(ctx, seen, sweep, replay_text(ctx, argv, self.symbols), self.symbols)


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
    """p_vaddr of the first executable PT_LOAD of a 64-bit ELF program."""
    phoff, = struct.unpack_from("<Q", raw, 32)
    size, count = struct.unpack_from("<HH", raw, 54)
    for i in range(count):
        kind, flags = struct.unpack_from("<II", raw, phoff + i * size)
        if kind == PT_LOAD and flags & PF_X:
            return struct.unpack_from("<Q", raw, phoff + i * size + 16)[0]
    raise ValueError("no executable segment")


def replay_text(ctx, argv, symbols):
    """The command that shows them again: the same memgate verify under
    the plugin, then its report."""
    out = os.path.join(ctx.R, "misaligned-replay.jsonl")
    env = ["QEMU_PLUGIN=" + plugin_value(ctx, out, symbols)]
    argv = [a for a in argv if not a.startswith(("--findings=", "--format="))]
    return f"{shlex.join(env + argv)} >/dev/null; cat {shlex.quote(out)}"


def describe(r):
    kind = "store" if r["access"] == "store" else "load"
    return f"a {r['width']}-byte {kind} at {r['address']} (address % {r['width']} = {int(r['address'], 16) % r['width']}) by {r['at']}"


def verdict(ctx, seen, sweep, repro, symbols):
    """(Check, findings, warnings) of what the plugin saw (`seen`, each
    record with its `at`) in the functions `symbols`, after `sweep`."""
    declared = DECLARATION in ctx.requires
    kernel = ctx.contract == "kernel"
    count = f"{len(seen)} instruction{'s' if len(seen) != 1 else ''}"
    if not seen:
        if sweep.status == "fail":
            return na("misaligned", "the sweep found something first"), [], []
        some = symbols[:3] + ([f"{len(symbols) - 3} more"] if len(symbols) > 3 else [])
        return Check("misaligned", "pass", sweep.cases, 0, "no misaligned load or store in the sweep, "
                     f"watched by qemu's plugin in {', '.join(some)}"), [], []
    if declared:
        return Check("misaligned", "pass", sweep.cases, 0, f"{count} made misaligned accesses, which "
                     f"--requires {DECLARATION} allows (first: {describe(seen[0])})"), [], []
    why = ("kernel and firmware code must not make them: they may trap, or be emulated at a cost of hundreds "
           "of cycles" if kernel else
           "on most RISC-V boards each traps and is emulated, hundreds of cycles (--requires "
           f"{DECLARATION} says the routine is for a CPU where they are fast)")
    if kernel:
        findings = [{"check": "misaligned", "kind": "misaligned-access",
                     "detail": f"misaligned access: {describe(r)}: {why}", "input": "", "repro": repro,
                     "signature": f"{ctx.name} misaligned-access {r['at']}", "at": r["at"],
                     "address": r["address"], "width": r["width"], "access": r["access"]} for r in seen]
        return Check("misaligned", "fail", sweep.cases, 0, f"{count} made misaligned accesses"), findings, []
    # A finding's repro gets the CPU model from gate_runs, a warning's here.
    repro = f"QEMU_CPU={ctx.cpu_model} {repro}" if ctx.cpu_model else repro
    warning = {"check": "misaligned", "name": "misaligned-access", "repro": repro,
               "text": f"{count} made misaligned accesses, first {describe(seen[0])}: {why}; repro: {repro}"}
    return Check("misaligned", "pass", sweep.cases, 0, f"{count} made misaligned accesses (a warning: the user "
                 "contract)"), [], [warning]

"""The gate's `isa` check (isa_audit on the submission's merged object),
and what it tells the other checks: a tool that cannot run a feature the
code uses (valgrind has no AVX-512; a qemu model without SVE or MOPS; this
CPU) makes the checks that run the code under it n/a, never a finding.
After it, the static stage's other checks: their units (units.py) that
apply here."""

import os
import time
import typing

from . import check_view, cpu_models, elf_code, isa_audit, isa_features, landing_pads, registry, units
from .check_result import Check, cannot, na
from .check_view import merged_object
from .gate_options import DECLARATIONS, FEATURE_BITS

# The checks that execute the routine, and where: natively (or under the
# arch's qemu model), under valgrind.
EXECUTING = registry.EXECUTING
UNDER_A_FURTHER_MODEL = registry.UNDER_A_FURTHER_MODEL


class Audit(typing.NamedTuple):
    """What the audit returns: its row and findings, the report's `isa`
    object (None when it could not decode), and the features the code
    needs, which the run loop keeps for the checks that run the code."""
    check: Check
    findings: list
    summary: typing.Optional[dict] = None
    uses: tuple = ()


def audit_check(ctx):
    """The Audit of the merged object. Could not judge when Capstone is
    missing, the object cannot be read, or some bytes could not be decoded
    (its `uses` then holds what was seen)."""
    declared = [f for f in ctx.requires if f not in DECLARATIONS]
    ctx.progress("the ISA audit")
    t = time.monotonic()
    try:
        result = isa_audit.audit(merged_object(ctx), ctx.foreign or ctx.host)
    except isa_audit.CannotAudit as e:
        return Audit(cannot("isa", str(e)), [])
    seconds = time.monotonic() - t
    seen = {"summary": isa_audit.summary(result, declared), "uses": tuple(result.needed())}
    found = isa_audit.findings(result, declared, ctx.name, merged_object(ctx))
    try:
        pads, pads_note = landing_pad_findings(ctx)
    except elf_code.BadObject as e:
        return Audit(cannot("isa", str(e), seconds), found, **seen)
    found += pads
    if result.limits:
        more = f" (and {len(result.limits) - 1} more)" if len(result.limits) > 1 else ""
        return Audit(cannot("isa", result.limits[0] + more, seconds), found, **seen)
    status = "fail" if found else "pass"
    return Audit(Check("isa", status, result.instructions, seconds, isa_audit.note(result) + pads_note), found,
                 **seen)


def submitted_objects(ctx):
    """The objects of the submission's own files, as compiled for the
    merge (plain.parts/INDEX-NAME.o; an object as given): the merged one
    also holds the gate's own parts (glibc-x86-defaults.c), unmarked, and
    the linker keeps a feature marking only where every input has it."""
    parts = os.path.dirname(merged_object(ctx))
    out = []
    for index, src in enumerate(ctx.sources[:len(ctx.files)]):
        base = os.path.splitext(os.path.basename(src))[0]
        out.append(src if src.endswith(".o") else os.path.join(parts, f"{index}-{base}.o"))
    return out


def landing_pad_findings(ctx):
    """(findings, note) of the landing-pad rule (docs/contract.md, X17, A16):
    in each of the submission's objects marked for the arch's landing pads
    (x86: IBT, aarch64: BTI, A16), every entry it defines starts with one. BadObject when an
    object cannot be read."""
    symbols = [e["symbol"] for e in ctx.entries]
    names = {e["symbol"]: e["name"] for e in ctx.entries}
    found, pad, marked, shstk = [], None, 0, 0
    for obj in submitted_objects(ctx):
        pad, claimed, stack, _ = landing_pads.missing(obj, symbols)
        marked, shstk = marked + claimed, shstk + stack
        found += landing_pads.findings(obj, symbols, lambda s: names.get(s, s))
    if pad is None:
        return found, ""
    starts = " or ".join(n for _, n in pad.starts)
    note = (f"; marked for {pad.feature}: each entry must start with {starts}" if marked
            else f"; not marked for {pad.feature} (no landing pad asked)")
    if shstk:
        note += "; marked for SHSTK (not checked: the CPU compares the shadow stack)"
    return found, note


def static_checks(ctx):
    """[(Check, findings, warnings)] of the registry's static checks that
    have a unit (below-sp, uaccess: units.py) and apply here, in its order.
    The isa audit is not among them: audit_check runs it first."""
    view = check_view.of(ctx)
    return [unit.run(view) for _, unit in units.of_stage("static") if unit.applies(view)]


def host_cpuinfo():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def valgrind_cannot(ctx):
    """'valgrind cannot run avx512f' when the code uses what valgrind has not."""
    lacking = [f for f in ctx.isa_uses if f in isa_features.VALGRIND_CANNOT_RUN]
    return f"valgrind cannot run {','.join(lacking)}" if lacking else ""


def runner_cannot(ctx, model):
    """Why the code cannot run where this run's checks would run it (a qemu
    model, or this CPU), or "": the features it uses that they lack."""
    # What the code uses, and what it declares that the harness has no
    # CPUID bit for (it skips a routine only for the bits it knows).
    unbitted = [f for f in ctx.requires if f not in FEATURE_BITS and f in isa_features.ALL]
    uses = [f for f in dict.fromkeys(list(ctx.isa_uses) + unbitted)
            if f not in isa_features.BASELINE.get(ctx.arch, ())]
    if not uses:
        return ""
    if ctx.emulated:
        have = cpu_models.model_facts(model, ctx.arch)
        lacking = [f for f in uses if f in cpu_models.FACTS.get(ctx.arch, ()) and (have is None or f not in have)]
        return f"{ctx.emulated} -cpu {model or 'max'} cannot run {','.join(lacking)}" if lacking else ""
    # Natively (i386 too): the host's flags; unreadable, the harness's own
    # CPUID test still skips what --requires names.
    text = host_cpuinfo()
    lacking = isa_features.host_lacks(uses, text) if text else []
    return f"this CPU cannot run {','.join(lacking)}" if lacking else ""


def not_run(ctx, reason, primary):
    """The rows of a run whose runner cannot execute the code."""
    names = EXECUTING if primary else UNDER_A_FURTHER_MODEL
    return [na(name, reason) for name in names]


def past_deadline(ctx, primary):
    """The rows of a run that had no time left: could not judge, every one."""
    names = EXECUTING if primary else UNDER_A_FURTHER_MODEL
    return [Check(name, "skip", note="--skip") if ctx.skipped(name) else
            cannot(name, f"did not run: the gate's deadline (--seconds {ctx.seconds}) had passed")
            for name in names]


def minimal_line(ctx):
    """The line the gate prints under its table, whatever the verdict."""
    if not ctx.isa:
        return ""
    minimal = ",".join(ctx.isa["minimal_requires"]) or "none"
    declared = ",".join(ctx.isa["declared"]) or "none"
    return f"minimal --requires: {minimal} (declared: {declared})"

"""The gate's `isa` check (isa_audit on the submission's merged object),
and what it tells the other checks: a tool that cannot run a feature the
code uses (valgrind has no AVX-512; a qemu model without SVE or MOPS; this
CPU) makes the checks that run the code under it n/a, never a finding."""

import os
import time

from . import cpu_models, elf_code, isa_audit, isa_features, landing_pads, registry, sp_audit, uaccess_audit
from .check_result import Check, cannot, na
from .gate_options import DECLARATIONS, FEATURE_BITS

# The checks that execute the routine, and where: natively (or under the
# arch's qemu model), under valgrind.
EXECUTING = registry.EXECUTING
UNDER_A_FURTHER_MODEL = registry.UNDER_A_FURTHER_MODEL


def merged_object(ctx):
    return os.path.join(ctx.W, "plain.parts", "merged.o")


def audit_check(ctx):
    """(Check, findings) of the audit; sets ctx.isa (the report's object)
    and ctx.isa_uses (the features the code needs). Could not judge when
    Capstone is missing, the object cannot be read, or some bytes could not
    be decoded (ctx.isa_uses then holds what was seen)."""
    ctx.isa, ctx.isa_uses = None, []
    declared = [f for f in ctx.requires if f not in DECLARATIONS]
    ctx.progress("the ISA audit (Capstone)")
    t = time.monotonic()
    try:
        result = isa_audit.audit(merged_object(ctx), ctx.foreign or ctx.host)
    except isa_audit.NoDecoder as e:
        return na("isa", str(e)), []
    except isa_audit.CannotAudit as e:
        return cannot("isa", str(e)), []
    seconds = time.monotonic() - t
    ctx.isa = isa_audit.summary(result, declared)
    ctx.isa_uses = result.needed()
    found = isa_audit.findings(result, declared, ctx.name, merged_object(ctx))
    try:
        pads, pads_note = landing_pad_findings(ctx)
    except elf_code.BadObject as e:
        return cannot("isa", str(e), seconds), found
    found += pads
    if result.limits:
        more = f" (and {len(result.limits) - 1} more)" if len(result.limits) > 1 else ""
        return cannot("isa", result.limits[0] + more, seconds), found
    status = "fail" if found else "pass"
    return Check("isa", status, result.instructions, seconds, isa_audit.note(result) + pads_note), found


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


def below_sp_check(ctx):
    """(Check, findings) of the below-sp audit (sp_audit) on the merged
    object: aarch64's; on x86 the interrupts stage sees such accesses at
    run time."""
    arch = ctx.foreign or ctx.host
    if arch != "aarch64":
        return na("below-sp", "aarch64's static rule: on x86 the interrupts stage writes below "
                         "the stack pointer at every instruction"), []
    t = time.monotonic()
    try:
        result = sp_audit.audit(merged_object(ctx))
    except (elf_code.BadObject, isa_audit.CannotAudit) as e:
        return cannot("below-sp", str(e)), []
    seconds = time.monotonic() - t
    found = sp_audit.findings(result, ctx.name, merged_object(ctx))
    return Check("below-sp", "fail" if found else "pass", result.instructions, seconds,
                        sp_audit.note(result)), found


def uaccess_check(ctx):
    """(Check, findings) of the uaccess audit (uaccess_audit; docs/contract.md
    U9, AK6) on the merged object, for the user-copy entries: each listed
    user access inside the SMAP brackets (x86), or unprivileged (arm64).
    n/a when every entry leaves its brackets to its caller."""
    symbols = [e["symbol"] for e in ctx.entries if e["family"] == "usercopy"]
    t = time.monotonic()
    try:
        rule, results = uaccess_audit.audit(merged_object(ctx), symbols)
    except (elf_code.BadObject, isa_audit.CannotAudit) as e:
        return cannot("uaccess", str(e)), []
    seconds = time.monotonic() - t
    if rule is None:
        return na("uaccess", f"no uaccess rule for {ctx.foreign or ctx.host}"), []
    limits = [l for r in results for l in r.limits]
    if limits:
        more = f" (and {len(limits) - 1} more)" if len(limits) > 1 else ""
        return cannot("uaccess", limits[0] + more, seconds), []
    text = uaccess_audit.note(rule, results)
    if not uaccess_audit.applies(results, rule):
        return na("uaccess", text), []
    found = uaccess_audit.findings(rule, results, ctx.name, merged_object(ctx))
    return Check("uaccess", "fail" if found else "pass", sum(r.instructions for r in results), seconds,
                        text), found


# The static ABI rules on the merged object, and where each applies (a
# report carries no row that can never apply): aarch64's below-sp (x86
# sees what lies below the stack pointer at run time); the uaccess audit
# for the user copies. BTI's landing pads are the isa check's landing-pad
# rule (landing_pads), as IBT's are.
STATIC_RULES = (
    (lambda ctx: (ctx.foreign or ctx.host) == "aarch64", below_sp_check),
    (lambda ctx: any(e["family"] == "usercopy" for e in ctx.entries), uaccess_check),
)


def static_checks(ctx):
    """[(Check, findings)] of the rules of STATIC_RULES that apply here."""
    return [check(ctx) for applies, check in STATIC_RULES if applies(ctx)]


def host_cpuinfo():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def valgrind_cannot(ctx):
    """'valgrind cannot run avx512f' when the code uses what valgrind has not."""
    lacking = [f for f in getattr(ctx, "isa_uses", []) if f in isa_features.VALGRIND_CANNOT_RUN]
    return f"valgrind cannot run {','.join(lacking)}" if lacking else ""


def runner_cannot(ctx, model):
    """Why the code cannot run where this run's checks would run it (a qemu
    model, or this CPU), or "": the features it uses that they lack."""
    # What the code uses, and what it declares that the harness has no
    # CPUID bit for (it skips a routine only for the bits it knows).
    unbitted = [f for f in ctx.requires if f not in FEATURE_BITS and f in isa_features.ALL]
    uses = [f for f in dict.fromkeys(list(getattr(ctx, "isa_uses", [])) + unbitted)
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
    if not getattr(ctx, "isa", None):
        return ""
    minimal = ",".join(ctx.isa["minimal_requires"]) or "none"
    declared = ",".join(ctx.isa["declared"]) or "none"
    return f"minimal --requires: {minimal} (declared: {declared})"

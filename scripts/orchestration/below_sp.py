"""The gate's `below-sp` check, a static unit (check_view says the
interface): aarch64's rule that nothing is loaded or stored below the
stack pointer (docs/contract.md A4, AK4), on the merged object. sp_audit.py
reads the object; this says where the row applies and makes it."""

import time

from . import elf_code, isa_audit, sp_audit
from .check_result import Check, cannot, na

ABOUT = {}  # no class of its own: its findings are the engine's classes


def applies(view):
    """aarch64's row: on x86 the interrupts stage writes below the stack
    pointer at run time, and a report carries no row that can never apply."""
    return (view.foreign or view.host) == "aarch64"


def run(view):
    """(Check, findings, warnings) of the below-sp audit."""
    if not applies(view):
        return na("below-sp", "aarch64's static rule: on x86 the interrupts stage writes below "
                              "the stack pointer at every instruction"), [], []
    t = time.monotonic()
    try:
        result = sp_audit.audit(view.merged)
    except (elf_code.BadObject, isa_audit.CannotAudit) as e:
        return cannot("below-sp", str(e)), [], []
    seconds = time.monotonic() - t
    found = sp_audit.findings(result, view.name, view.merged)
    return Check("below-sp", "fail" if found else "pass", result.instructions, seconds,
                 sp_audit.note(result)), found, []

"""The gate's `uaccess` check, a static unit (check_view says the
interface): the rules smap-unbracketed, smap-left-open and
pan-privileged-access (docs/contract.md U9, U11, AK6) on the merged
object, for the user-copy entries. uaccess_audit.py reads the object;
this says where the row applies and makes it."""

import time

from . import elf_code, isa_audit, uaccess_audit
from .check_result import Check, cannot, na

# The SARIF rule text (short, full, help) of its classes (report.ABOUT).
ABOUT = {
    "smap-unbracketed": ("A user access outside the SMAP brackets",
                         "A user copy's instruction that its exception table lists as a user access runs, on some path from the entry, before its stac or after its clac: on a CPU with SMAP the kernel's access to user memory faults there, and the copy fails (or the kernel oopses) on every such machine.",
                         "memgate cannot run stac and clac (they are privileged), so the kernel shim and MG_STAC/MG_CLAC leave nops and a record of where they are; the uaccess audit follows the routine's control flow to each listed instruction. The message names the instruction as symbol+offset. See docs/contract.md, U9."),
    "smap-left-open": ("A return with the SMAP brackets open",
                       "A user copy returns, on some path from the entry (a fault's fixup, say), after its stac and before a clac: its caller then runs with user access enabled (EFLAGS.AC set), and a later stray kernel access to user memory is not stopped by SMAP. The kernel's objtool refuses such a return (\"return with UACCESS enabled\").",
                       "The uaccess audit follows the routine's own paths (its jumps and fixups, not its callees') from the entry to each of its returns. The message names the return as symbol+offset. See docs/contract.md, U11."),
    "pan-privileged-access": ("A privileged load or store to user memory (arm64 PAN)",
                              "A user copy's instruction that its exception table lists as a user access is a plain (privileged) load or store, not the unprivileged ldtr/sttr family, and lies outside the uaccess brackets: with PAN it faults on user memory.",
                              "At EL0, under qemu-user, both forms do the same, so only the static uaccess audit sees it. The message names the instruction as symbol+offset. See docs/contract.md, AK6."),
}


def user_copies(view):
    return [e["symbol"] for e in view.entries if e["family"] == "usercopy"]


def applies(view):
    """The user copies' row: a report of no user copy carries none."""
    return bool(user_copies(view))


def run(view):
    """(Check, findings, warnings) of the audit: each listed user access
    inside the SMAP brackets (x86), or unprivileged (arm64), and no return
    with them open. n/a when every entry leaves its brackets to its caller.
    A finding names its entry's symbol: it is that entry's."""
    t = time.monotonic()
    try:
        rule, results = uaccess_audit.audit(view.merged, user_copies(view))
    except (elf_code.BadObject, isa_audit.CannotAudit) as e:
        return cannot("uaccess", str(e)), [], []
    seconds = time.monotonic() - t
    if rule is None:
        return na("uaccess", f"no uaccess rule for {view.foreign or view.host}"), [], []
    limits = [l for r in results for l in r.limits]
    if limits:
        more = f" (and {len(limits) - 1} more)" if len(limits) > 1 else ""
        return cannot("uaccess", limits[0] + more, seconds), [], []
    text = uaccess_audit.note(rule, results)
    if not uaccess_audit.applies(results, rule):
        return na("uaccess", text), [], []
    found = uaccess_audit.findings(rule, results, view.name, view.merged)
    return Check("uaccess", "fail" if found else "pass", sum(r.instructions for r in results), seconds,
                 text), found, []

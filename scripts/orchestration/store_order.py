"""The gate's `store-order` check, a static unit (check_view says the
interface): on x86, every path from a non-temporal store to a return of
the routine passes a fence (docs/contract.md M1), on the merged object,
for every entry. store_order_audit.py reads the object; this says where
the row applies and makes it."""

import time

from . import elf_code, isa_audit, store_order_audit
from .check_result import Check, cannot

# The SARIF rule text (short, full, help) of its class (report.ABOUT).
ABOUT = {
    "unfenced-nt-store": ("A non-temporal store not fenced before the return",
                          "On some path from the entry the routine returns after a non-temporal store (movnti, movntdq, vmovntdq, ...) with no sfence, mfence or locked instruction after it. x86 orders such stores weakly: a store its caller makes after the return, a release store that publishes the copied bytes to another thread, can become visible first, and the reader sees stale bytes (C11 5.1.2.4 and 7.17; Intel SDM vol. 3, 8.2.2 and 11.3.1; AMD APM vol. 2, 7.4). glibc's large-copy paths and the kernel's __copy_user_nocache end their non-temporal loops with an sfence for this reason.",
                          "The store-order audit follows the routine's own paths (jumps, both ways of each branch, the exception table's fixups, its callees summed up at their returns) from the entry to each return. The message names the store and the return as symbol+offset. See docs/contract.md, M1."),
}


def applies(view):
    """x86's row: aarch64's STNP and riscv64's non-temporal hints leave the
    stores' order as it is (M2, M3), and a report carries no row that can
    never apply."""
    return (view.foreign or view.host) in store_order_audit.ARCHES


def run(view):
    """(Check, findings, warnings) of the audit over every entry. A path
    it cannot follow where a store may be pending is could not judge."""
    t = time.monotonic()
    symbols = [e["symbol"] for e in view.entries]
    try:
        _, results = store_order_audit.audit(view.merged, symbols)
    except (elf_code.BadObject, isa_audit.CannotAudit) as e:
        return cannot("store-order", str(e)), [], []
    seconds = time.monotonic() - t
    limit = store_order_audit.first_limit(results)
    if limit:
        return cannot("store-order", limit, seconds), [], []
    found = store_order_audit.findings(results, view.name, view.merged)
    if not view.emulated and len(view.entries) == 1:
        # To see it happen: the message-passing run (harness/run/publish.h),
        # on the hardware; a count, never the verdict.
        for f in found:
            f["repro"] += f"; {view.W}/memgate publish --variant={view.name}"
    return Check("store-order", "fail" if found else "pass", sum(r.instructions for r in results), seconds,
                 store_order_audit.note(results)), found, []

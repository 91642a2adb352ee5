"""The gate's checks: one ordered table, the only list of them. Every
module that names checks derives what it needs from it: the reports'
check names and the classes each may report (report.py, records.py), what
--skip may leave out (gate_options.py), what runs under a further CPU model
or value set and the rows of a run that could not execute (gate_isa.py),
the situations memgate verify runs after its sweep and the checks that
run after verify, in order (checks.py, gate_runs.py).

This module imports nothing of the gate's: any of them may import it.
Adding a static or watch check is a row here naming its unit (a module of
its own, check_view.py says what it has), the unit, its self-test and its
row in docs/contract.md (docs/design.md, "A check of the gate")."""

import collections

# name: as the table, the reports and --skip name it.
# stage: when it runs and what runs it:
#   "build"     once per build, the compile step and its rules;
#   "static"    once per gate, from the built object (no code runs);
#   "verify"    one memgate verify run: the ABI checks on every call, the
#               sweep, the 4 GiB+ check;
#   "situation" a stage of that same run after its sweep (its record's
#               fields, docs/records.md);
#   "watch"     what a plugin saw while verify ran (riscv64 under qemu);
#   "step"      a program of its own after verify, in this order.
# own: classes only this check may report.
# only_own: it reports nothing but its own classes.
# executes: it runs the routine's code (a run that cannot execute it has
#   this row n/a, one that ran out of time could not judge).
# skippable: --skip may leave it out.
# further: it runs under a further CPU model or glibc value set too.
# unit: the module (scripts/orchestration/UNIT.py) that runs a check of the
#   static or watch stage (units.py finds it); None for the others, which
#   the build, checks.run_verify and checks.STEP_RUNNERS run, and for isa,
#   whose audit gate_isa runs first: what it found (the features the code
#   uses) decides where the other checks can run.
Check = collections.namedtuple("Check", "name stage own only_own executes skippable further unit",
                               defaults=(None,))

CHECKS = (
    Check("build", "build", ("build-error",), True, False, False, True),
    Check("isa", "static", ("undeclared-feature", "landing-pad"), True, False, False, False),
    Check("below-sp", "static", (), False, False, False, False, "below_sp"),
    Check("uaccess", "static", ("smap-unbracketed", "smap-left-open", "pan-privileged-access"), True,
          False, False, False, "uaccess"),
    Check("store-order", "static", ("unfenced-nt-store",), True, False, False, False, "store_order"),
    Check("abi", "verify", (), False, True, False, True),
    Check("sweep", "verify", (), False, True, False, True),
    Check("interrupts", "situation", (), False, False, False, True),
    Check("threads", "situation", (), False, False, False, True),
    Check("huge", "verify", (), False, True, True, True),
    Check("misaligned", "watch", ("misaligned-access",), True, False, False, True, "misaligned"),
    Check("fuzz", "step", ("flaky",), False, True, True, False),
    Check("valgrind", "step", (), False, True, True, False),
    Check("regressions", "step", (), False, True, True, True),
    Check("bench", "step", ("slowdown",), True, True, True, False),
)

NAMES = tuple(c.name for c in CHECKS)
BY_NAME = {c.name: c for c in CHECKS}
# The classes the gate adds to the engine's, and which check owns each.
OWNER = {cls: c.name for c in CHECKS for cls in c.own}
GATE_CLASSES = tuple(OWNER)
SKIPPABLE = tuple(c.name for c in CHECKS if c.skippable)
SITUATIONS = tuple(c.name for c in CHECKS if c.stage == "situation")
STEPS = tuple(c.name for c in CHECKS if c.stage == "step")
EXECUTING = tuple(c.name for c in CHECKS if c.executes)
UNDER_A_FURTHER_MODEL = tuple(c.name for c in CHECKS if c.executes and c.further)


def may_report(check, cls):
    """Whether `check` may report a finding of class `cls`: a gate class
    only its owner, and a check of its own classes only those."""
    spec = BY_NAME.get(check)
    if spec is not None and spec.only_own:
        return cls in spec.own
    return OWNER.get(cls, check) == check


def owners_text():
    """'build-error goes with build, ...': which check each owned class
    goes with, for a reader of a refused report."""
    parts = [f"{' and '.join(c.own) if len(c.own) < 3 else ', '.join(c.own[:-1]) + ' and ' + c.own[-1]} "
             f"with {c.name}" for c in CHECKS if c.own]
    return "; ".join(parts) + ", and only there"

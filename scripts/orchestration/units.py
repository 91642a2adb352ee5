"""The checks' units: the module each registry row of the static and watch
stages names (its `unit`), found here by that name. A module of its own
so that the modules that run the checks (gate_isa, gate_runs) both reach
the units without importing each other; registry.py names the units and
imports none of them, so that anyone may import it."""

from . import below_sp, misaligned, registry, store_order, uaccess

# Every unit, by the name of its module (registry's `unit` column).
BY_NAME = {m.__name__.rpartition(".")[2]: m for m in (below_sp, uaccess, store_order, misaligned)}
# The SARIF rule texts of the classes the units own (report.ABOUT has the rest).
ABOUT = {cls: text for unit in BY_NAME.values() for cls, text in unit.ABOUT.items()}


def of_stage(stage):
    """[(registry row, unit)] of the stage's checks that have a unit, in the
    registry's order."""
    return [(row, BY_NAME[row.unit]) for row in registry.CHECKS if row.stage == stage and row.unit]

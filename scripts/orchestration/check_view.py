"""What a check's unit may read of one gate run: a small read-only View of
the options and of what earlier checks found, built from the gate's
Context by the module that runs the checks (docs/design.md, "A check of
the gate").

Every unit (its registry row names it; units.py finds it) has
  ABOUT                         {class: (short, full, help)}: the SARIF rule
                                text of the classes its row owns
  applies(view) -> bool         whether this run's report has its row at all
A unit of the registry's static stage (below_sp.py, uaccess.py) has
  run(view) -> (Check, findings, warnings)
                                its row, once per gate, from the built object;
                                a finding that names a symbol is that entry's.
A unit of the watch stage (misaligned.py) has
  refuses(requires, arch) -> str
                                why the plan is refused before anything
                                builds (a declaration of another arch's), or ""
  start(view) -> Watching       before memgate verify: what it adds to
                                verify's environment (.env) and keeps for
                                judge
  judge(view, watching) -> (Check, findings, warnings)
                                after verify, whose rows are view.earlier.
A unit makes its rows and findings and returns them; it sets nothing on
the Context, and the runner adds what it returns to the run's results.

The View's fields are named as the Context's attributes, so that a unit's
helper reads either. This module imports nothing of the gate's."""

import dataclasses
import os
import types


@dataclasses.dataclass(frozen=True)
class View:
    host: str  # the machine's arch
    foreign: str  # the arch the code is built for when not the host's, else ""
    emulated: str  # what runs it (qemu-riscv64), "" natively
    requires: tuple  # --requires: CPU features and declarations
    contract: str  # the selected entry's: kernel or user
    name: str  # the selected entry's name, as signatures give it
    entries: tuple  # every entry point: op, symbol, family, contract (read-only)
    B: str  # the harness's build (build/riscv64: its plugins)
    W: str  # the submission's build
    R: str  # the selected entry's results of this run
    cpu_model: str  # the run's qemu CPU model, "" for the emulator's default
    merged: str  # the merged object the static rules read
    earlier: tuple = ()  # the rows the run's checks made so far (a watch: verify's)
    verify_argv: tuple = ()  # the memgate verify command the sweep runs


def merged_object(ctx):
    """The submission's merged object (its parts and the gate's), which the
    static checks read."""
    return os.path.join(ctx.W, "plain.parts", "merged.o")


ENTRY_FIELDS = ("op", "symbol", "family", "contract")


def of(ctx, **more):
    """The View of ctx as it stands (its selected entry, this run), with
    `more` of the fields that only some stages have (earlier,
    verify_argv)."""
    entries = tuple(types.MappingProxyType({k: e[k] for k in ENTRY_FIELDS}) for e in ctx.entries)
    return View(host=ctx.host, foreign=ctx.foreign, emulated=ctx.emulated, requires=tuple(ctx.requires),
                contract=ctx.contract, name=ctx.name, entries=entries, B=ctx.B, W=ctx.W, R=ctx.R,
                cpu_model=ctx.cpu_model, merged=merged_object(ctx), **more)

"""The numbers a submission reads: the data symbols it loads from (found
from its relocations), and the value sets it runs under. For glibc's x86
tuning variables (x86-64's and i386's) the sets come from the producer
model (glibc_x86) of the release --glibc-version names, in the routine's
ABI: a covering subset of what that release
hands the routine on the table's machines and tunables, then the boundary
values no producer gives. A failure under a produced set is a finding that
names its machine; one under a boundary set only is the warning
fragile-tunable (docs/tunables.md)."""

import os

from . import glibc_x86, submission
from .gate_context import gate_cc
from .run_labels import label_of

# The produced sets run at most (the first runs every check, the others the
# quick sweep and the regressions).
MOST_PRODUCED = 6


# Lengths a glibc routine compares n with besides the values themselves:
# memmove-vec-unaligned-erms leaves its 2x non-temporal loop for the 4x one
# at the threshold times 16 (LOG_4X_MEMCPY_THRESH, 2.33 on).
DERIVED_THRESHOLDS = {"__x86_shared_non_temporal_threshold": (16,)}
# memgate verify's MG_MAX_THRESHOLDS (harness/run/sweep.h).
MOST_THRESHOLDS = 32


def thresholds(ctx):
    """The lengths this run's routine may compare n with: each value of a
    data symbol it reads (the run's --extern or model value, else the
    gate's glibc default) and the points DERIVED_THRESHOLDS adds, smallest
    first. memgate verify sweeps around those its sandbox holds
    (--thresholds) and says which it did not."""
    reads = (ctx.tunables or {}).get("reads") or []
    values = dict(submission.GLIBC_X86_DEFAULTS)
    values.update(dict(getattr(ctx, "externs", None) or ()))
    out = set()
    for name in reads:
        value = values.get(name)
        if not isinstance(value, int) or value <= 0:
            continue  # a length compared with 0 or less is every length's: the dense ones hold it
        out.add(value)
        out.update(value * k for k in DERIVED_THRESHOLDS.get(name, ()))
    return sorted(v for v in out if v < 1 << 64)[:MOST_THRESHOLDS]


def read_symbols(ctx):
    """The data symbols the gate supplies (glibc's x86 variables, --extern
    names) that the merged submission's relocations refer to, sorted."""
    merged = os.path.join(ctx.W, "plain.parts", "merged.o")
    cc = gate_cc(ctx)
    tools = submission.usable(submission.binutils(cc), merged)
    supplied = set(submission.DEFAULT_NAMES) | {n for n, _ in ctx.opts["extern"]}
    return sorted(supplied & submission.data_reads(tools, merged))


def model_runs(ctx, reads):
    """(value sets, why not, record) for the glibc variables of `reads`:
    the sets to run and the report's record of them, or [] with the reason
    the model does not choose the runs (and no record)."""
    given = {e for e, _ in ctx.opts["extern"]}
    glibc = [n for n in reads if n in submission.DEFAULT_NAMES and n not in given]
    if not glibc:
        return [], ("--extern gives every glibc variable it reads" if given & set(reads) & submission.DEFAULT_NAMES
                    else "it reads none of glibc's x86 tuning variables"), None
    abi = glibc_x86.ABIS.get(ctx.arch)
    if abi is None:
        return [], f"the producer model is glibc's x86 one (x86-64 and i386), and this routine is for {ctx.arch}", None
    if len(ctx.opts["extern_sets"]) > 1:
        return [], "--extern value lists choose the runs", None
    version = ctx.opts.get("glibc_version")
    if not version:
        return [], "no glibc 2.33-2.41 is installed here and --glibc-version names none", None
    runs, produced, rest = glibc_x86.plan(glibc_x86.parse_version(version), glibc, MOST_PRODUCED, abi)
    given = list(ctx.opts["extern"])
    for index, s in enumerate(runs):
        s.extend(given)
        s.full = index == 0
    ran = set().union(*(glibc_x86.targets(s, glibc, abi) for s in runs if s.kind == "produced"))
    record = {"glibc_version": version, "abi": abi.arch, "reads": reads, "model": glibc,
              "sets": [described(s, True) for s in runs],
              "not_run": [dict(described(s, False), covered=glibc_x86.targets(s, glibc, abi) <= ran)
                          for s in rest],
              "produced": len(produced)}
    return runs, "", record


def described(s, ran):
    return {"run": s.label, "kind": s.kind, "ran": ran, "producers": s.producers,
            "values": {n: v for n, v in s}}


def fixed_sets(runs, reads):
    """The values of what the routine reads in each run the model does not
    choose: --extern's, else the gate's fixed glibc defaults."""
    defaults = dict(submission.GLIBC_X86_DEFAULTS)
    out = []
    for model, externs in runs:
        given = dict(externs)
        values = {n: given.get(n, defaults.get(n)) for n in reads}
        label = label_of(model, externs, runs) or "the run"
        if values and label not in [s["run"] for s in out]:
            out.append({"run": label, "kind": "given" if given else "default", "ran": True, "producers": [],
                        "values": values})
    return out


def given_ranges(ctx, reads):
    """For each --extern name the routine reads: its declared range
    ({"lo", "hi"}), or None where only values were given (they are not the
    whole range, and the table says so)."""
    ranges = ctx.opts.get("extern_ranges") or {}
    given = {n for s in ctx.opts.get("extern_sets") or [] for n, _ in s}
    return {n: ({"lo": ranges[n][0], "hi": ranges[n][1]} if n in ranges else None) for n in reads if n in given}


def range_lines(t):
    """What the table says of each --extern name read: the range it ran
    over, or that the values given are all it ran at."""
    out = []
    for name, span in (t.get("ranges") or {}).items():
        values = sorted({s["values"][name] for s in t.get("sets", []) if name in s["values"]})
        shown = ", ".join(map(glibc_x86.fmt, values))
        if span:
            out.append(f"{name} over its declared range {glibc_x86.fmt(span['lo'])}..{glibc_x86.fmt(span['hi'])}: "
                       f"its ends, the values next to them and powers of two between ({shown})")
        else:
            out.append(f"{name} only at {shown}, as given: not its whole range (declare it with "
                       f"--extern {name}=LO..HI to run its ends and between)")
    return out


def choose_runs(ctx, runs):
    """(runs, record): the model's value sets as the runs when it applies,
    else `runs` as they are; and the report's record of what the routine
    reads and the values of each run (docs/tunables.md), which thresholds()
    and lines() read back from ctx.tunables."""
    reads = read_symbols(ctx)
    sets, why, record = model_runs(ctx, reads)
    if sets:
        return [("", s) for s in sets], record
    return runs, {"reads": reads, "glibc_version": ctx.opts.get("glibc_version"), "model": [], "why_not": why,
                  "sets": fixed_sets(runs, reads), "not_run": [], "ranges": given_ranges(ctx, reads)}


def fragile(findings, externs):
    """The findings of a boundary run as one warning fragile-tunable: the
    value, what no producer gives, the first diagnosis, and its replay as
    the warning's `repro` (printed on a line of its own, as a finding's
    is, made to work from where the gate was started; the gate keeps the
    build it names)."""
    values = ", ".join(f"{n}={glibc_x86.fmt(v)}" for n, v in externs)
    out = []
    for f in findings[:1]:  # the first diagnosis says it; the run's folder keeps every one
        warning = {"check": f["check"], "name": "fragile-tunable", "values": {n: v for n, v in externs},
                   "text": f"fails with {values}, a boundary value no modelled producer gives "
                           f"(the next producer change can): {f['kind']}: {f['detail']}"}
        if f.get("repro"):
            warning["repro"] = f["repro"]
        out.append(warning)
    return out


def lines(ctx):
    """What the table shows of the data symbols: what the routine reads,
    and the values of each run."""
    t = ctx.tunables
    if not t or not t.get("reads"):
        return []
    out = ["data symbols read (from its relocations): " + ", ".join(t["reads"])]
    if not t.get("model"):
        if t.get("why_not") and t["why_not"] != "it reads none of glibc's x86 tuning variables":
            out.append(f"glibc producer model n/a: {t['why_not']}")
        for s in t.get("sets", []):
            out.append(run_values(s))
        return out + range_lines(t)
    covered = sum(1 for s in t["not_run"] if s.get("covered"))
    out.append(f"glibc {t['glibc_version']}'s producer model ({t['abi']}): {t['produced']} distinct value sets on the "
               f"machines and tunables of docs/tunables.md; {sum(1 for s in t['sets'] if s['kind'] == 'produced')} "
               f"run, {sum(1 for s in t['not_run'] if s['kind'] == 'produced')} not run ({covered} of them "
               f"with no value class the run ones lack), {sum(1 for s in t['sets'] if s['kind'] == 'boundary')} "
               "boundary sets")
    for s in t["sets"]:
        out.append(run_values(s))
    return out


def run_values(s):
    """A run and the values of what the routine reads in it: '  LABEL:
    VALUES', or the label alone when it says them all (an --extern list's
    run is labelled by its values: 'copy_threshold=16', not
    'copy_threshold=16: copy_threshold=16')."""
    values = ", ".join(f"{n}={glibc_x86.fmt(v)}" for n, v in s["values"].items())
    return f"  {s['run']}" + ("" if values == s["run"] else f": {values}")

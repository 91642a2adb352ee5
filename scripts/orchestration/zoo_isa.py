"""The zoo's ISA audit: every routine's code audited statically (the
objects the zoo would gate: libc.a members, the kernel's files assembled
per CPU alternative; no harness build, no fuzzing), its minimal --requires
set against the --requires the zoo declares for it (which follows glibc's
ifunc selector). scripts/zoo --audit-only writes OUT/zoo-isa.json and
OUT/zoo-isa.txt; a full run's rows carry the gate's own audit."""

import os
import tempfile

from . import isa_audit, isa_features, procs, records, submission


def objects_of(unit, scratch):
    """The unit's objects: the kernel's assembled ones, or its archive
    members extracted."""
    if getattr(unit, "objects", None):
        return list(unit.objects)
    out = []
    for i, path in enumerate(unit.inputs):
        member = submission.split_member(path)
        if not member:
            out.append(path)
            continue
        obj = os.path.join(scratch, f"{unit.name}-{i}.o")
        with open(obj, "wb") as f:
            result = procs.run(["ar", "p", member[0], member[1]], stdout=f, stderr=os.devnull, timeout=120)
        if result.returncode != 0:
            raise isa_audit.CannotAudit(f"{path}: ar cannot extract it")
        out.append(obj)
    return out


def compare(minimal, declared, arch):
    """(undeclared, over-declared): what the code needs that the declared
    list does not cover, and what is declared that the code does not need
    (a selector's condition the code does not use: fine, but named)."""
    under = [f for f in minimal if not isa_features.covered(f, declared, arch)]
    needed = set(minimal) | {g for f in minimal for g in isa_features.implied(f)}
    over = [d for d in declared if d not in needed and d in isa_features.known(arch)
            and d not in isa_features.BASELINE.get(arch, ())]
    return under, over


def audit_unit(unit, scratch):
    """The row of one unit: its minimal --requires and the comparison."""
    declared = list(unit.requires)
    row = {"unit": unit.name, "source": unit.source, "arch": unit.arch, "alternative": unit.alternative,
           "entries": [f"{op}={s}" for op, s in unit.entries], "requires": declared}
    try:
        needed, limits, instructions = set(), [], 0
        for obj in objects_of(unit, scratch):
            result = isa_audit.audit(obj, unit.arch)
            needed |= set(result.needed())
            limits += result.limits
            instructions += result.instructions
    except isa_audit.CannotAudit as e:
        return dict(row, verdict="could-not-judge", reason=str(e))
    minimal = isa_features.minimal(sorted(needed), unit.arch)
    under, over = compare(minimal, declared, unit.arch)
    verdict = "could-not-judge" if limits else "undeclared" if under else "covered"
    return dict(row, verdict=verdict, minimal_requires=minimal, undeclared=under, over_declared=over,
                instructions=instructions, limits=limits[:5])


def text_of(rows):
    lines = []
    for r in rows:
        alt = f" [{r['alternative']}]" if r["alternative"] else ""
        if r["verdict"] == "could-not-judge" and "minimal_requires" not in r:
            lines.append(f"{r['unit']}{alt}: could not judge: {r['reason']}")
            continue
        lines.append(f"{r['unit']}{alt}: {r['verdict']}; minimal --requires {','.join(r['minimal_requires']) or 'none'}"
                     f", declared {','.join(r['requires']) or 'none'}"
                     + (f"; undeclared {','.join(r['undeclared'])}" if r["undeclared"] else "")
                     + (f"; declared, not used {','.join(r['over_declared'])}" if r["over_declared"] else "")
                     + "".join(f"; could not judge: {x}" for x in r["limits"]))
    return "\n".join(lines)


def run(units, out, started, notes):
    """Audits every unit; writes zoo-isa.json and zoo-isa.txt; exit status
    0 (all covered), 1 (some undeclared), 2 (some could not be judged)."""
    with tempfile.TemporaryDirectory(prefix="zoo-isa-") as scratch:
        rows = [audit_unit(u, scratch) for u in units]
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("covered", "undeclared", "could-not-judge")}
    doc = {"schema": "memgate-zoo-isa/1", "started": started, "totals": counts, "notes": notes, "rows": rows}
    records.write_json(os.path.join(out, "zoo-isa.json"), doc)
    text = text_of(rows) + "\n" + f"zoo --audit-only: {len(rows)} units: " + ", ".join(
        f"{n} {v}" for v, n in counts.items()) + "\n"
    records.write_text(os.path.join(out, "zoo-isa.txt"), text)
    print(text, end="")
    return 2 if counts["could-not-judge"] else 1 if counts["undeclared"] else 0


def of_entry(entry):
    """A gate report entry's audit, for a zoo row: (minimal, declared) or None."""
    isa = entry.get("isa") if isinstance(entry, dict) else None
    if not isinstance(isa, dict) or "minimal_requires" not in isa:
        return None
    return {"minimal_requires": isa["minimal_requires"], "declared": isa.get("declared", [])}

"""The zoo's static audits: every routine's code audited without running it
(the objects the zoo would gate: libc.a members, the kernel's files
assembled per CPU alternative; no harness build, no fuzzing). The ISA
audit's minimal --requires set against the --requires the zoo declares
for it (which follows glibc's ifunc selector), and on x86 the store-order
audit (docs/contract.md M1: a non-temporal store fenced before each
return). scripts/zoo --audit-only writes OUT/zoo-isa.json and
OUT/zoo-isa.txt; a full run's rows carry the gate's own audits."""

import os
import tempfile

from . import elf_code, isa_audit, isa_features, procs, records, store_order_audit, submission


def objects_of(unit, scratch):
    """The unit's objects: the kernel's assembled ones, or its archive
    members extracted (and a stub's object, assembled beside it by the
    discovery: zoo.wrapper_units)."""
    if getattr(unit, "objects", None):
        return list(unit.objects)
    out = []
    for i, path in enumerate(unit.inputs):
        member = submission.split_member(path)
        if not member:
            out.append(path[:-2] + ".o" if path.endswith(".S") else path)
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


def store_order(unit, objects):
    """The store-order audit of the unit's entries (those each object
    defines): {"verdict": pass, unfenced-nt-store, could-not-judge or n/a
    (not x86), "detail"}."""
    if unit.arch not in store_order_audit.ARCHES:
        return {"verdict": "n/a", "detail": f"no store-order rule for {unit.arch} (docs/contract.md M2, M3)"}
    symbols, results = [s for _, s in unit.entries], []
    for path in objects:
        defined = {s.name for s in elf_code.Object(path).symbols if s.shndx}
        mine = [s for s in symbols if s in defined]
        if mine:
            results += store_order_audit.audit(path, mine)[1]
    limit = store_order_audit.first_limit(results)
    if limit or not results:
        return {"verdict": "could-not-judge", "detail": limit or "no entry defined in its objects"}
    found = store_order_audit.findings(results, unit.name)
    if found:
        return {"verdict": store_order_audit.KIND, "detail": found[0]["detail"]}
    return {"verdict": "pass", "detail": store_order_audit.note(results)}


def audit_unit(unit, scratch):
    """The row of one unit: its minimal --requires and the comparison, and
    its store-order audit."""
    declared = list(unit.requires)
    row = {"unit": unit.name, "source": unit.source, "arch": unit.arch, "alternative": unit.alternative,
           "entries": [f"{op}={s}" for op, s in unit.entries], "requires": declared}
    try:
        needed, limits, instructions = set(), [], 0
        objects = objects_of(unit, scratch)
        for obj in objects:
            result = isa_audit.audit(obj, unit.arch)
            needed |= set(result.needed())
            limits += result.limits
            instructions += result.instructions
        row["store_order"] = store_order(unit, objects)
    except (isa_audit.CannotAudit, elf_code.BadObject) as e:
        return dict(row, verdict="could-not-judge", reason=str(e))
    minimal = isa_features.minimal(sorted(needed), unit.arch)
    under, over = compare(minimal, declared, unit.arch)
    verdict = "could-not-judge" if limits else "undeclared" if under else "covered"
    return dict(row, verdict=verdict, minimal_requires=minimal, undeclared=under, over_declared=over,
                instructions=instructions, limits=limits[:5])


def store_order_text(so):
    if not so or so["verdict"] == "n/a":
        return ""
    if so["verdict"] == "pass":
        return "; store-order: pass"
    return f"; store-order: {so['verdict']}: {so['detail']}"


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
                     + "".join(f"; could not judge: {x}" for x in r["limits"])
                     + store_order_text(r.get("store_order")))
    return "\n".join(lines)


def run(units, out, started, notes):
    """Audits every unit; writes zoo-isa.json and zoo-isa.txt; exit status
    0 (all covered and fenced), 1 (some undeclared or unfenced), 2 (some
    could not be judged)."""
    with tempfile.TemporaryDirectory(prefix="zoo-isa-") as scratch:
        rows = [audit_unit(u, scratch) for u in units]
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("covered", "undeclared", "could-not-judge")}
    orders = {v: sum(1 for r in rows if (r.get("store_order") or {}).get("verdict") == v)
              for v in ("pass", store_order_audit.KIND, "could-not-judge")}
    doc = {"schema": "memgate-zoo-isa/1", "started": started, "totals": counts, "store_order_totals": orders,
           "notes": notes, "rows": rows}
    records.write_json(os.path.join(out, "zoo-isa.json"), doc)
    text = text_of(rows) + "\n" + f"zoo --audit-only: {len(rows)} units: " + ", ".join(
        f"{n} {v}" for v, n in counts.items()) + "; store-order: " + ", ".join(
        f"{n} {v}" for v, n in orders.items()) + "\n"
    records.write_text(os.path.join(out, "zoo-isa.txt"), text)
    print(text, end="")
    if counts["could-not-judge"] or orders["could-not-judge"]:
        return 2
    return 1 if counts["undeclared"] or orders[store_order_audit.KIND] else 0


def of_entry(entry):
    """A gate report entry's audit, for a zoo row: (minimal, declared) or None."""
    isa = entry.get("isa") if isinstance(entry, dict) else None
    if not isinstance(isa, dict) or "minimal_requires" not in isa:
        return None
    return {"minimal_requires": isa["minimal_requires"], "declared": isa.get("declared", [])}

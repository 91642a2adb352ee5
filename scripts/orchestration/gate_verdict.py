"""The gate's verdict: per check, per run and per entry point; the table
and findings it prints; gate.json and the reports, each read back."""

import os
import re
import sys

from . import cpu_models, gate_isa, gate_tunables, records, report, submission, workspace
from .records import CouldNotJudge

# --- verdict, table, reports ---------------------------------------------------

def verdict_of(results, findings):
    """accepted, rejected or could-not-judge."""
    if findings:
        return "rejected"
    if any(c.status == "error" for c in results):
        return "could-not-judge"
    return "accepted"


def cpu_models_not_run(ctx):
    """The CPU models the routine would run under (cpu_models.models_for)
    that --cpu left out."""
    wanted = (getattr(ctx, "opts", None) or {}).get("cpu") or []
    if not wanted:
        return []
    return [m for m in cpu_models.models_for(ctx.requires, ctx.arch) if m not in wanted]


def models_left_out(ctx):
    """'not run under cpu a64fx (--cpu)' when --cpu left models out."""
    left = cpu_models_not_run(ctx)
    return f"not run under cpu {', '.join(left)} (--cpu)" if left else ""


def qualifiers(results):
    parts = list(dict.fromkeys(not_applicable(results)))
    skipped = list(dict.fromkeys(c.name for c in results if c.status == "skip"))
    if skipped:
        parts.append("skipped: " + ", ".join(skipped))
    return "; ".join(parts)


def not_applicable(results):
    """'check n/a: reason' for each, naming the runs where the check ran in
    others (with value sets, a boundary run's finding makes its own later
    checks n/a while the other runs ran them)."""
    runs_of, na = {}, {}
    for c in results:
        runs_of.setdefault(c.name, []).append(c.run)
        if c.status == "n/a":
            na.setdefault((c.name, c.note), []).append(c.run)
    groups = {}
    for (name, note), runs in na.items():
        partial = len(runs) < len(runs_of[name]) and all(runs)
        where = f" in {', '.join(dict.fromkeys(runs))}" if partial else ""
        # Checks n/a for one reason in the same runs are said once
        # ("interrupts, threads n/a in boundary 0: ...").
        groups.setdefault((where, note), []).append(name)
    return [f"{', '.join(names)} n/a{where}: {note}" for (where, note), names in groups.items()]


def by_reason(results):
    """'check, check: reason' for each reason, in the order first seen."""
    groups = {}
    for c in results:
        names = groups.setdefault(c.note, [])
        if c.name not in names:
            names.append(c.name)
    return [f"{', '.join(names)}: {reason}" for reason, names in groups.items()]


def took_text(ctx, seconds, judged=None):
    """The time on a verdict line; for a reused verdict, that this time is
    the reuse's, where and when it was judged, and how long that took
    (`judged`, when the cache kept it): '0.1 s to reuse the verdict;
    cached: from RUN, DATE, judged in 5.2 s'."""
    if not ctx.cached:
        return f"{seconds:.1f} s"
    return (f"{seconds:.1f} s to reuse the verdict; cached: {report.cached_text(ctx.cached)}"
            + (f", judged in {judged:.1f} s" if isinstance(judged, (int, float)) else ""))


def table(ctx, results):
    lines = [f"memgate gate: {ctx.name} ({ctx.op}, {ctx.arch}" + (f", under {ctx.emulated}" if ctx.emulated else "")
             + f", {ctx.contract} contract"
             + (f", convention '{ctx.opts['convention']}'" if ctx.opts.get("convention") else "")
             + (f", built without {', '.join(ctx.opts['configs_off'])} (neither the shim nor a -D defines "
                f"{'them' if len(ctx.opts['configs_off']) > 1 else 'it'})" if ctx.opts.get("configs_off") else "")
             + f"), from {' '.join(workspace.CURRENT.shown(f) for f in ctx.files)}"]
    if ctx.cached:
        lines.append(f"cached: {report.cached_text(ctx.cached)} (the same code, options, memgate and machine; "
                     "--no-cache runs it again)")
    runs = any(c.run for c in results)
    width = max([len(c.run) for c in results] + [3])
    run = (lambda text: "%-*s  " % (width, text)) if runs else (lambda text: "")
    lines.append("%-12s %-7s %12s %9s  %s%s" % ("check", "status", "cases", "seconds", run("run"), "note"))
    for c in results:
        note = {"n/a": f"n/a ({c.note})", "error": f"could not judge: {c.note}"}.get(c.status, c.note)
        lines.append("%-12s %-7s %12s %9s  %s%s" % (c.name, c.status.upper(), c.cases, f"{c.seconds:.1f}"
                                                     if c.seconds else "0", run(c.run), note))
    return "\n".join(lines)


def run_verdicts(results, findings):
    """One line per run (a CPU model, a set of --extern values) when there
    are several: its own verdict, before the overall one."""
    labels = []
    for c in results:
        if c.run and c.run not in labels:
            labels.append(c.run)
    lines = []
    for label in labels:
        mine = [c for c in results if c.run in (label, "")]
        # A finding of no run (a static rule's: isa, below-sp, uaccess) is
        # every run's: the code is the same under each.
        found = [f for f in findings if f.get("run", "") in (label, "")]
        verdict = verdict_of(mine, found)
        text = {"rejected": f"REJECTED, {len(found)} finding(s)", "accepted": "ACCEPTED",
                "could-not-judge": "COULD NOT JUDGE: " + "; ".join(by_reason([c for c in mine if c.status == "error"]))}
        lines.append(f"  {label}: {text[verdict]}")
    return lines


def describe_finding(n, f):
    out = [f"{n}. [{f['check']}] {f['kind']}: {f['detail']}" + (f" ({f['run']})" if f.get("run") else "")]
    if f.get("input"):
        out.append(f"   input: {workspace.CURRENT.shown(f['input'])}")
    if f.get("fuzz_command"):
        out.append(f"   seen by: {f['fuzz_command']}")
    if f.get("repro"):
        out.append(f"   repro: {workspace.CURRENT.command(f['repro'])}")
    return "\n".join(out)


def describe_warning(w):
    """A warning, and the command that replays it (fragile-tunable,
    misaligned-access) on a line of its own, as a finding's: made to work
    from where the gate was started."""
    out = f"warning [{w['check']}] {w['name']}: {w['text']}"
    if w.get("repro"):
        out += f"\n   repro: {workspace.CURRENT.command(w['repro'])}"
    return out


def version():
    rc, out = submission.capture(["git", "describe", "--always", "--dirty"], timeout=30)
    return out.strip() if rc == 0 and out.strip() else "unknown"


def document(ctx, results, findings, warnings, verdict, seconds=None):
    """The entry's report; `seconds`: its own time (with several entry
    points: its checks and the build), else the run's so far."""
    seconds = ctx.elapsed() if seconds is None else seconds
    doc = {"schema": report.SCHEMA, "variant": ctx.name, "op": ctx.op, "arch": ctx.arch, "symbol": ctx.symbol,
           "symbol_binding": getattr(ctx, "binding", "global"), "contract": ctx.contract, "requires": ctx.requires,
           "files": ctx.files, "verdict": verdict, "seconds": round(seconds, 1), "memgate": version(),
           "started": ctx.started, "budget": ctx.budget(), "checks": [c.as_dict() for c in results], "findings": findings,
           "warnings": warnings,
           "could_not_judge": [{"check": c.name, "reason": c.note} for c in results if c.status == "error"],
           "not_applicable": [{"check": c.name, "reason": c.note} for c in results if c.status == "n/a"],
           "skipped": [c.name for c in results if c.status == "skip"]}
    if cpu_models_not_run(ctx):
        # A verdict under some CPU models only (--cpu), as "skipped" says
        # of the checks --skip left out.
        doc["cpu_models_not_run"] = cpu_models_not_run(ctx)
    if ctx.opts.get("convention"):
        doc["convention"] = ctx.opts["convention"]  # docs/conventions.md; absent: the C convention
    if ctx.opts.get("configs_off"):
        doc["kernel_configs_off"] = ctx.opts["configs_off"]  # built as a kernel without them
    if ctx.opts.get("submitted"):
        # The files as named where the gate was started (the user's tree):
        # SARIF's locations name them.
        doc["submitted"] = ctx.opts["submitted"]
    if getattr(ctx, "isa", None):
        doc["isa"] = ctx.isa
    if getattr(ctx, "tunables", None) and ctx.tunables.get("reads"):
        doc["data_symbols"] = ctx.tunables  # docs/tunables.md
    if ctx.cached:
        doc["cached"] = dict(ctx.cached)
    return doc


def record(ctx, results, findings, warnings, seconds=None):
    """Writes the entry's gate.json and reads it back: (doc, problems)."""
    doc = document(ctx, results, findings, warnings, verdict_of(results, findings), seconds)
    problems = []
    try:
        records.write_json(os.path.join(ctx.R, "gate.json"), doc)
        doc = report.load(ctx.R)
    except (CouldNotJudge, report.BadWorkdir) as e:
        problems.append(f"the results were not written: {e}")
    return doc, problems


def write_reports(ctx, docs):
    """The reports asked for: one entry's as they always were; several
    entries' as one report each kind (report.combine). Problems, if any."""
    o = ctx.opts
    if not (o.get("report") or o.get("sarif") or o.get("junit")):
        return []
    try:
        if len(docs) == 1:
            report.write(docs[0], o.get("report"), o.get("sarif"), o.get("junit"))
        else:
            report.write_combined(docs, o.get("report"), o.get("sarif"), o.get("junit"))
    except CouldNotJudge as e:
        return [f"the reports were not written: {e}"]
    return []


def show(ctx, results, findings, warnings):
    """The entry's table, speed, warnings and findings."""
    print()
    print(table(ctx, results))
    for line in gate_tunables.lines(ctx):
        print(line)
    minimal = gate_isa.minimal_line(ctx)
    if minimal:
        print(minimal)
    speed = os.path.join(ctx.R, "speed.txt")
    if any(c.name == "bench" and c.status in ("pass", "fail") for c in results) and os.path.exists(speed):
        print()
        print(speed_text(open(speed, encoding="utf-8", errors="replace").read().rstrip("\n")))
    for plot in getattr(ctx, "speed_plots", ()):
        print(f"speed plot: {workspace.CURRENT.shown(plot)}")
    for w in warnings:
        print(describe_warning(w))
    per_run = run_verdicts(results, findings)
    if len(per_run) > 1:
        print()
        print("verdict per run:")
        for line in per_run:
            print(line)
    if findings:
        print()
        print(f"{len(findings)} finding(s):")
        for n, f in enumerate(findings, 1):
            print(describe_finding(n, f))


def warned(warnings):
    """'1 warning: dirty-upper', '2 warnings: aligned-over-read (16-byte
    block), dirty-upper', '10 warnings: dirty-upper (x10)' (the same one in
    every run), or ''."""
    if not warnings:
        return ""
    names = [w["name"] + (f" ({w['width']}-byte block)" if w.get("width") else "") for w in warnings]
    counts = {n: names.count(n) for n in names}
    shown = [n + (f" (x{k})" if k > 1 else "") for n, k in counts.items()]
    return f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''}: {', '.join(shown)}"


def speed_text(text):
    """memgate speed's output as the user reads it: the path of its rows
    (written where the gate works) as named from where they started it."""
    return re.sub(r"^rows written to (.+)$", lambda m: f"rows written to {workspace.CURRENT.shown(m.group(1))}",
                  text, flags=re.M)


def verdict_line(ctx, results, findings, took, warnings=()):
    """(status, line, reasons for stderr) of one entry's verdict. Warnings
    are named on the line, whatever the verdict."""
    verdict = verdict_of(results, findings)
    cannot = [c for c in results if c.status == "error"]
    # A smoke sweep is a first look, and an accepted line says so first.
    smoke = "smoke sweep" if getattr(ctx, "profile", "") == "smoke" else ""
    quals = "; ".join(q for q in (smoke, models_left_out(ctx), qualifiers(results), warned(warnings)) if q)
    if verdict == "rejected":
        extra = "; could not judge " + ", ".join(c.name for c in cannot) if cannot else ""
        extra += f"; {warned(warnings)}" if warnings else ""
        return 1, f"REJECTED: {ctx.name}, {len(findings)} finding(s){extra} ({took})", []
    if verdict == "could-not-judge":
        reasons = by_reason(cannot)
        return 2, f"COULD NOT JUDGE: {ctx.name}: could not judge: {'; '.join(reasons)} ({took})", reasons
    if quals:
        other = " other" if qualifiers(results) else ""  # warnings leave none out
        return 0, f"ACCEPTED ({quals}): {ctx.name} passed every{other} check ({took})", []
    return 0, f"ACCEPTED: {ctx.name} passed every check ({took})", []


def finish(ctx, results, findings, warnings):
    """Writes gate.json and the reports (each read back), prints the table
    and the verdict; returns the exit status and gate.json's record (a list
    of one, as finish_entries' are), which the verdict cache keeps."""
    doc, problems = record(ctx, results, findings, warnings)
    docs = [doc]
    problems += write_reports(ctx, [doc])
    o = ctx.opts
    try:
        show(ctx, results, findings, warnings)
        if not problems and (o.get("report") or o.get("sarif") or o.get("junit")):
            print("reports: " + " ".join(workspace.CURRENT.shown(p) for p in (o.get("report"), o.get("sarif"), o.get("junit")) if p))
        print(f"results: {workspace.CURRENT.shown(ctx.R)}")
        print()
        took = took_text(ctx, ctx.elapsed(), getattr(ctx, "judged", None))
        if problems:
            for p in problems:
                print(f"gate: could not judge: {p}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {ctx.name}: could not judge: {problems[0]} ({took})")
            return 2, docs
        status, line, reasons = verdict_line(ctx, results, findings, took, warnings)
        for r in reasons:
            print(f"gate: could not judge: {r}", file=sys.stderr)
        print(line)
        return status, docs
    except OSError as e:
        print(f"gate: could not judge: writing the verdict failed: {e.strerror or e}", file=sys.stderr)
        return 2, docs


def finish_entries(ctx, outcomes):
    """Several entry points: each one's table and verdict, then one report
    of each kind and the overall verdict: rejected if any entry has a
    finding, else could not judge if any could not be judged, else
    accepted. `outcomes`: (entry, results, findings, warnings, seconds)."""
    docs, problems, rows = [], [], []
    o = ctx.opts
    try:
        for entry, results, findings, warnings, seconds in outcomes:
            ctx.select(entry)
            doc, trouble = record(ctx, results, findings, warnings, seconds)
            docs.append(doc)
            problems += trouble
            show(ctx, results, findings, warnings)
            status, line, reasons = verdict_line(ctx, results, findings,
                                                 took_text(ctx, seconds, entry.get("judged")), warnings)
            for r in reasons:
                print(f"gate: could not judge: {ctx.name}: {r}", file=sys.stderr)
            rows.append((entry, status, line))
        problems += write_reports(ctx, docs)
        print()
        if not problems and (o.get("report") or o.get("sarif") or o.get("junit")):
            print("reports: " + " ".join(workspace.CURRENT.shown(p) for p in (o.get("report"), o.get("sarif"), o.get("junit")) if p))
        print(f"results: {workspace.CURRENT.shown(ctx.root_R)}")
        print()
        for entry, status, line in rows:
            print(f"{entry['op']}={entry['symbol']}: {line}")
        took = took_text(ctx, ctx.elapsed(), getattr(ctx, "judged", None))
        n = len(rows)
        if problems:
            for p in problems:
                print(f"gate: could not judge: {p}", file=sys.stderr)
            print(f"COULD NOT JUDGE: {n} entry points: could not judge: {problems[0]} ({took})")
            return 2, docs
        rejected = [e["name"] for e, status, _ in rows if status == 1]
        unjudged = [e["name"] for e, status, _ in rows if status == 2]
        if rejected:
            print(f"REJECTED: {len(rejected)} of {n} entry points ({', '.join(rejected)}) ({took})")
            return 1, docs
        if unjudged:
            print(f"COULD NOT JUDGE: {len(unjudged)} of {n} entry points ({', '.join(unjudged)}) ({took})")
            return 2, docs
        every = [w for _, _, _, warnings, _ in outcomes for w in warnings]
        names = sorted({w["name"] for w in every})
        said = f" ({len(every)} warning{'s' if len(every) != 1 else ''}: {', '.join(names)})" if every else ""
        print(f"ACCEPTED{said}: all {n} entry points ({took})")
        return 0, docs
    except OSError as e:
        print(f"gate: could not judge: writing the verdict failed: {e.strerror or e}", file=sys.stderr)
        return 2, docs

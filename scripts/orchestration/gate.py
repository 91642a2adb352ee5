"""scripts/gate: one command, one verdict for a proposed copy, move or clear
routine. It builds the files into the harness as an extra variant in a
build directory of its own, checks the build-time rules, runs every check
memgate has on it under one deadline, prints a verdict table and every
finding with the command that replays it, and writes JSON, SARIF and JUnit
reports on request.

Exit status: 0 accepted (every required check ran to its end, its results
were written and read back, and none found anything), 1 rejected (at least
one finding), 2 bad usage, a build error or a build-time rule broken, or
"could not judge: REASON" (a check could not run to its end), 128 + N
stopped by signal N (SIGINT, SIGTERM, SIGHUP): every check and what it
started stopped, the results folder marked PARTIAL, no verdict."""

import os
import shutil

from . import cli, gate_cache, gate_prebuilt, gate_tunables, records, workspace
from .check_result import Check
from .gate_build import check_rules, compile_submission, contract_macro, keep_sources, make_results, prepare
from .gate_context import Context, setup_arch
from .gate_options import FEATURES, Usage, default_symbol, parse, validate
from .gate_runs import cannot_run_anywhere, dedupe, plan_runs, run_all
from .gate_verdict import by_reason, finish, finish_entries, qualifiers, run_verdicts, verdict_of
from .records import CouldNotJudge

# The names other modules and the unit tests use as gate.NAME.
__all__ = ["Context", "FEATURES", "Usage", "by_reason", "contract_macro", "dedupe", "default_symbol",
           "main", "parse", "qualifiers", "run_verdicts", "validate", "verdict_of"]


def main(argv):
    run = {}
    return cli.run_main("gate", lambda: gate(argv, run), lambda: interrupted(run.get("ctx")))


def interrupted(ctx):
    """What an interrupted gate says of its results: none is a verdict; the
    results folder it made (each run makes a new one) is marked partial."""
    where = getattr(ctx, "root_R", None)
    if not where:
        return "no verdict (nothing was saved yet)"
    try:
        records.write_text(os.path.join(where, "PARTIAL"),
                           "interrupted: these are the results of a gate run that was stopped; no verdict\n")
    except CouldNotJudge:
        pass
    return f"no verdict; what the checks saved so far is in {where}/ (partial)"


def gate(argv, run=None):
    opts = move(validate(parse(argv)))
    ctx = Context(opts)
    if run is not None:
        run["ctx"] = ctx
    setup_arch(ctx, opts)
    runs = plan_runs(ctx)
    if runs is None:
        return cannot_run_anywhere(ctx)
    if not opts["no_cache"]:
        # The same submission, options, memgate and compiler as a build
        # recorded before, and nothing it read changed: the verdict cache
        # is asked without building.
        known = gate_prebuilt.lookup(ctx)
        if known is not None:
            code, names = known
            hit = gate_cache.lookup(gate_cache.verdict_key(ctx, code))
            if hit is not None and [d.get("variant") for d in hit["docs"]] == names:
                for e, name in zip(ctx.entries, names):
                    e["name"] = name
                ctx.name = names[0]
                make_results(ctx)
                keep_sources(ctx, opts["files"])
                return reuse(ctx, hit)
    prepare(ctx, opts)
    try:
        # What does not build, or breaks a build-time rule, is told first
        # (one line); then the cache, keyed by the compiled code.
        compile_submission(ctx, opts["files"])
        check_rules(ctx, opts["files"])
        # The data symbols it reads decide its value sets (the glibc model).
        runs, ctx.tunables = gate_tunables.choose_runs(ctx, runs)
        code = gate_cache.code_hash(ctx)
        key = gate_cache.verdict_key(ctx, code)
        hit = None if opts["no_cache"] else gate_cache.lookup(key)
        if hit is not None and [d.get("variant") for d in hit["docs"]] == [e["name"] for e in ctx.entries]:
            shutil.rmtree(ctx.W, ignore_errors=True)
            return reuse(ctx, hit)
    except Usage:
        # Nothing was judged: no build or results are kept.
        shutil.rmtree(ctx.W, ignore_errors=True)
        shutil.rmtree(ctx.root_R, ignore_errors=True)
        raise
    compiled = ctx.W
    outcomes = run_all(ctx, runs, opts)
    status, docs = conclude(ctx, outcomes)
    if status in (0, 1) and gate_cache.store(key, status, ctx.root_R, ctx.started, docs, ctx.elapsed()):
        # The next gate of the same inputs asks the cache without building.
        gate_prebuilt.record(ctx, code, compiled)
    for w in unnamed_builds(ctx.builds, status, outcomes):
        shutil.rmtree(w, ignore_errors=True)
    return status


def unnamed_builds(builds, status, outcomes):
    """The builds of an accepted run that no printed command names (a
    warning's repro: fragile-tunable, misaligned-access, names the build of
    its own run): they go, so that accepted runs do not pile up a build
    each (one per value set of the glibc model), and every line printed
    still works. A rejected or unjudged run keeps them all."""
    if status != 0:
        return []
    named = gate_cache.builds_named([i for outcome in outcomes for i in outcome[2] + outcome[3]])
    return [w for w in builds if w not in named]


def move(opts):
    """Into where the gate works (workspace: the tree, or the results
    directory), with the user's paths made absolute first."""
    if workspace.in_tree() and workspace.chosen(opts.get("out")) is None:
        workspace.enter()
        return opts
    opts["files"] = [workspace.absolute(f) for f in opts["files"]]
    opts["submitted"] = [submitted_name(f) for f in opts["files"]]
    opts["tree_flags"] = [workspace.absolute_flag(f) for f in opts["tree_flags"]]
    for kind in ("report", "sarif", "junit"):
        opts[kind] = workspace.absolute(opts.get(kind))
    try:
        workspace.enter(opts.get("out"))
    except workspace.Unusable as e:
        raise Usage(f"--out: {e}" if opts.get("out") else str(e)) from None
    return opts


def submitted_name(path):
    """A file as named from where the gate was started: relative when
    under it (a repository's path, for SARIF), else absolute."""
    rel = os.path.relpath(path)
    return path if rel.split(os.sep)[0] == ".." else rel


def conclude(ctx, outcomes):
    """The table, verdicts and reports of every entry: the exit status and
    gate.json's records, one per entry."""
    if len(outcomes) == 1:
        entry, results, findings, warnings, _ = outcomes[0]
        ctx.select(entry)
        return finish(ctx, results, findings, warnings)
    return finish_entries(ctx, outcomes)


def reuse(ctx, hit):
    """A verdict of the cache, shown and reported as it was judged, with
    where and when (ctx.cached) and how long judging took (ctx.judged,
    each entry's "judged"); the lines under the table that the checks'
    results make (the data symbols read and their values, the minimal
    --requires) from its records, as the judged run printed them; its
    results folder gets its gate.json."""
    ctx.cached = {"from": hit["run"], "date": hit["date"]}
    ctx.judged = hit.get("seconds")
    first = hit["docs"][0]
    ctx.isa = first.get("isa")
    ctx.tunables = first.get("data_symbols")
    outcomes = []
    for entry, doc in zip(ctx.entries, hit["docs"]):
        entry["judged"] = doc.get("seconds")
        results = [Check.from_dict(c) for c in doc["checks"]]
        outcomes.append((entry, results, doc["findings"], doc.get("warnings") or [], ctx.elapsed()))
    return conclude(ctx, outcomes)[0]

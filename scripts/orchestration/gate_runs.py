"""The runs of the checks: one per CPU model and set of --extern values,
for every entry point, all under one deadline (--seconds)."""

import dataclasses
import os
import re
import tempfile
import time

from . import check_view, checks, cpu_models, gate_isa, gate_tunables, registry, units
from .check_result import cannot, na
from .gate_build import build, build_check
from .gate_options import die, lighter
from .run_labels import label_of

# --- runs: CPU models and --extern values ------------------------------------

def dedupe(findings):
    """One finding per check and signature: the first input that shows it."""
    seen, out = set(), []
    for f in findings:
        key = (f["check"], f.get("run", ""), f["signature"])
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def run_checks(ctx, primary=True):
    """Every check; under a further CPU model (not primary) the sweep (quick
    profile), its ABI checks, the 4 GiB+ guard-oracle cases and the
    regressions only: fuzzing, valgrind and bench ran under the first."""
    results, findings, warnings = [], [], []
    # The sweep runs under the watches that apply here (the misaligned
    # check's plugin: riscv64 under qemu), each judged after it.
    view = check_view.of(ctx, verify_argv=tuple(checks.verify_argv(ctx)[2]))
    watches = [(unit, unit.start(view)) for _, unit in units.of_stage("watch") if unit.applies(view)]
    env = ctx.env
    ctx.env = dict(env, **{k: v for _, watching in watches for k, v in watching.env.items()})
    try:
        abi_sweep_huge, found, warned = checks.run_verify(ctx)
    finally:
        ctx.env = env
    results += abi_sweep_huge
    findings += found
    warnings += warned
    after = dataclasses.replace(view, earlier=tuple(abi_sweep_huge))
    for unit, watching in watches:
        check, found, warned = unit.judge(after, watching)
        results.append(check)
        findings += found
        warnings += warned
    for name in registry.STEPS:
        if not primary and not registry.BY_NAME[name].further:
            continue  # it ran under the first model
        if name == "bench" and findings:
            # A wrong routine's speed decides nothing, and timing it can
            # crash on the very bug that was found.
            results.append(na("bench", "already rejected: a wrong routine's speed is not judged"))
            continue
        if ctx.past_deadline() and not ctx.skipped(name):
            results.append(cannot(name, f"did not run: the gate's deadline (--seconds {ctx.seconds}) "
                                  "had passed"))
            continue
        check, found, warned = checks.STEP_RUNNERS[name](ctx)
        results.append(check)
        findings += found
        warnings += warned
    return results, dedupe(findings), warnings


# The arches whose kernel exception table the harness emulates
# (harness/arch/x86/extable.c, aarch64/extable.c; docs/usercopy.md).
USER_COPY_ARCHES = ("x86_64", "i386", "aarch64")


def user_copy_refused(ctx):
    """Why a user copy cannot be judged for this arch, or "": a fault
    there would not be resumed through the routine's own table, so a
    right routine could not pass (fail closed, before anything builds)."""
    arch = ctx.host if ctx.arch == "generic" else ctx.arch
    ops = [e["op"] for e in ctx.entries if e["family"] == "usercopy"]
    if not ops or arch in USER_COPY_ARCHES:
        return ""
    return (f"{ops[0]}: the kernel's exception table is emulated for {', '.join(USER_COPY_ARCHES[:-1])} "
            f"and {USER_COPY_ARCHES[-1]} (docs/usercopy.md), not {arch}: a fault in the user buffer could "
            "not be resumed as the kernel resumes it, so a user copy cannot be judged there")


def plan_runs(ctx):
    """[(cpu model or "", extern values)], one per run of the checks; None
    when the routine needs CPU facts no model here has."""
    refused = user_copy_refused(ctx)
    if refused:
        die(refused)
    foreign = cpu_models.foreign_facts(ctx.requires, ctx.arch)
    if foreign:
        owner = cpu_models.arch_of_fact(foreign[0])
        die(f"--requires {','.join(foreign)}: {owner} CPU facts, and this routine is for {ctx.arch}")
    for _, unit in units.of_stage("watch"):
        refused = unit.refuses(ctx.requires, ctx.arch)
        if refused:
            die(refused)
    models = [""]
    if ctx.arch in cpu_models.MODELS and ctx.emulated:
        models = cpu_models.models_for(ctx.requires, ctx.arch)
        if not models:
            return None
    models = chosen_models(ctx, models)
    return [(model, externs) for externs in ctx.opts["extern_sets"] for model in models]


def chosen_models(ctx, models):
    """The models --cpu keeps of `models`, in their order (all without it);
    the verdict line names the others (gate_verdict.models_left_out)."""
    wanted = ctx.opts.get("cpu") or []
    if not wanted:
        return models
    if models == [""]:
        where = "natively" if not ctx.emulated else "under qemu's one model"
        die(f"--cpu {wanted[0]}: {ctx.arch} code runs {where} here; --cpu picks among the qemu models "
            f"of {', '.join(list(cpu_models.MODELS)[:-1])} and {list(cpu_models.MODELS)[-1]} code")
    for name in wanted:
        if name not in models:
            die(f"--cpu {name}: not a model this routine runs under (valid: {', '.join(models)})")
    return [m for m in models if m in wanted]


def cannot_run_anywhere(ctx):
    """Nothing could be checked, so never accepted: exit 2."""
    print(f"SKIP ({cpu_models.none_has(ctx.requires, ctx.arch)}): {ctx.symbol} was not run")
    return 2


def enter_run(ctx, model, externs, runs, base_env, top_results):
    """Points ctx at one run: its label, CPU model (QEMU_CPU, which
    qemu-user reads as -cpu and the repro commands carry) and results
    folder."""
    ctx.label = label_of(model, externs, runs)
    ctx.cpu_model = model
    ctx.runner, ctx.emulated = ctx.runner_for(model)
    ctx.env = (dict(base_env, QEMU_CPU=model, MEMGATE_CPU_MODEL=model, MEMGATE_RUNNER=" ".join(ctx.runner))
               if model else dict(base_env))
    if len(runs) > 1:
        safe = re.sub(r"[^A-Za-z0-9_.=-]+", "-", ctx.label).strip("-") or "run"
        ctx.R = os.path.join(top_results, f"run-{runs.index((model, externs)) + 1}-{safe}")
        os.makedirs(ctx.R, exist_ok=True)


# The 4 GiB+ check of a routine (11 s of a six-entry memmove's) runs under
# the glibc model's first value set only: a further set's few seconds hold
# its quick sweep, not that too.
HUGE_ELSEWHERE = "the 4 GiB+ check runs under the first value set only (docs/tunables.md)"


def further_set(externs):
    """HUGE_ELSEWHERE for a further value set of the glibc model, else ''."""
    return HUGE_ELSEWHERE if getattr(externs, "full", True) is False else ""


def boundary_only(results, found, warned, externs):
    """A boundary run's findings are warnings (fragile-tunable), its checks
    pass with the note: no producer of the modelled release gives it."""
    if not found:
        return results, found, warned
    for c in results:
        if c.status == "fail":
            c.status = "pass"
            c.note = "fragile-tunable (a warning: a boundary value no producer gives)" + (f"; {c.note}" if c.note else "")
    return results, [], warned + gate_tunables.fragile(found, externs)


def runs_every_check(externs):
    """Whether a set of values runs every check of the profile, as the
    first run does. A further value set of the glibc model does not
    (`full` False): it runs as a further CPU model does, the quick sweep
    and the regressions, since the model chose it among the sets a release
    gives, to cover their value classes (docs/tunables.md). Every value of
    an --extern list or range does: each is a value the routine may be
    handed, as its author declared (docs/gate.md, "Profiles")."""
    return getattr(externs, "full", True)


def new_build_dir(ctx):
    """The build of a further set of --extern values: named, as the
    first build and the results folder are, after the run's first entry
    point (every entry is built into each), not after whichever entry the
    checks looked at last."""
    parent = os.path.dirname(ctx.W)
    ctx.W = os.path.relpath(tempfile.mkdtemp(prefix=f"{ctx.entries[0]['name']}-", dir=parent))


def run_all(ctx, runs, opts):
    """Every run, entry by entry: one build per set of --extern values (all
    entries in it), then each entry's checks under each CPU model. Returns
    [(entry, results, findings, warnings, seconds)], one per entry."""
    per_entry = [([], [], [], 0.0) for _ in ctx.entries]
    base_env = dict(ctx.env)
    # The qemu of each model, before anything builds (and after the verdict
    # cache, which needs none): a model no qemu here has is one line then,
    # not a stop after the first model's checks.
    for model in dict.fromkeys(m for m, _ in runs) if ctx.emulated else ():
        ctx.runner_for(model)
    built, profile = None, ctx.profile
    for model, externs in runs:
        rebuild = built != externs
        primary = rebuild and runs_every_check(externs)
        if rebuild:
            if built is not None:
                new_build_dir(ctx)
            ctx.externs = externs
            ctx.builds.append(ctx.W)
            build_seconds = build(ctx, opts["files"])
            if built is None:
                audit = gate_isa.audit_check(ctx)
                # What the code uses decides where it can run (runner_cannot,
                # valgrind's): the run loop keeps it for the checks to read.
                ctx.isa, ctx.isa_uses = audit.summary, audit.uses
                static = gate_isa.static_checks(ctx)
            built = externs
        for index, entry in enumerate(ctx.entries):
            results, findings, warnings, seconds = per_entry[index]
            ctx.select(entry)
            enter_run(ctx, model, externs, runs, base_env, entry["R"])
            if rebuild:
                check = build_check(ctx, build_seconds)
                check.run = label_of("", externs, runs)
                results.append(check)
                seconds += build_seconds
            if (model, externs) == runs[0]:
                found = audit.findings
                results.append(audit.check)
                findings += [dict(f, signature=f"{ctx.name} undeclared-feature {f['feature']}") for f in found
                             if f["kind"] == "undeclared-feature"]
                # A missing landing pad is the finding of the entry that lacks it.
                findings += [dict(f, signature=f"{ctx.name} landing-pad {f['symbol']}") for f in found
                             if f["kind"] == "landing-pad" and f["symbol"] == ctx.symbol]
                for check, found, warned in static:
                    results.append(check)
                    # A finding that names its entry is that entry's (uaccess).
                    findings += [f for f in found if f.get("symbol", ctx.symbol) == ctx.symbol]
                    warnings += [w for w in warned if w.get("symbol", ctx.symbol) == ctx.symbol]
            ctx.profile = profile if primary else lighter(profile, "quick")
            ctx.primary = primary
            ctx.huge_elsewhere = further_set(externs)
            if ctx.deadline is None:
                ctx.start_clock()
            if ctx.label:
                ctx.progress(ctx.label)
            t = time.monotonic()
            limit = gate_isa.runner_cannot(ctx, model)
            if ctx.past_deadline():
                found_results, found, warned = gate_isa.past_deadline(ctx, primary), [], []
            elif limit:
                found_results, found, warned = gate_isa.not_run(ctx, limit, primary), [], []
            else:
                found_results, found, warned = run_checks(ctx, primary)
            for c in found_results:
                c.run = ctx.label
            if getattr(externs, "kind", "") == "boundary":
                found_results, found, warned = boundary_only(found_results, found, warned, externs)
            for f in found:
                f["run"] = ctx.label
                if getattr(externs, "producers", None):
                    f["producers"] = externs.producers
                if model:
                    f["cpu_model"] = model
                    f["repro"] = f"QEMU_CPU={model} MEMGATE_CPU_MODEL={model} {f['repro']}"
            results += found_results
            findings += found
            warnings += warned
            per_entry[index] = (results, findings, warnings, seconds + time.monotonic() - t)
    ctx.env, ctx.profile, ctx.primary = base_env, profile, True
    ctx.runner, ctx.emulated = ctx.runner_for("")
    ctx.huge_elsewhere = ""
    ctx.label, ctx.cpu_model = "", ""
    for entry in ctx.entries:
        ctx.select(entry)
    return [(e,) + per_entry[i] for i, e in enumerate(ctx.entries)]

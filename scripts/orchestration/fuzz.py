"""scripts/fuzz: fuzz one target, or all of them, for a time budget with
libFuzzer or AFL++ on every core, or for a number of inputs from a seed in
one process (--runs, --seed: the same inputs on any machine at any load,
time only a watchdog); then replay what the fuzzers saved, minimise it,
keep one input per verdict signature and write the summary: summary.txt
for people, summary.jsonl (records, docs/records.md) for programs.

  scripts/fuzz [--target=memcpy|memmove|memset|page|all] [--seconds=N]
               [--runs=N [--seed=S]] [--variant=NAME]
               [--engine=libfuzzer|afl] [--sanitize] [--jobs=N]
               [--seeds=DIR] [--out=DIR | --resume=DIR]

Exit status: 0 no findings (every fuzzer ran to its end, its results were
written and read back), 1 findings, 2 bad usage (one line) or could not
judge ("could not judge: REASON": a fuzzer that could not run, a corrupt
corpus file, a replay that did not finish, a write error), 128 + N for
signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP: the fuzzers are stopped;
findings and corpus stay on disk, and sessions.log says the session was
interrupted).

Time: --seconds is the fuzzing (with --runs, only its upper bound: a run
that has not made its inputs by then could not judge); each target may take up to
OVERHEAD_SECONDS more (screening the seeds, stopping the fuzzers, replaying,
minimising), and the build first unless MEMGATE_FUZZ_NO_BUILD=1 or
MEMGATE_BUILD=DIR (the binaries of DIR, as scripts/gate builds them).
"""

import fcntl
import os
import re
import shlex
import shutil
import signal
import sys
import time

from . import cli, procs, workspace
from .fuzz_engines import ENGINES
from .fuzz_findings import INPUT_MAX, Analysis, Replayer, record_path, saved_inputs, take_inflight
from .fuzz_report import Report
from .records import CouldNotJudge, write_lines, write_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAMILIES = ("memcpy", "memmove", "memset", "page")
# The user copies' target, by name only: its variants are x86-64's so far,
# and "all" shares the time among the families every arch has.
TARGETS = FAMILIES + ("usercopy",)
OPTIONS = "--target, --seconds, --runs, --seed, --variant, --engine, --sanitize, --jobs, --seeds, --out, --resume"
VALUED = ("--target", "--seconds", "--runs", "--seed", "--variant", "--engine", "--jobs", "--seeds", "--out",
          "--resume")
# Per target, on top of its share of --seconds: screening the seeds,
# stopping the fuzzers, replaying what they saved, minimising.
OVERHEAD_SECONDS = 40
LOCK_NAME = ".lock"
# With --runs, --seconds is only a watchdog: by default far above what
# 300,000 inputs take here (memmove_libc, one process: libFuzzer 3 s, AFL++
# 34 s).
RUNS_SECONDS = 3600
# libFuzzer's -runs is a C int that counts the seeds too: N stays well below.
RUNS_MAX = 999_999_999

USAGE = """usage: scripts/fuzz [OPTIONS]   (or: make fuzz FUZZ_FLAGS="OPTIONS")
  --target=F|all      memcpy, memmove, memset, page, usercopy (x86-64), or all
                      (default; the four memory families, the budget split)
  --seconds=N         time budget in seconds (default 60); with --runs, only an
                      upper bound (default {runs_seconds}): not done by then is
                      "could not judge", exit 2
  --runs=N            each engine runs exactly N generated inputs past its
                      seeds (AFL++: about N executions, its calibration
                      included), in one process, from --seed: the same
                      inputs, so the same verdict, on any machine at any load
  --seed=S            the fuzzers' random seed, 1 to 4294967295 (default 1;
                      needs --runs)
  --variant=NAME      fuzz only this variant, known-bad ones too (implies its target)
  --engine=E          libfuzzer (default) or afl
  --sanitize          use the libFuzzer build with ASan and UBSan on the harness
  --jobs=N            fuzzer processes (default: nproc; with --runs only 1)
  --seeds=DIR         seeds besides corpus/<target>/: the inputs in DIR (as
                      memgate encode writes them), screened as those are
  --out=DIR           the run directory (default findings/fuzz/<run-id>)
  --resume=DIR        continue the run in DIR: its corpus, findings and settings
Each target may take up to {overhead} s more than its share of --seconds
(seeds, stopping, replaying, minimising). Output: DIR/summary.txt, and
DIR/summary.jsonl (records, docs/records.md).
Exit status: 0 no findings, 1 findings, 2 bad usage or could not judge,
130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.""".format(overhead=OVERHEAD_SECONDS, runs_seconds=RUNS_SECONDS)


Usage = cli.Usage  # bad usage: one line, exit 2
Interrupted = procs.Interrupted  # SIGINT, SIGTERM or SIGHUP: exit 128 + N


# ------------------------------------------------------------------ options


def parse_args(argv):
    cli.refuse_non_utf8(argv, ("--sanitize",))
    opts = {"target": "all", "seconds": "", "runs": "", "seed": "", "variant": "", "engine": "libfuzzer",
            "sanitize": "0", "jobs": "", "seeds": "", "out": "", "resume": ""}
    given = set()
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if name in VALUED and eq:
            pass
        elif arg in VALUED:
            if not args:
                raise Usage(f"{arg} needs a value")
            value = args.pop(0)
        elif arg == "--sanitize":
            value = "1"
            name = arg
        elif name == "--sanitize":
            raise Usage(f"--sanitize takes no value ('{arg}')")
        elif arg in ("-h", "--help"):
            return None, None
        elif arg.startswith("-"):
            raise Usage(f"unknown option '{arg}' (valid: {OPTIONS})")
        else:
            raise Usage(f"unexpected argument '{arg}' (valid: {OPTIONS})")
        if name in VALUED and not value.strip():
            # An empty value is no "not given": --resume= must not start a new run.
            raise Usage(f"{name} needs a value, not an empty one")
        cli.once(given, name)
        key = name[2:]
        opts[key] = value
    return opts, {n[2:] for n in given}


def read_conf(path):
    conf = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key in ("target", "variant", "engine", "sanitize"):
                conf[key] = value
    return conf


def check_runs(opts):
    """--runs and --seed: one process, a fixed seed, --seconds a bound."""
    if not opts["runs"]:
        if opts["seed"]:
            # A time-driven run is not repeatable: a seed would promise that it is.
            raise Usage("--seed needs --runs (a run for a time budget is not repeatable)")
        return
    if not re.fullmatch(r"[1-9][0-9]*", opts["runs"]) or int(opts["runs"]) > RUNS_MAX:
        raise Usage(f"bad value '{opts['runs']}' for --runs (a number of inputs, 1 to {RUNS_MAX})")
    if not opts["seed"]:
        opts["seed"] = "1"
    if not re.fullmatch(r"[1-9][0-9]*", opts["seed"]) or int(opts["seed"]) > 0xFFFFFFFF:
        raise Usage(f"bad value '{opts['seed']}' for --seed (1 to 4294967295)")
    # Processes side by side share their inputs by timing: one process is
    # what makes the inputs the seed's alone.
    if opts["jobs"] not in ("", "1"):
        raise Usage(f"--runs runs one process: --jobs={opts['jobs']} is for a time budget (leave it out, or --jobs=1)")
    opts["jobs"] = "1"
    if not opts["seconds"]:
        opts["seconds"] = str(RUNS_SECONDS)


def check_options(opts):
    if opts["engine"] not in ENGINES:
        raise Usage(f"unknown engine '{opts['engine']}' for --engine (valid: libfuzzer, afl)")
    check_runs(opts)
    if not opts["seconds"]:
        opts["seconds"] = "60"
    if not re.fullmatch(r"[1-9][0-9]{0,6}", opts["seconds"]):
        raise Usage(f"bad value '{opts['seconds']}' for --seconds (a whole number of seconds, 1 or more)")
    if not opts["jobs"]:
        opts["jobs"] = str(os.cpu_count() or 1)
    if not re.fullmatch(r"[1-9][0-9]{0,2}", opts["jobs"]):
        raise Usage(f"bad value '{opts['jobs']}' for --jobs (a number of processes, 1 to 999)")
    if opts["target"] not in TARGETS + ("all",):
        raise Usage(f"unknown target '{opts['target']}' for --target (valid: memcpy, memmove, memset, page, usercopy, all)")
    if opts["sanitize"] == "1" and opts["engine"] == "afl":
        raise Usage("--sanitize needs --engine=libfuzzer (the ASan build is a libFuzzer build)")


OP_FAMILY = {"MEMCPY": "memcpy", "MEMPCPY": "memcpy", "MEMMOVE": "memmove", "MEMSET": "memset",
             "COPY_PAGE": "page", "CLEAR_PAGE": "page", "COPY_FROM_USER": "usercopy",
             "COPY_TO_USER": "usercopy", "CLEAR_USER": "usercopy"}


def variant_family(name):
    """The variant's target, from the tables the binaries are built from."""
    arch = os.uname().machine
    pattern = re.compile(r"^MG_VARIANT(?:_CONV)?\(([a-z0-9_]+), *([A-Za-z0-9_]+), *([A-Z_]+),")
    for table in ("harness/engine/variants.def", "tests/bad/bad.def"):
        try:
            with open(os.path.join(ROOT, table), encoding="utf-8") as f:
                for line in f:
                    m = pattern.match(line)
                    if m and m.group(1) in ("generic", arch) and m.group(2) == name:
                        return OP_FAMILY.get(m.group(3))
        except OSError:
            continue
    return None


def variant_family_in_build(bin_root, name):
    """A variant only a gate build has: that build's table (its TSV)."""
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"fuzz-list-{os.getpid()}.tsv")
    try:
        r = procs.run([os.path.join(bin_root, "memgate"), "list", "--set=all", "--tsv"],
                      stdout=out, timeout=30)
        if r.returncode != 0:
            return None
        with open(out, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) > 1 and fields[0] == name:
                    return OP_FAMILY.get(fields[1].upper())
    except OSError:
        return None
    finally:
        if os.path.exists(out):
            os.unlink(out)
    return None


def max_len_default():
    try:
        with open(os.path.join(ROOT, "harness/fuzz/decode.h"), encoding="utf-8") as f:
            m = re.search(r"^#define MG_DEFAULT_MAX_LEN +\(\(size_t\)(\d+) << (\d+)\)", f.read(), re.M)
        if m:
            return int(m.group(1)) << int(m.group(2))
    except OSError:
        pass
    return 4 << 20


def working_path(path):
    """`path` relative to where the run works (the tree, or the results
    directory) when it is under it, else absolute."""
    path, here = os.path.abspath(path), os.getcwd()
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path


# ------------------------------------------------------------ the run itself


class Context:
    """The settings every part of a run shares."""

    def __init__(self, opts, run_dir, bin_root, resuming):
        self.target = opts["target"]
        self.variant = opts["variant"]
        self.engine = opts["engine"]
        self.sanitize = opts["sanitize"] == "1"
        self.jobs = int(opts["jobs"])
        self.seconds = int(opts["seconds"])
        # --runs: N inputs from a seed in one process (0: a time budget).
        self.runs = int(opts["runs"]) if opts.get("runs") else 0
        self.seed = int(opts["seed"]) if self.runs else None
        self.run_dir = run_dir
        self.bin_root = bin_root
        self.resuming = resuming
        self.seeds = opts.get("seeds") or ""  # --seeds: more seeds, besides corpus/<target>/
        self.flavor = "afl" if self.engine == "afl" else ("libfuzzer-asan" if self.sanitize else "libfuzzer")
        self.label = self.engine + ("+asan" if self.sanitize else "")
        # libFuzzer's -timeout (and AFL++'s -t) stay well above the harness's
        # own watchdog, which turns a hang into a `timeout` finding: 1 s per
        # call plus 1 ms per 4 KiB of the longest length a target decodes,
        # and a case makes a few calls (the variant, the reference, a
        # memset replay).
        call_ms = 1000 + max_len_default() // 4096
        self.timeout_s = (4 * call_ms + 999) // 1000 + 2

    def show(self, path):
        """A path as printed and recorded: as the user names it when it is
        under where the run works, else absolute."""
        path = working_path(path)
        return path if os.path.isabs(path) else workspace.CURRENT.shown(path)

    def fuzz_binary(self, flavor, target):
        return os.path.join(self.bin_root, "fuzz", flavor, f"fuzz_{target}")

    def replay_binary(self):
        return os.path.join(self.bin_root, "replay")

    def replay_flags(self, target):
        return [f"--target={target}"] + ([f"--variant={self.variant}"] if self.variant else [])

    def env(self):
        env = dict(os.environ)
        for k in ("MEMGATE_MAX_LEN", "MEMGATE_FINDINGS", "MEMGATE_VARIANT"):
            env.pop(k, None)
        if self.variant:
            env["MEMGATE_VARIANT"] = self.variant
        # A crash's stack trace is of no use here (every input is replayed
        # afterwards) and symbolizing it costs half a second per crash. A
        # user's own settings come later and win. (AFL++ insists on its own
        # ASAN_OPTIONS.)
        if self.engine == "libfuzzer":
            for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
                env[k] = "symbolize=0" + (":" + os.environ[k] if os.environ.get(k) else "")
        return env

    def with_variant_env(self, argv):
        prefix = ["env", f"MEMGATE_VARIANT={self.variant}"] if self.variant else []
        return prefix + argv

    def repro_argv(self, target, path):
        """scripts/repro's argv for an input (run from the repository's
        root, with repro_env() in the environment)."""
        argv = ["scripts/repro", f"--target={target}"]
        if self.variant:
            argv.append(f"--variant={self.variant}")
        return argv + [path]

    def repro_env(self):
        """What scripts/repro needs in its environment: the build the run
        used, when not build/."""
        return {"MEMGATE_BUILD": self.bin_root} if self.bin_root != "build" else {}

    def repro_text(self, target, path):
        """The repro command for the input at `path` (absolute or from
        where the run works), as the user runs it from where they started
        the run: in the results directory, scripts/repro is that
        directory's, so the line changes into it first (as the gate's)."""
        env = "".join(f"{k}={shlex.quote(v)} " for k, v in self.repro_env().items())
        return workspace.CURRENT.command(env + shlex.join(self.repro_argv(target, working_path(path))))


class Lock:
    """An exclusive lock on the run directory, held for the whole run: a
    second scripts/fuzz (or --resume) on it refuses."""

    def __init__(self, run_dir):
        self.path = os.path.join(run_dir, LOCK_NAME)
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise Usage(f"cannot create the lock file {self.path}: {e.strerror}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self.fd, 64, 0).decode("ascii", "replace").strip()
            os.close(self.fd)
            raise Usage(
                f"{run_dir} is in use by another scripts/fuzz run"
                + (f" (pid {holder})" if holder.isdigit() else "")
                + ": wait for it to end, or give another directory"
            ) from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)


class Session:
    """One scripts/fuzz run: options checked, directory locked, each target
    fuzzed and judged, the summary written."""

    def __init__(self, argv, cwd):
        self.argv = argv
        self.cwd = cwd
        self.run_dir = None
        self.ctx = None
        self.report = None
        self.phase = "setup"
        self.engine = None

    def abs(self, path):
        return path if os.path.isabs(path) else os.path.join(self.cwd, path)

    def setup(self):
        opts, given = parse_args(self.argv)
        if opts is None:
            cli.print_help(USAGE)
            return False
        resume = opts["resume"]
        if resume:
            if opts["out"]:
                raise Usage("--resume and --out both name the run directory: give one")
            resume = os.path.normpath(self.abs(resume))
            if not os.path.isdir(os.path.join(resume, "corpus")):
                raise Usage(f"--resume={resume} is not a scripts/fuzz run directory (no corpus/ in it)")
            if not os.access(os.path.join(resume, "run.conf"), os.R_OK):
                raise Usage(f"--resume={resume} has no run.conf (made by an older scripts/fuzz): "
                            "give its settings with --out on a new directory")
            self.lock = Lock(resume)
            conf = read_conf(os.path.join(resume, "run.conf"))
            for key, value in conf.items():
                if key in given and opts[key] != value:
                    raise Usage(f"--resume: the run in {resume} has {key} '{value or 'none'}', not '{opts[key]}'")
                opts[key] = value
        check_options(opts)
        if opts["seeds"]:
            opts["seeds"] = os.path.normpath(self.abs(opts["seeds"]))
            if not os.path.isdir(opts["seeds"]):
                raise Usage(f"--seeds={opts['seeds']}: no such directory")
        bin_root = os.environ.get("MEMGATE_BUILD") or "build"
        self.no_build = bin_root != "build" or os.environ.get("MEMGATE_FUZZ_NO_BUILD", "0") == "1"
        if opts["variant"]:
            family = variant_family(opts["variant"]) or variant_family_in_build(bin_root, opts["variant"])
            if not family:
                raise Usage(f"unknown variant '{opts['variant']}' for --variant (see build/memgate list)")
            if opts["target"] not in ("all", family):
                raise Usage(f"variant {opts['variant']} is a {family} variant, not of target {opts['target']}")
            opts["target"] = family
        if opts["engine"] == "afl":
            for tool in ("afl-fuzz", "afl-tmin"):
                if not shutil.which(tool):
                    raise Usage(f"--engine=afl: {tool} is not installed (scripts/install-deps installs AFL++)")
        self.run_dir = resume or self.make_run_dir(opts["out"])
        self.ctx = Context(opts, self.run_dir, bin_root, bool(resume))
        self.report = Report(self.ctx)
        # An earlier session's summary stays until this session's complete
        # one replaces it (records.write_text renames it into place); the
        # log says which session it is of, and of an interrupted one.
        self.log_session(f"session started {time.strftime('%Y-%m-%d %H:%M:%S')} (pid {os.getpid()}): "
                         f"{shlex.join(self.argv)}")
        conf = "".join(f"{k} {opts[k]}\n" for k in ("target", "variant", "engine", "sanitize"))
        write_text(os.path.join(self.run_dir, "run.conf"), conf)
        return True

    def log_session(self, line):
        """Appends a line to DIR/sessions.log, the run directory's history:
        each session's start and end, one header a session."""
        with open(os.path.join(self.run_dir, "sessions.log"), "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def make_run_dir(self, out):
        if out:
            out = os.path.normpath(self.abs(out))
            if os.path.exists(out) and not os.path.isdir(out):
                raise Usage(f"--out={out} is not a directory")
            if os.path.isdir(out) and [n for n in os.listdir(out) if n != LOCK_NAME]:
                if os.path.exists(os.path.join(out, LOCK_NAME)):
                    self.lock = Lock(out)  # a run in it says so
                raise Usage(f"--out={out} is not empty (give a new directory)")
            try:
                os.makedirs(out, exist_ok=True)
            except OSError:
                raise Usage(f"--out={out} cannot be created") from None
            self.lock = Lock(out)
            if [n for n in os.listdir(out) if n != LOCK_NAME]:
                raise Usage(f"--out={out} is not empty (give a new directory)")
            return out
        base = os.path.join("findings", "fuzz", time.strftime("%Y%m%d-%H%M%S"))
        os.makedirs(os.path.dirname(base), exist_ok=True)
        for n in range(1, 100):
            path = base if n == 1 else f"{base}-{n}"
            try:
                os.mkdir(path)
            except FileExistsError:
                continue
            self.lock = Lock(path)
            return path
        raise Usage("cannot create a run directory under findings/fuzz")

    # ----------------------------------------------------------------- build

    def targets(self):
        return list(FAMILIES) if self.ctx.target == "all" else [self.ctx.target]

    def build(self):
        ctx = self.ctx
        needed = [ctx.replay_binary()]
        for t in self.targets():
            needed.append(ctx.fuzz_binary(ctx.flavor, t))
            if ctx.flavor == "libfuzzer-asan":
                needed.append(ctx.fuzz_binary("libfuzzer", t))  # the minimiser's
        if not self.no_build:
            log = os.path.join(self.run_dir, "build.log")
            with open(log, "wb") as f:
                r = procs.run(["make", "-s", "--no-print-directory"] + needed, stdout=f, stderr=f)
            if r.returncode != 0:
                with open(log, encoding="utf-8", errors="replace") as f:
                    tail = "".join(f.readlines()[-15:])
                sys.stderr.write(tail)
                raise CouldNotJudge(f"building {' '.join(needed)} failed (the end of {ctx.show(log)} is above)")
        for f in needed:
            if not os.access(f, os.X_OK):
                raise CouldNotJudge(f"{f} is missing: run make fuzz-build (or make fuzz)")

    # ---------------------------------------------------------------- corpus

    def prepare_corpus(self, t, corp, raw, work, deadline):
        """The seeds: corpus/<target>/ copied into the run, minus what
        build/replay says fails (those are findings already: they go to raw/
        as seed-NAME, with the replay's record beside them). Only seeds the
        run does not have yet are copied (a resumed run keeps its corpus as
        it is), through a staging directory, so that a run stopped halfway
        never has a seed in its corpus that was not screened. A file that is
        no input (too long, not a regular file, unreadable) stops the run:
        could not judge."""
        check_corpus(corp)
        stage = os.path.join(work, "seeds")
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(stage)
        for src in (os.path.join(ROOT, "corpus", t), self.ctx.seeds):
            if not src or not os.path.isdir(src):
                continue
            for name in sorted(os.listdir(src)):
                path = os.path.join(src, name)
                if name.startswith(".") or name.endswith((".md", ".txt")) or os.path.isdir(path):
                    continue
                check_input_file(path)
                if os.path.exists(os.path.join(corp, name)) or os.path.exists(os.path.join(raw, f"seed-{name}")):
                    continue
                copy_file(path, os.path.join(stage, name))
        self.screen(t, stage, raw, work, deadline)
        for name in sorted(os.listdir(stage)):
            dst = os.path.join(corp, name)
            if not os.path.exists(dst):
                os.replace(os.path.join(stage, name), dst)
        shutil.rmtree(stage, ignore_errors=True)

    def screen(self, t, directory, raw, work, deadline):
        """Moves the inputs of `directory` that fail into raw/ as seed-NAME,
        each with build/replay's record of it."""
        paths = [os.path.join(directory, n) for n in sorted(os.listdir(directory))]
        verdicts = Replayer(self.ctx, t, work).run(paths, deadline, "the seeds")
        for path in paths:
            v = verdicts[path]
            if v.failed:
                dst = os.path.join(raw, "seed-" + os.path.basename(path))
                os.replace(path, dst)
                record = dict(v.finding)
                record["input"] = self.ctx.show(dst)
                write_lines(record_path(dst), [record])

    # ------------------------------------------------------------- fuzzing

    def fuzz_target(self, idx, t, per_target):
        """One target's session: seeds, fuzzing, then what was saved judged."""
        ctx = self.ctx
        target_dir = os.path.join(self.run_dir, t)
        raw = os.path.join(target_dir, "raw")
        corp = os.path.join(self.run_dir, "corpus", t)
        work = os.path.join(self.run_dir, "work", t)
        for d in (target_dir, raw, corp, work):
            os.makedirs(d, exist_ok=True)
        deadline = procs.Deadline(per_target + OVERHEAD_SECONDS)
        self.prepare_corpus(t, corp, raw, work, deadline)
        engine = ENGINES[ctx.engine](ctx, t, work, raw, corp)
        self.engine = engine
        # What an interrupted session left in flight is an earlier session's.
        take_inflight(raw)
        earlier = set(_all_files(raw))
        session_start = time.time()
        label = f"[{idx + 1}/{len(self.targets())}] {t}"
        elapsed, status, reason = self.run_engine(engine, label, per_target, deadline)
        self.phase = "analysing"
        if status == "ran" and ctx.runs and engine.children:  # (not started: every seed a finding)
            status, reason = self.check_runs_done(engine, per_target)
        execs, corpus_size, _ = engine.stats()
        print(f"{label}: fuzzed {round(elapsed)}s; replaying, minimizing and deduplicating what was saved",
              file=sys.stderr)
        if status == "ran" and execs == 0 and not saved_inputs(raw):
            status, reason = "error", (f"{engine.name} did not get to run an input in {round(elapsed)} s "
                                       f"(not past its corpus of {corpus_size}: the machine too busy, or the budget too short)")
        # Recorded before the analysis: if that cannot judge, summary.jsonl
        # still says how the fuzzer ran.
        self.report.add_engine(t, engine.name, execs, elapsed, corpus_size, status, reason)
        analysis = Analysis(ctx, engine, t, target_dir, raw, work)
        findings = analysis.run(earlier, session_start, deadline, engine.alive_at_stop)
        shutil.rmtree(os.path.join(work, "tmp"), ignore_errors=True)
        for f in findings:
            self.report.add_finding(t, f)
        for why in analysis.errors:
            self.report.add_error(why, t)

    def run_engine(self, engine, label, budget, deadline):
        """Runs the fuzzers for the budget: (seconds, status, reason)."""
        t = engine.target
        if engine.name == "afl" and not engine.prepare_input(
                lambda d: self.screen(t, d, engine.raw, engine.work, deadline)):
            # Not an error: every seed is a finding already.
            return 0.0, "ran", (f"every seed fails on {self.ctx.variant or 'this target'}; AFL++ had "
                                f"nothing to start from (the failing seeds are in {self.ctx.show(engine.raw)})")
        self.phase = "fuzzing"
        engine.start(budget)
        elapsed = self.watch(engine, label, budget, deadline, time.monotonic())
        self.phase = "collecting"
        engine.collect()
        outcome = engine.outcome()
        return elapsed, outcome.status, outcome.reason

    def check_runs_done(self, engine, budget):
        """--runs: ("ran", None) when the engine made its N inputs, or a
        finding ended it early; else ("error", how many of N ran): a run
        cut short by the watchdog is never a pass."""
        n = self.ctx.runs
        done = engine.inputs_done()
        if engine.stopped:
            return "error", (f"{engine.label} ran {done} of {n} inputs from seed {self.ctx.seed} within "
                             f"{budget} s (--seconds): not all of them, so no verdict")
        if done >= n or engine.ended_on_finding():
            return "ran", None
        return "error", f"{engine.label} ended after {done} of {n} inputs from seed {self.ctx.seed}, with no finding"

    def watch(self, engine, label, budget, deadline, t0):
        """Waits for the fuzzers to stop by themselves or reach the budget
        (plus the engine's grace), printing progress: a line every 10 s, or
        one line rewritten twice a second on a terminal."""
        tty = sys.stderr.isatty()
        last = -10.0
        stop_at = t0 + budget + engine.grace
        while engine.running():
            now = time.monotonic()
            if now >= stop_at or deadline.expired():
                break
            el = now - t0
            if tty or el - last >= 10:
                self.progress(engine, label, int(el), budget, tty)
                last = el
            time.sleep(0.5 if tty else 0.1)
        elapsed = time.monotonic() - t0
        engine.stop()
        if tty:
            sys.stderr.write("\r\033[K")
        return min(elapsed, float(budget)) if engine.stopped else elapsed

    def progress(self, engine, label, el, budget, tty):
        execs, corpus, crashes = engine.stats()
        kinds = set()
        try:
            for n in os.listdir(engine.raw):
                if n.endswith(".json") and not n.startswith("seed-"):
                    kinds.add(n.rsplit("-", 1)[0])
        except OSError:
            pass
        rate = execs // el if el > 0 else 0
        if self.ctx.runs:
            done = f"{engine.inputs_done()} of {self.ctx.runs} inputs, {el}s (at most {budget}s)"
        else:
            done = f"{el}s of {budget}s"
        msg = (f"{label}: {done}, {execs} execs, {rate} exec/s, corpus {corpus}, "
               f"findings {len(kinds)} ({crashes} crash inputs)")
        if tty:
            sys.stderr.write("\r\033[K" + msg)
        else:
            sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    # ----------------------------------------------------------------- main

    def execute(self):
        if not self.setup():
            return 0
        ctx = self.ctx
        targets = self.targets()
        per_target = max(1, ctx.seconds // len(targets))
        if ctx.runs:
            plan = (f"{len(targets)} target(s) x {ctx.runs} inputs from seed {ctx.seed}, "
                    f"at most {per_target}s each, 1 job")
        else:
            plan = f"{len(targets)} target(s) x {per_target}s, {ctx.jobs} jobs"
        print(f"fuzz: {'resuming ' if ctx.resuming else ''}run directory {ctx.show(self.run_dir)} "
              f"({ctx.label}, {plan}{', variant ' + ctx.variant if ctx.variant else ''})", file=sys.stderr)
        self.build()
        for idx, t in enumerate(targets):
            self.fuzz_target(idx, t, per_target)
        status = self.report.finish()
        self.log_session(f"session ended {time.strftime('%Y-%m-%d %H:%M:%S')}: exit {status}; "
                         "summary.txt and summary.jsonl are this session's")
        return status

    def write_error(self, reason):
        """What a reader of summary.jsonl learns of a run that could not
        judge: the records so far, the error, a summary that counts it."""
        if self.report is None:
            return
        try:
            self.report.add_error(reason, None)
            self.report.write_records()
        except CouldNotJudge:
            pass


def copy_file(src, dst):
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise CouldNotJudge(f"cannot copy {src} to {dst}: {e.strerror or e}") from None


def _all_files(top):
    out = []
    for d, _, files in os.walk(top):
        out.extend(os.path.join(d, f) for f in files)
    return out


def check_input_file(path):
    try:
        st = os.stat(path)
    except OSError as e:
        raise CouldNotJudge(f"corpus file {path}: {e.strerror}") from None
    if not os.path.isfile(path):
        raise CouldNotJudge(f"corpus file {path} is not a regular file")
    if st.st_size > INPUT_MAX:
        raise CouldNotJudge(f"corpus file {path} is not a memgate fuzz input: {st.st_size} bytes, over {INPUT_MAX}")
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise CouldNotJudge(f"corpus file {path}: {e.strerror}") from None


def check_corpus(corp):
    """Every file of the working corpus is an input the fuzzers can read."""
    for top, dirs, files in os.walk(corp):
        for name in files:
            check_input_file(os.path.join(top, name))
        for name in dirs:
            p = os.path.join(top, name)
            if os.path.islink(p):
                raise CouldNotJudge(f"corpus entry {p} is a symbolic link")


def main(argv):
    cwd = os.getcwd()
    try:
        # The tree, or the results directory (orchestration/workspace.py):
        # --out and --resume are the user's paths (Session resolves them).
        workspace.enter()
    except workspace.Unusable as e:
        print(f"fuzz: {e}", file=sys.stderr)
        return 2
    procs.catch_stop_signals()
    session = Session(argv, cwd)
    try:
        return session.execute()
    except Usage as e:
        print(f"fuzz: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        return interrupted(session, e)
    except CouldNotJudge as e:
        return could_not_judge(session, str(e))
    except OSError as e:
        where = f" ({e.filename})" if e.filename else ""
        return could_not_judge(session, f"{e.strerror or e}{where}")
    except Exception as e:  # a bug here must never read as a pass
        import traceback

        traceback.print_exc()
        return could_not_judge(session, f"internal error: {type(e).__name__}: {e}")
    finally:
        cli.stop_children()


def could_not_judge(session, reason):
    procs.stop_all()
    session.write_error(reason)
    where = f" (what was saved is in {session.ctx.show(session.run_dir)})" if session.ctx else ""
    print(f"fuzz: could not judge: {reason}{where}", file=sys.stderr)
    return 2


def interrupted(session, e):
    """Stops the fuzzers, keeps what they saved, says so in one line and in
    sessions.log, and returns 128 + N."""
    cli.stop_children()
    if not isinstance(e, Interrupted):
        e = procs.interrupted() or Interrupted(signal.SIGINT)
    try:
        run = session.ctx.show(session.run_dir) if session.ctx else None
        if session.ctx:
            if session.phase in ("fuzzing", "collecting") and session.engine is not None:
                try:
                    session.engine.collect()
                except OSError:
                    pass
            session.log_session(f"session interrupted by {e.name} {time.strftime('%Y-%m-%d %H:%M:%S')} while "
                                f"{session.phase}: its inputs in */raw are not judged yet (partial); "
                                "summary.txt and summary.jsonl, if there, are of an earlier session")
    except (KeyboardInterrupt, OSError):
        pass
    if run and session.phase in ("fuzzing", "collecting", "analysing"):
        print(f"fuzz: interrupted by {e.name}; the fuzzers are stopped; findings so far are in {run}/*/raw "
              f"(partial, not judged), working corpus in {run}/corpus", file=sys.stderr)
    elif run:
        print(f"fuzz: interrupted by {e.name}; what was saved so far is in {run} (partial)", file=sys.stderr)
    else:
        print(f"fuzz: interrupted by {e.name}; nothing was saved yet", file=sys.stderr)
    return e.status

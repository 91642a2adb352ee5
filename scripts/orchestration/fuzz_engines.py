"""The two fuzzers scripts/fuzz drives: libFuzzer (-fork=N) and AFL++ (one -M
and N-1 -S instances sharing an output directory); with --runs, each in one
process for a number of inputs from a fixed seed (libFuzzer in-process with
-runs and -seed, AFL++ with -E and -s).

An engine starts its processes (each in a session of its own, through
procs), reports progress figures while they run, and afterwards says
whether it ran or could not run, and why. Whether it found anything is
never taken from here: that comes from the records of what it saved
(fuzz_findings). The figures read from the fuzzers' logs (execs, corpus
size) are statistics for people and the summary, not verdicts.
"""

import filecmp
import os
import re
import shutil
import signal
import time

from . import procs
from .records import CouldNotJudge

# The length of input the fuzzers make: a case is decoded from 29 bytes
# (harness/fuzz/decode.h); the rest is room to mutate.
INPUT_LEN = 64

# A few seeds of lengths and alignments most variants get right, for AFL++,
# which cannot start without one. 24 bytes each (the 5 spot bytes before
# them read as zero: guard pages), the fields read from the
# end (harness/fuzz/decode.h): seed 8, value 4, dist 4, dst, src, length 4,
# length class, selector.
GENERATED_SEEDS = (
    # seed            value    dist     dst src length   cls sel
    "0000000000000000 00000000 00000000 03  05  00000011 00  00",  # 17 bytes, src%64 5, dst%64 3
    "0000000000000000 00000041 00000000 02  01  00000064 00  01",  # 100 bytes, memset c 0x41
    "0000000000000000 00000000 00000005 43  00  00000021 00  02",  # 33 bytes, memmove dst = src + 5
    "0000000000000000 000000ff 00000000 07  45  000003e8 00  03",  # 1000 bytes, place before
    "0000000000000000 00000000 00000000 00  00  00001000 00  00",  # a page
)

# libFuzzer's exit statuses for a crash, a timeout, an out-of-memory and an
# interrupt (-error_exitcode, -timeout_exitcode, ...): with -fork and the
# -ignore_* flags it goes on after those, so they mean it stopped early.
LIBFUZZER_STOPPED_ON_FINDING = (70, 71, 72, 77)


def inflight_owners_alive(raw):
    """The pids of the fuzz target processes that own an in-flight file in
    raw/ (inflight-PID) and still run."""
    alive = set()
    try:
        names = os.listdir(raw)
    except OSError:
        return alive
    for name in names:
        pid = name[len("inflight-"):]
        if name.startswith("inflight-") and pid.isdigit() and process_running(int(pid)):
            alive.add(int(pid))
    return alive


def process_running(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def rotate(path):
    """Keeps a log of an earlier session beside the new one."""
    if os.path.exists(path):
        base, ext = os.path.splitext(path)
        os.replace(path, f"{base}-{time.strftime('%Y%m%d-%H%M%S')}{ext}")


def count_files(top):
    n = 0
    for _, _, files in os.walk(top):
        n += len(files)
    return n


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(returncode):
    if returncode is not None and returncode < 0:
        return f"was killed by {signal_name(-returncode)}"
    return f"exited with status {returncode}"


class Outcome:
    """How an engine's run ended: `status` "ran" or "error", and why."""

    def __init__(self, status, reason=None):
        self.status = status
        self.reason = reason


class Engine:
    name = "?"
    label = "?"  # as people name it, in messages
    # Seconds past the budget before the fuzzers are stopped: a backstop for
    # an engine that stops by itself.
    grace = 1.0

    def __init__(self, ctx, target, work, raw, corpus):
        self.ctx = ctx
        self.target = target
        self.work = work
        self.raw = raw
        self.corpus = corpus
        self.children = []  # (name, Popen, log path)
        self.stopped = False  # stopped by us at the deadline
        self.alive_at_stop = set()  # pids of the in-flight files' owners then

    def running(self):
        return any(child.poll() is None for _, child, _ in self.children)

    def stop(self):
        """Stops every process of this engine (we did: not an error). The
        fuzz target processes still running now are the ones whose call in
        flight, if any, we end: alive_at_stop."""
        if any(child.returncode is None for _, child, _ in self.children):
            self.stopped = True
            self.alive_at_stop = inflight_owners_alive(self.raw)
        for _, child, _ in self.children:
            procs.stop(child)

    def fuzz_env(self):
        env = self.ctx.env()
        env["MEMGATE_FINDINGS"] = self.raw
        return env

    def ended_on_finding(self):
        """Whether the fuzzer stopped early, by itself, on a finding."""
        return False


class LibFuzzer(Engine):
    name = "libfuzzer"
    label = "libFuzzer"
    grace = 1.0  # -fork overruns -max_total_time by up to a job's length

    def __init__(self, *args):
        super().__init__(*args)
        # --runs: where libFuzzer writes its new inputs (moved into the
        # corpus afterwards), and how many executions its seeds take.
        self.new_units = os.path.join(self.work, "libfuzzer-new")
        self.seed_execs = 0

    def binary(self):
        return self.ctx.fuzz_binary(self.ctx.flavor, self.target)

    def start(self, seconds):
        log = os.path.join(self.work, "fuzzer.log")
        rotate(log)
        tmp = os.path.join(self.work, "tmp")
        shutil.rmtree(tmp, ignore_errors=True)  # half-done jobs of an earlier session
        os.makedirs(tmp, exist_ok=True)
        env = self.fuzz_env()
        env["TMPDIR"] = tmp
        if self.ctx.runs:
            argv = self.runs_argv()
            self.children.append(("fuzzer", procs.start(argv, stdout=log, stderr=log, env=env), log))
            return True
        t = self.ctx.timeout_s
        # -fork: one process per job, so the run goes on after a crash; each
        # crashing input is written with -artifact_prefix, and the target
        # writes its own record of it to MEMGATE_FINDINGS first.
        argv = [
            self.binary(),
            f"-fork={self.ctx.jobs}",
            "-ignore_crashes=1",
            "-ignore_timeouts=1",
            "-ignore_ooms=1",
            f"-max_len={INPUT_LEN}",
            f"-timeout={t}",
            f"-report_slow_units={2 * t}",
            f"-max_total_time={seconds}",
            "-print_final_stats=1",
            f"-artifact_prefix={self.raw}/",
            self.corpus,
        ]
        self.children.append(("fuzzer", procs.start(argv, stdout=log, stderr=log, env=env), log))
        return True

    def runs_argv(self):
        """--runs: one process, no -fork, -seed fixed. libFuzzer reads a
        corpus directory in the file system's order, which differs between
        machines, so the seeds go by -seed_inputs in a sorted list instead,
        and its new inputs into an empty directory of their own. Its -runs
        counts the seeds' executions too: those are added."""
        self.collect()  # what an earlier session left there (killed, say)
        shutil.rmtree(self.new_units, ignore_errors=True)
        os.makedirs(self.new_units)
        seeds = self.seed_list()
        # libFuzzer runs the empty input first, then each non-empty seed
        # once, or "\n" when there is none: the count its INITED line gives.
        self.seed_execs = 1 + (len(seeds) if seeds else 1)
        t = self.ctx.timeout_s
        argv = [
            self.binary(),
            f"-runs={self.seed_execs + self.ctx.runs}",
            f"-seed={self.ctx.seed}",
            "-reload=0",  # rereading the corpus on a timer: inputs by the clock
            f"-max_len={INPUT_LEN}",
            f"-timeout={t}",
            f"-report_slow_units={2 * t}",
            "-print_final_stats=1",
            f"-artifact_prefix={self.raw}/",
        ]
        if seeds:
            argv.append(f"-seed_inputs=@{self.write_seed_list(seeds)}")
        return argv + [self.new_units]

    def seed_list(self):
        """The corpus's non-empty files (libFuzzer skips empty ones), in
        the order of their paths."""
        found = []
        for top, dirs, files in os.walk(self.corpus):
            dirs.sort()
            for name in files:
                path = os.path.join(top, name)
                if os.path.getsize(path) > 0:
                    found.append(os.path.relpath(path, self.corpus))
        return sorted(found)

    def write_seed_list(self, seeds):
        """-seed_inputs is comma-separated, and corpus names may hold commas
        (AFL++'s do): the seeds are copied under numbered names first."""
        stage = os.path.join(self.work, "seed-inputs")
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(stage)
        paths = []
        for i, rel in enumerate(seeds, 1):
            path = os.path.join(stage, f"{i:06d}")
            shutil.copyfile(os.path.join(self.corpus, rel), path)
            paths.append(path)
        listing = os.path.join(self.work, "seed-inputs.txt")
        with open(listing, "w", encoding="utf-8") as f:
            f.write(",".join(paths))  # no newline: it would end the last name
        return listing

    def log_tail(self):
        log = os.path.join(self.work, "fuzzer.log")
        try:
            with open(log, "rb") as f:
                f.seek(max(0, os.path.getsize(log) - 65536))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def inputs_done(self):
        """--runs: the inputs run past the seeds (libFuzzer's count less
        its INITED line's); 0 before that line."""
        inited = None
        log = os.path.join(self.work, "fuzzer.log")
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = re.match(r"#(\d+)\s+INITED", line)
                    if m:
                        inited = int(m.group(1))
                        break
        except OSError:
            pass
        if inited is None:
            return 0
        if inited != self.seed_execs:
            # The count this run was planned on is not libFuzzer's: it did
            # not run N inputs, and must not pass as if it had.
            raise CouldNotJudge(f"libFuzzer ran its seeds as {inited} inputs, not the {self.seed_execs} "
                                f"its -runs was set for (see {self.ctx.show(log)})")
        return max(0, self.stats()[0] - inited)

    def ended_on_finding(self):
        """--runs: one process stops at its first crash, timeout or
        out-of-memory, with whatever exit status the crash's handler gave
        (ASan's is 1), once it has saved the input: "Test unit written to"."""
        if self.stopped or not self.children or self.children[0][1].returncode in (0, None):
            return False
        return first_line(self.children[0][2], r"^artifact_prefix=.*; Test unit written to ") is not None

    def stats(self):
        """(execs, corpus entries, crash inputs) so far."""
        execs = 0
        tail = self.log_tail()
        # -fork's parent says "#N: cov: ..."; one process "#N\tNEW ...".
        for m in re.finditer(r"^#(\d+)[:\t]" if self.ctx.runs else r"^#(\d+):", tail, re.M):
            execs = max(execs, int(m.group(1)))
        for m in re.finditer(r"^stat::number_of_executed_units:\s*(\d+)", tail, re.M):
            execs = max(execs, int(m.group(1)))
        # -fork runs the seeds first (a merge, in a process of its own), and
        # reports them with "#0: cov: ..." once done: executed inputs too.
        seeds = re.search(r"^INFO: -fork=\d+: (\d+) seed inputs", tail, re.M)
        if seeds and re.search(r"^#\d+: cov:", tail, re.M):
            execs += int(seeds.group(1))
        crashes = 0
        try:
            crashes = sum(
                1 for n in os.listdir(self.raw) if n.split("-")[0] in ("crash", "timeout", "oom", "leak")
            )
        except OSError:
            pass
        return execs, count_files(self.corpus) + count_files(self.new_units), crashes

    def outcome(self):
        if not self.children:
            return Outcome("error", "libFuzzer did not start")
        _, child, log = self.children[0]
        rc = child.returncode
        if self.stopped or rc == 0:
            return Outcome("ran")
        if self.ctx.runs and self.ended_on_finding():
            return Outcome("ran")
        if rc in LIBFUZZER_STOPPED_ON_FINDING and self.saved_something():
            return Outcome("ran")
        line = first_line(log, r"^(memgate fuzz_|ERROR|==\d+==\s*ERROR|INFO: .*(error|fail))")
        return Outcome("error", f"libFuzzer {describe_exit(rc)}: {line or 'see ' + self.ctx.show(log)}")

    def saved_something(self):
        try:
            return bool(os.listdir(self.raw))
        except OSError:
            return False

    def collect(self):
        """libFuzzer writes into the run directory as it goes; with --runs
        its new inputs are moved into the corpus now."""
        shutil.rmtree(os.path.join(self.work, "seed-inputs"), ignore_errors=True)  # copies only
        try:
            names = sorted(os.listdir(self.new_units))
        except OSError:
            return
        for name in names:
            src = os.path.join(self.new_units, name)
            dst = os.path.join(self.corpus, name)
            if os.path.exists(dst):  # named by its hash: the same input
                os.unlink(src)
            else:
                os.replace(src, dst)

    def minimise_argv(self, src, dst):
        # Minimizing uses the build without sanitizers: it is faster.
        return [
            self.ctx.fuzz_binary("libfuzzer", self.target),
            "-minimize_crash=1",
            "-runs=10000",
            f"-max_len={INPUT_LEN}",
            f"-timeout={self.ctx.timeout_s}",
            f"-exact_artifact_path={dst}",
            src,
        ]

    def rerun_argv(self, path):
        return [self.binary(), path]


class AFL(Engine):
    name = "afl"
    label = "AFL++"
    grace = 3.0  # afl-fuzz -V stops by itself; this is a backstop

    def __init__(self, *args):
        super().__init__(*args)
        # --runs starts afresh from the working corpus every session, in a
        # directory of its own: an instance that continues its queue (or
        # syncs another's, on a timer) would not run the seed's inputs.
        self.out = os.path.join(self.work, "afl-runs" if self.ctx.runs else "afl")

    def binary(self):
        return self.ctx.fuzz_binary("afl", self.target)

    def instance_names(self):
        return ["main"] + [f"s{i}" for i in range(1, self.ctx.jobs)]

    def prepare_input(self, screen):
        """AFL++'s -i: the whole working corpus (the queues of an earlier
        session too), or generated seeds if it is empty. `screen` moves the
        ones that fail into raw/. False if nothing is left to start from."""
        afl_in = os.path.join(self.work, "afl-in")
        shutil.rmtree(afl_in, ignore_errors=True)
        os.makedirs(afl_in)
        n = 0
        for top, dirs, files in os.walk(self.corpus):
            dirs.sort()  # the numbering, and so AFL++'s order, the same everywhere
            for name in sorted(files):
                n += 1
                shutil.copyfile(os.path.join(top, name), os.path.join(afl_in, f"{n:06d}-{name}"))
        if n == 0:
            for i, hexline in enumerate(GENERATED_SEEDS):
                data = bytes.fromhex(hexline.replace(" ", ""))
                with open(os.path.join(afl_in, f"generated-{i}"), "wb") as f:
                    f.write(data)
            screen(afl_in)
        return bool(os.listdir(afl_in))

    def start(self, seconds):
        afl_in = os.path.join(self.work, "afl-in")
        if self.ctx.runs:
            # The queue an earlier session left there (killed before it
            # was collected), before it goes.
            for name, inst in self.instances():
                self.collect_new_queue(name, inst)
            shutil.rmtree(self.out, ignore_errors=True)
        for name in self.instance_names():
            role = ["-M", "main"] if name == "main" else ["-S", name]
            env = self.fuzz_env()
            env.update(AFL_ENV)
            if self.ctx.runs:
                env.update(AFL_RUNS_ENV)
                env.pop("AFL_TRY_AFFINITY", None)
                # -E counts executions; -s fixes the random seed.
                limit = ["-E", str(self.ctx.runs), "-s", str(self.ctx.seed)]
            else:
                limit = ["-V", str(seconds)]
            if self.ctx.resuming and not self.ctx.runs:
                # An instance whose output directory exists continues from
                # its queue (AFL++ 4.04c); a new one reads -i.
                env["AFL_AUTORESUME"] = "1"
            log = os.path.join(self.work, f"afl-{name}.log")
            rotate(log)
            argv = (
                ["afl-fuzz", "-i", afl_in, "-o", self.out]
                + role
                + limit
                + ["-G", str(INPUT_LEN), "-t", str(self.ctx.timeout_s * 1000)]
                + ["--", self.binary()]
            )
            self.children.append((name, procs.start(argv, stdout=log, stderr=log, env=env), log))
        return True

    def inputs_done(self):
        """--runs: AFL++'s executions (-E's count: its calibration runs
        included)."""
        return self.stats()[0]

    def instances(self):
        top = self.out
        try:
            names = sorted(os.listdir(top))
        except OSError:
            return []
        return [(n, os.path.join(top, n)) for n in names if os.path.isdir(os.path.join(top, n))]

    def stats(self):
        execs = corpus = crashes = 0
        for _, inst in self.instances():
            st = read_fuzzer_stats(os.path.join(inst, "fuzzer_stats"))
            e = whole(st.get("execs_done"))
            c = whole(st.get("corpus_count"))
            pe, pc = plot_data_counts(os.path.join(inst, "plot_data"))
            execs += max(e, pe)
            corpus = max(corpus, c, pc)
            for kind in ("crashes", "hangs"):
                try:
                    crashes += sum(1 for n in os.listdir(os.path.join(inst, kind)) if n.startswith("id:"))
                except OSError:
                    pass
        if corpus == 0:
            corpus = count_files(self.corpus)
        return execs, corpus, crashes

    def outcome(self):
        if not self.children:
            return Outcome("error", "afl-fuzz did not start")
        for name, child, log in self.children:
            abort = afl_abort(log)
            if abort:
                return Outcome("error", f"afl-fuzz {name} could not run: {abort} (see {self.ctx.show(log)})")
            if not self.stopped and child.returncode != 0:
                return Outcome("error", f"afl-fuzz {name} {describe_exit(child.returncode)} (see {self.ctx.show(log)})")
            stats = os.path.join(self.out, name, "fuzzer_stats")
            if not os.path.exists(stats):
                return Outcome("error", f"afl-fuzz {name} stopped before it started fuzzing (see {self.ctx.show(log)})")
        return Outcome("ran")

    def collect(self):
        """AFL++'s crashes and hangs go to raw/afl-INSTANCE-{crashes,hangs}/,
        its queues into the working corpus (corpus/<target>/afl-INSTANCE/;
        libFuzzer, AFL++ and build/replay read corpus directories
        recursively). AFL++ exits 0 after crashes: what it found is only
        ever taken from these directories. With --runs its queue starts from
        the whole corpus every session: only its new entries are copied."""
        for name, inst in self.instances():
            for kind in ("crashes", "hangs", "queue"):
                src = os.path.join(inst, kind)
                try:
                    entries = sorted(n for n in os.listdir(src) if n.startswith("id:"))
                except OSError:
                    continue
                if kind == "queue" and self.ctx.runs:
                    self.collect_new_queue(name, inst)
                    continue
                if not entries:
                    continue
                if kind == "queue":
                    dst = os.path.join(self.corpus, f"afl-{name}")
                else:
                    dst = os.path.join(self.raw, f"afl-{name}-{kind}")
                os.makedirs(dst, exist_ok=True)
                for e in entries:
                    shutil.copy2(os.path.join(src, e), os.path.join(dst, e))
                if kind == "queue":
                    # The queue starts with the seeds: once it is copied,
                    # they need no copy of their own. (Copied first: a run
                    # stopped between the two steps keeps both.)
                    for n in os.listdir(self.corpus):
                        p = os.path.join(self.corpus, n)
                        if os.path.isfile(p):
                            os.unlink(p)

    def collect_new_queue(self, name, inst):
        """--runs: the queue entries AFL++ made (not its copies of the
        seeds, "orig:"), into corpus/<target>/afl-INSTANCE/; one copied
        already is left as it is."""
        src = os.path.join(inst, "queue")
        try:
            entries = sorted(n for n in os.listdir(src) if n.startswith("id:") and ",orig:" not in n)
        except OSError:
            return
        dst = os.path.join(self.corpus, f"afl-{name}")
        for e in entries:
            os.makedirs(dst, exist_ok=True)
            target = os.path.join(dst, e)
            if os.path.exists(target):
                if filecmp.cmp(os.path.join(src, e), target, shallow=False):
                    continue
                # Another session's entry of the same name, not the same input.
                target += f",session:{time.strftime('%Y%m%d-%H%M%S')}"
            shutil.copy2(os.path.join(src, e), target)

    def minimise_argv(self, src, dst):
        return ["afl-tmin", "-i", src, "-o", dst, "-t", str(self.ctx.timeout_s * 1000), "--", self.binary()]

    def rerun_argv(self, path):
        return [self.binary(), path]


# What AFL++ needs in a container, and what keeps it quiet and quick to start.
AFL_ENV = {
    "AFL_SKIP_CPUFREQ": "1",
    "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
    "AFL_NO_UI": "1",
    "AFL_TRY_AFFINITY": "1",
    "AFL_FAST_CAL": "1",
    "AFL_NO_CRASH_README": "1",
    "AFL_SYNC_TIME": "1",
}


# --runs: a CPU core AFL++ binds to is one it found free when it started,
# which depends on what else runs; the scheduler's choice changes no input.
AFL_RUNS_ENV = {
    "AFL_NO_AFFINITY": "1",
}


def read_fuzzer_stats(path):
    stats = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep:
                    stats[key.strip()] = value.strip()
    except OSError:
        pass
    return stats


def whole(text):
    return int(text) if text and text.isdigit() else 0


def plot_data_counts(path):
    """(total_execs, corpus_count) from the last line of AFL++'s plot_data:
    relative_time, cycles_done, cur_item, corpus_count, ... total_execs (12)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 4096))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return 0, 0
    for line in reversed(lines):
        fields = [x.strip() for x in line.split(",")]
        if fields and fields[0].isdigit() and len(fields) >= 12:
            try:
                return int(fields[11]), int(fields[3])
            except ValueError:
                return 0, 0
    return 0, 0


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def afl_abort(log):
    """AFL++'s "PROGRAM ABORT" message and the line after it, if it gave up."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = [ANSI.sub("", line).strip() for line in f]
    except OSError:
        return None
    for i, line in enumerate(lines):
        if "PROGRAM ABORT" in line:
            text = " ".join(x for x in lines[i : i + 2] if x)
            text = re.sub(r"\[-\]\s*", "", text)
            return re.sub(r"\s+", " ", text).strip()
    return None


def first_line(path, pattern):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if re.search(pattern, line):
                    return line.strip()
    except OSError:
        pass
    return None


ENGINES = {"libfuzzer": LibFuzzer, "afl": AFL}

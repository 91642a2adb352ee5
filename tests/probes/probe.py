#!/usr/bin/env python3
"""The probe suite: every command of memgate under bad input and signals.

    tests/probes/probe.py [--only NAME-PREFIX] TABLE.tsv...

Each table is tab-separated, one probe a row; '#' starts a comment line.
Two kinds of table, told apart by their name:

  bad-input tables (any name but signals*.tsv), five columns:
    name  status  lines  pattern  command
  signal tables (signals*.tsv), seven columns:
    name  setup  signal  after  status  pattern  command

- command is bash, run in a scratch directory of the probe's own ($T, also
  the working directory) with $TOP (memgate's tree), $MG (its build/memgate)
  and $T set, and MEMGATE_OUT=$TOP (the tools work in the tree) unless set. In a signal table the command must end by exec-ing the tool,
  so that the signal reaches the tool's own PID, as `kill PID` would.
- setup (or '-') runs first, in the same directory: it plants the earlier
  evidence that the probe must leave byte for byte as it was.
- status is the exit status wanted; lines is '1' (the whole output, stdout
  and stderr, is one line) or '*' (any); pattern is an extended regular
  expression that a line of the output must match ('-': none needed).
- signal is INT, TERM or HUP, sent to the tool's PID `after` seconds
  after it started.

Every probe fails on: another exit status, a Python traceback, a failed
assertion, a segfault or abort of the tool, a missing pattern, a second line
where one was wanted, any file that existed before the command (setup's
included) changed or removed afterwards (appending to it is no change: its
earlier bytes must stay as they were, as a findings file's earlier runs
do), or a process the command started
still running 3 s after it ended (found by an environment tag every child
inherits). One line is printed per probe, PASS or FAIL NAME: REASON, for
tests/run's count; the exit status is 1 if any failed, 2 on a bad table.
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROW_TIMEOUT = 180  # seconds: a probe that runs longer is a hang
LINGER = 3.0  # seconds a child may take to go after the command ended
CONFIRM = 0.02  # seconds between the two scans that must both find none
# "Aborted" as a shell reports a process that died of it (a line of its
# own, or after the PID), not inside a finding's text.
CRASH_WORDS = re.compile(
    r"Traceback \(most recent call last\)|Assertion .* failed|AssertionError"
    r"|Segmentation fault|core dumped|(^|[0-9] )Aborted\b", re.M
)
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP}
BAD_INPUT_COLUMNS = ("name", "status", "lines", "pattern", "command")
SIGNAL_COLUMNS = ("name", "setup", "signal", "after", "status", "pattern", "command")


class TableError(Exception):
    pass


def read_table(path):
    columns = SIGNAL_COLUMNS if os.path.basename(path).startswith("signals") else BAD_INPUT_COLUMNS
    rows = []
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != len(columns):
                raise TableError(f"{path}:{number}: {len(cells)} columns, want {len(columns)} ({' '.join(columns)})")
            row = dict(zip(columns, cells))
            row["where"] = f"{path}:{number}"
            check_row(row)
            rows.append(row)
    return rows


def check_row(row):
    where = row["where"]
    if not row["status"].isdigit():
        raise TableError(f"{where}: status '{row['status']}' is not a number")
    if "lines" in row and row["lines"] not in ("1", "*"):
        raise TableError(f"{where}: lines '{row['lines']}' is not 1 or *")
    if "signal" in row:
        if row["signal"] not in SIGNALS:
            raise TableError(f"{where}: signal '{row['signal']}' is not one of {' '.join(SIGNALS)}")
        try:
            float(row["after"])
        except ValueError:
            raise TableError(f"{where}: after '{row['after']}' is not a number of seconds") from None
    try:
        re.compile(row["pattern"])
    except re.error as err:
        raise TableError(f"{where}: pattern: {err}") from None


def snapshot(root):
    """Every regular file below root, by path, with its size and its
    contents' hash."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                with open(path, "rb") as f:
                    data = f.read()
                files[path] = (len(data), hashlib.sha256(data).hexdigest())
            except OSError:
                continue  # a FIFO's kin, or one the setup made unreadable
    return files


def kept(path, size, digest):
    """Whether the file still starts with its earlier `size` bytes."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read(size)).hexdigest() == digest
    except OSError:
        return False


def changed_files(before, root):
    after = snapshot(root)
    lost = [p for p in before if p not in after]
    altered = [p for p in before if p in after and after[p] != before[p] and not kept(p, *before[p])]
    return [os.path.relpath(p, root) + (" (removed)" if p in lost else " (changed)") for p in lost + altered]


def tagged_processes(tag):
    needle = f"MEMGATE_PROBE_TAG={tag}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def left_running(tag):
    """The processes still carrying the tag LINGER s on, which it kills.
    None is taken only when two scans CONFIRM s apart agree: a process
    caught in the middle of an exec has no environment to read for a
    moment."""
    deadline = time.monotonic() + LINGER
    empty_before = False
    while True:
        pids = tagged_processes(tag)
        if (not pids and empty_before) or time.monotonic() > deadline:
            break
        empty_before = not pids
        time.sleep(CONFIRM if empty_before else 0.1)
    names = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                program = f.read().split(b"\0")[0].decode(errors="replace")
            names.append(f"{pid} {program}")
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
    return names


def environment(scratch, tag):
    env = dict(os.environ)
    # The tools work in the tree, as in make check (orchestration/workspace.py);
    # a probe of the results directory unsets it.
    env.setdefault("MEMGATE_OUT", TOP)
    env.update(TOP=TOP, MG=os.path.join(TOP, "build", "memgate"), T=scratch, MEMGATE_PROBE_TAG=tag)
    return env


def run_setup(row, scratch, env):
    if row.get("setup", "-") == "-":
        return None
    done = subprocess.run(["bash", "-c", row["setup"]], cwd=scratch, env=env,
                          capture_output=True, timeout=ROW_TIMEOUT)
    if done.returncode != 0:
        return f"setup failed (exit {done.returncode}): {done.stderr.decode(errors='replace').strip()}"
    return None


def as_from_a_terminal():
    """The stop signals at their defaults in the command, as a terminal's
    shell starts one, whatever this runner inherited: make check's workers
    are a script's background jobs, started with SIGINT ignored, and a tool
    rightly keeps a signal it was started with ignored (a row wants that
    ignored, as nohup does, by saying so in its command)."""
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def run_command(row, scratch, env):
    """(exit status, output, problem) of the row's command; a signal row's
    signal is sent to the PID the command runs as. The output goes to a file,
    not a pipe, so that a child left running cannot hold the probe up; death
    by signal N reads as 128 + N, as a shell has it."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(["bash", "-c", row["command"]], cwd=scratch, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=as_from_a_terminal)
        problem = None
        try:
            if "signal" in row:
                try:
                    proc.wait(timeout=float(row["after"]))
                    problem = "it ended before the signal"
                except subprocess.TimeoutExpired:
                    proc.send_signal(SIGNALS[row["signal"]])
            proc.wait(timeout=ROW_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            problem = f"still running after {ROW_TIMEOUT} s"
        out.seek(0)
        text = out.read().decode(errors="replace")
    status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    return status, text, problem


def judge(row, status, out):
    lines = [line for line in out.splitlines() if line.strip()]
    shown = " | ".join(lines[-3:]) if lines else "(no output)"
    crash = CRASH_WORDS.search(out)
    if crash:
        return f"'{crash.group(0)}' in the output: {shown}"
    if status != int(row["status"]):
        return f"exit {status}, want {row['status']}: {shown}"
    if row.get("lines") == "1" and len(lines) != 1:
        return f"{len(lines)} lines, want one: {shown}"
    if row["pattern"] != "-" and not any(re.search(row["pattern"], line) for line in lines):
        return f"no line matches /{row['pattern']}/: {shown}"
    return None


def probe(row):
    """None if the row passes, else why not."""
    scratch = tempfile.mkdtemp(prefix="probe-")
    tag = uuid.uuid4().hex
    env = environment(scratch, tag)
    try:
        why = run_setup(row, scratch, env)
        if why:
            return why
        before = snapshot(scratch)
        status, out, problem = run_command(row, scratch, env)
        stragglers = left_running(tag)
        if problem:
            return problem
        if stragglers:
            return f"left running: {', '.join(stragglers)}"
        changed = changed_files(before, scratch)
        if changed:
            return f"earlier files not kept: {', '.join(changed[:4])}"
        return judge(row, status, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv):
    only = None
    if len(argv) >= 2 and argv[0] == "--only":
        only, argv = argv[1], argv[2:]
    if not argv:
        print("probe.py: usage: probe.py [--only NAME-PREFIX] TABLE.tsv...", file=sys.stderr)
        return 2
    try:
        rows = [row for path in argv for row in read_table(path)]
    except (OSError, TableError) as err:
        print(f"probe.py: {err}", file=sys.stderr)
        return 2
    names = [row["name"] for row in rows]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        print(f"probe.py: probe names used twice: {' '.join(twice)}", file=sys.stderr)
        return 2
    failed = 0
    for row in rows:
        if only and not row["name"].startswith(only):
            continue
        why = probe(row)
        if why:
            failed += 1
            print(f"FAIL probe {row['name']}: {why} ({row['where']})", flush=True)
        else:
            print(f"PASS probe {row['name']}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

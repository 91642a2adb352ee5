"""Child processes under one deadline, each in its own session, so that
nothing a routine starts (forked children, a process that blocks or ignores
signals) outlives the check that ran it; and the signals that stop a
command (SIGINT, SIGTERM, SIGHUP sent to its own PID, not only the
terminal's SIGINT to its group) turned into Interrupted, which ends every
child first."""

import errno
import itertools
import os
import select
import shutil
import signal
import subprocess
import threading
import time


class Deadline:
    """A point in time, `seconds` from now (None: no limit)."""

    def __init__(self, seconds):
        self.end = None if seconds is None else time.monotonic() + seconds

    def remaining(self):
        if self.end is None:
            return None
        return max(0.0, self.end - time.monotonic())

    def expired(self):
        return self.end is not None and time.monotonic() >= self.end


class Result:
    def __init__(self, argv, returncode, timed_out, seconds):
        self.argv = argv
        self.returncode = returncode  # negative: died of that signal
        self.timed_out = timed_out
        self.seconds = seconds

    @property
    def signal(self):
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None


# How long a process group gets between SIGTERM and SIGKILL.
GRACE_SECONDS = 2.0


def _proc_stat(pid):
    """(state, pgid, start time in clock ticks since boot) of a process, or
    None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # fields: state, ppid, pgrp, ..., starttime (field 22 of proc(5))
        return fields[0], int(fields[2]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _tagged(needle, pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return needle in f.read().split(b"\0")
    except OSError:
        return False


def members(pgid, needle=None, since=0):
    """The live processes of group pgid, and those carrying `needle` in
    their environment (a child's tag, see start()): a process that left
    the group (setsid: AFL++'s fork server does) or lost its parent is
    still found. Only processes started at `since` (clock ticks since boot)
    or later can carry it: the others' environment is not read. A zombie
    does not count: where init does not reap orphans (some containers), a
    killed group's members stay zombies for good."""
    found = []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    me = os.getpid()
    for pid in pids:
        if pid == me:
            continue
        stat = _proc_stat(pid)
        if stat is None or stat[0] in (b"Z", b"X"):
            continue
        if stat[1] == pgid or (needle is not None and stat[2] >= since and _tagged(needle, pid)):
            found.append(pid)
    return found


def group_alive(pgid, needle=None, since=0):
    """Whether a member of the group (or a process with the tag) still runs."""
    if needle is None:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
    return bool(members(pgid, needle, since))


def run(argv, deadline=None, stdout=None, stderr=None, env=None, cwd=None, timeout=None):
    """Runs argv in a new session with its output to the open files (or
    paths) given, until it exits or the deadline (or `timeout` seconds,
    whichever comes first) passes. Every process left in its group is killed
    either way. Raises OSError if it cannot start."""
    # A path given is written afresh (start() appends).
    for given in (stdout, stderr):
        if isinstance(given, str):
            open(given, "wb").close()
    return wait(start(argv, stdout=stdout, stderr=stderr, env=env, cwd=cwd), deadline, timeout)


def exited_within(child, limit):
    """Whether the leader exits within `limit` seconds (None: waits for
    it), reaped if so. The wait blocks on the process's pidfd (Linux 5.3
    and later): Popen.wait(timeout) polls, sleeping up to 50 ms between
    looks, and a gate's thirty-odd children each paid that on their exit."""
    if limit is None:
        child.wait()
        return True
    limit = max(0.0, limit)
    try:
        fd = os.pidfd_open(child.pid)
    except (AttributeError, OSError):  # an older kernel or Python
        try:
            child.wait(timeout=limit)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        ready, _, _ = select.select([fd], [], [], limit)
    finally:
        os.close(fd)
    if not ready:
        return False
    child.wait()
    return True


def wait(child, deadline=None, timeout=None):
    """The Result of a child of start(), waited for until it exits or the
    deadline (or `timeout` seconds) passes; its group is killed either way."""
    limit = deadline.remaining() if deadline else None
    if timeout is not None:
        limit = timeout if limit is None else min(limit, timeout)
    start_time = getattr(child, "memgate_started", time.monotonic())
    timed_out = False
    try:
        timed_out = not exited_within(child, limit)
    finally:
        # The leader has exited or timed out (or the caller was interrupted):
        # its group goes either way, so a forked child cannot hold a file or
        # keep running past the check.
        stop(child)
    return Result(child.args[len(DIE_WITH_PARENT):], child.returncode, timed_out, time.monotonic() - start_time)


# Every process group started here and not yet stopped, by its leader's pid:
# what stop_all() ends when the program is interrupted.
RUNNING = {}
# Each child started here carries a variable of its own, TAG_PREFIX + a
# token unique to it, which everything it starts inherits (a nested
# command's children carry its tag and their own): stop() finds them by it
# wherever they went.
TAG_PREFIX = "MEMGATE_RUN_"
_TOKENS = itertools.count(1)


def tag_of(child):
    """(tag, since): the environment entry (bytes) that marks `child` and
    its descendants, and when the child started (none of them started
    earlier); (None, 0) for a Popen not started here."""
    return getattr(child, "memgate_tag", None), getattr(child, "memgate_since", 0)


def start(argv, stdout=None, stderr=None, env=None, cwd=None):
    """Starts argv in a new session (its output to the open files or paths
    given) and returns its Popen without waiting: for a process watched
    while it runs, ended with stop(). Raises OSError if it cannot start, and
    Interrupted once a stop signal came (from any thread: zoo's gate threads
    start nothing more while the program ends)."""
    if _interrupted:
        raise Interrupted(_interrupted[0])
    env = dict(os.environ if env is None else env)
    # setpriv would say only in its exit status that the program cannot
    # run; argv[0] itself is passed on as given (what the child sees, and
    # what a test's pgrep looks for).
    resolve(argv[0], env.get("PATH", os.defpath), cwd)
    out = open(stdout, "ab") if isinstance(stdout, str) else stdout
    err = open(stderr, "ab") if isinstance(stderr, str) else stderr
    name = f"{TAG_PREFIX}{os.getpid()}_{next(_TOKENS)}"
    env[name] = "1"
    # No preexec_fn: with one, every fork runs the at-fork hooks of the
    # modules imported so far, and a module a thread imports meanwhile gets
    # its after-fork hook run without its before-fork one (the thread pool
    # of concurrent.futures then releases a lock another thread holds:
    # "RuntimeError: release unlocked lock"). The child dies with its
    # parent through setpriv instead, and a stop signal to the main thread
    # waits until the child is recorded.
    deferring = threading.current_thread() is threading.main_thread()
    if deferring:
        _starting.append(True)
    try:
        child = subprocess.Popen(
            DIE_WITH_PARENT + list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out if out is not None else subprocess.DEVNULL,
            stderr=err if err is not None else subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        child.memgate_tag = f"{name}=1".encode()
        child.memgate_started = time.monotonic()
        stat = _proc_stat(child.pid)
        child.memgate_since = stat[2] if stat else 0
        RUNNING[child.pid] = child
    finally:
        if deferring:
            _starting.pop()
        for f, given in ((out, stdout), (err, stderr)):
            if isinstance(given, str) and f is not None:
                f.close()
        if deferring and _interrupted:
            raise Interrupted(_interrupted[0])
    return child


def resolve(program, path, cwd=None):
    """The file `program` runs (as execvp finds it: a name with a slash from
    cwd, any other through `path`), or the OSError that exec would give:
    the program itself is started by setpriv, which could only say so in
    its exit status."""
    if "/" in program:
        found = os.path.join(cwd or os.getcwd(), program)
        if not os.path.exists(found):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        if os.path.isdir(found) or not os.access(found, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
        return os.path.abspath(found)
    found = shutil.which(program, path=path)
    if found is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    return os.path.abspath(found)  # which() looked a relative entry up from here


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# A stop signal this program was started with ignored stays ignored, as a
# shell's trap leaves it (and scripts/repro's): `nohup scripts/gate` must
# outlive the terminal, and a script's background job, which the shell
# starts with SIGINT ignored, must not end at the terminal's ^C. Read once,
# at import, before stop_early() or catch_stop_signals() put handlers in.
_IGNORED_AT_ENTRY = frozenset(s for s in STOP_SIGNALS if signal.getsignal(s) == signal.SIG_IGN)


def _catch(handler):
    for s in STOP_SIGNALS:
        if s not in _IGNORED_AT_ENTRY:
            signal.signal(s, handler)


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP reached this program: it ends with
    128 + the signal's number, as a shell reports a death by it."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self):
        return signal.Signals(self.signum).name

    @property
    def status(self):
        return 128 + self.signum


_interrupted = []
# Set while the main thread starts a child (see start()).
_starting = []


def _on_stop_signal(signum, frame):
    # Once: a second signal while the children are being stopped must not
    # cut that short. (A handler, not SIG_IGN, which children would inherit.)
    if _interrupted:
        return
    _interrupted.append(signum)
    if not _starting:
        raise Interrupted(signum)
    # start() raises it once the child it is starting is recorded.


def stop_early(prog):
    """Until catch_stop_signals() takes over (a command's imports take a
    while on a busy machine), a stop signal ends the program at once, with
    its one line and 128 + N: it has started nothing yet."""
    def end(signum, frame):
        os.write(2, f"{prog}: interrupted by {signal.Signals(signum).name} before it started\n".encode())
        os._exit(128 + signum)

    _catch(end)


def catch_stop_signals():
    """SIGINT, SIGTERM and SIGHUP raise Interrupted in the main thread (the
    first of them; later ones are ignored), wherever they came from; one
    that was ignored when the program started stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        return
    del _interrupted[:]
    _catch(_on_stop_signal)


def interrupted():
    """Interrupted for the stop signal received, or None."""
    return Interrupted(_interrupted[0]) if _interrupted else None


def _die_with_parent():
    """The prefix that makes a child get SIGKILL when the thread that
    started it ends (PR_SET_PDEATHSIG, set by util-linux's setpriv, which
    then execs the child's program): a child that outlives us (we were
    killed with SIGKILL, so nothing could stop it) is killed too. Empty
    where there is no setpriv. (Start children from a thread that outlives
    them, as the main thread does.)"""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []


DIE_WITH_PARENT = _die_with_parent()


def _signal_all(child, sig):
    """`sig` to the group `child` leads and to every process with its tag;
    SIGCONT after it, so that a stopped one (SIGSTOP, SIGTSTP) gets it too.
    Returns the processes it found."""
    needle, since = tag_of(child)
    pids = members(child.pid, needle, since)
    for s in (sig, signal.SIGCONT) if sig != signal.SIGKILL else (sig,):
        try:
            os.killpg(child.pid, s)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in pids:
            try:
                os.kill(pid, s)
            except (ProcessLookupError, PermissionError):
                pass
    return pids


def _alive(child):
    needle, since = tag_of(child)
    return group_alive(child.pid, needle, since)


def stop(child, grace=GRACE_SECONDS):
    """Ends the group `child` leads, and every process that carries its tag
    (SIGTERM, then SIGKILL after `grace` seconds to whatever is left), and
    reaps the leader. Its exit status stays in child.returncode; a leader
    that had already exited keeps its own."""
    pgid = child.pid
    found = _signal_all(child, signal.SIGTERM)
    if child.poll() is not None and not found:
        # The usual end: the leader exited and left nothing behind.
        RUNNING.pop(pgid, None)
        return child.returncode
    end = time.monotonic() + grace
    # The leader is reaped as soon as it exits: a zombie still counts as a
    # member of its group.
    while time.monotonic() < end:
        if child.poll() is not None and not _alive(child):
            break
        time.sleep(0.02)
    else:
        _signal_all(child, signal.SIGKILL)
    child.wait()
    # Members outside our reach of wait() (reparented to init) take a moment
    # to be reaped after SIGKILL: gone before we say they are.
    end = time.monotonic() + 1.0
    while _alive(child) and time.monotonic() < end:
        _signal_all(child, signal.SIGKILL)
        time.sleep(0.02)
    RUNNING.pop(pgid, None)
    return child.returncode


def stop_all(grace=GRACE_SECONDS):
    """Ends every group started here that is still running: all get SIGTERM
    at once, then each its SIGKILL."""
    children = list(RUNNING.values())
    for child in children:
        _signal_all(child, signal.SIGTERM)
    for child in children:
        stop(child, grace)

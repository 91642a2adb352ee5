"""procs.run ends every process a child started at the deadline: one that
blocks every signal, and its forked child holding the output."""
import os
import signal
import subprocess
import sys
import time
import unittest

from common import tmpdir
from orchestration import procs

STUBBORN = r"""
import os, signal, time
signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    open(os.environ["PIDFILE"], "w").write(str(os.getpid()))
print("started", flush=True)
while True:
    time.sleep(0.1)
"""


# A child that starts a grandchild in a session of its own (as AFL++'s fork
# server does) and one that stops itself (SIGSTOP), then ends: neither is in
# the child's group any more, nor a child of it.
ESCAPES = r"""
import os, signal, sys, time
pids = []
for stop in (False, True):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if stop:
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            time.sleep(0.1)
    pids.append(pid)
open(os.environ["PIDFILE"], "w").write(" ".join(map(str, pids)))
sys.exit(0)
"""


def running(pid):
    """Whether pid is a live process (a zombie waiting for its reaper is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")


class Deadline(unittest.TestCase):
    def test_a_signal_blocking_child_and_its_fork_end_at_the_deadline(self):
        d = tmpdir(self)
        pidfile = os.path.join(d, "pid")
        start = time.monotonic()
        result = procs.run([sys.executable, "-c", STUBBORN], deadline=procs.Deadline(1.0),
                           stdout=os.path.join(d, "out"), env=dict(os.environ, PIDFILE=pidfile))
        took = time.monotonic() - start
        self.assertTrue(result.timed_out)
        # The deadline, the grace between SIGTERM and SIGKILL, and a margin.
        self.assertLess(took, 1.0 + procs.GRACE_SECONDS + 3)
        with open(pidfile) as f:
            grandchild = int(f.read())
        time.sleep(0.2)
        self.assertFalse(running(grandchild))

    def test_a_child_that_ends_is_not_timed_out(self):
        result = procs.run([sys.executable, "-c", "import sys; sys.exit(3)"], deadline=procs.Deadline(30))
        self.assertEqual((result.returncode, result.timed_out), (3, False))

    def test_a_killed_child_reports_its_signal(self):
        result = procs.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
        self.assertEqual(result.signal, 9)


class Escapes(unittest.TestCase):
    def test_a_grandchild_in_its_own_session_and_a_stopped_one_end_with_the_child(self):
        d = tmpdir(self)
        pidfile = os.path.join(d, "pid")
        result = procs.run([sys.executable, "-c", ESCAPES], env=dict(os.environ, PIDFILE=pidfile), timeout=30)
        self.assertEqual(result.returncode, 0)
        with open(pidfile) as f:
            pids = [int(p) for p in f.read().split()]
        time.sleep(0.2)
        self.assertEqual([p for p in pids if running(p)], [])

    def test_stop_all_ends_them_too(self):
        d = tmpdir(self)
        pidfile = os.path.join(d, "pid")
        child = procs.start([sys.executable, "-c", ESCAPES.replace("sys.exit(0)", "time.sleep(60)")],
                            env=dict(os.environ, PIDFILE=pidfile))
        for _ in range(100):
            if os.path.exists(pidfile) and os.path.getsize(pidfile):
                break
            time.sleep(0.05)
        procs.stop_all()
        with open(pidfile) as f:
            pids = [int(p) for p in f.read().split()]
        time.sleep(0.2)
        self.assertEqual([p for p in pids + [child.pid] if running(p)], [])
        self.assertEqual(procs.RUNNING, {})


class Signals(unittest.TestCase):
    def test_a_stop_signal_is_128_plus_its_number(self):
        for signum, status, name in ((signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM"),
                                     (signal.SIGHUP, 129, "SIGHUP")):
            e = procs.Interrupted(signum)
            self.assertEqual((e.status, e.name), (status, name))
            self.assertIsInstance(e, KeyboardInterrupt)

    def test_run_main_stops_its_children_and_says_which_signal(self):
        d = tmpdir(self)
        pidfile = os.path.join(d, "pid")
        program = (
            "import os, sys, time; sys.path.insert(0, %r)\n"
            "from orchestration import cli, procs\n"
            "def body():\n"
            "    procs.start([sys.executable, '-c', %r], env=dict(os.environ, PIDFILE=%r))\n"
            "    time.sleep(60)\n"
            "sys.exit(cli.run_main('demo', body, lambda: 'results so far in X'))\n"
        ) % (os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts"),
             ESCAPES.replace("sys.exit(0)", "time.sleep(60)"), pidfile)
        run = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            if os.path.exists(pidfile) and os.path.getsize(pidfile):
                break
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 143, err)
        self.assertEqual(err.strip(), "demo: interrupted by SIGTERM; results so far in X")
        with open(pidfile) as f:
            pids = [int(p) for p in f.read().split()]
        time.sleep(0.2)
        self.assertEqual([p for p in pids if running(p)], [])

    def test_a_stop_signal_ignored_at_start_stays_ignored(self):
        # As nohup starts it (SIGHUP) and a script's background job (SIGINT):
        # the other stop signals are caught, the ignored one is left alone.
        program = (
            "import signal, sys; sys.path.insert(0, %r)\n"
            "from orchestration import procs\n"
            "procs.stop_early('demo')\n"
            "early = [signal.getsignal(s) == signal.SIG_IGN for s in procs.STOP_SIGNALS]\n"
            "procs.catch_stop_signals()\n"
            "print(early, [signal.getsignal(s) == signal.SIG_IGN for s in procs.STOP_SIGNALS])\n"
        ) % SCRIPTS

        def ignoring(signum):
            return lambda: signal.signal(signum, signal.SIG_IGN)

        for signum, want in ((signal.SIGHUP, "[False, False, True]"), (signal.SIGINT, "[True, False, False]")):
            out = subprocess.run([sys.executable, "-c", program], preexec_fn=ignoring(signum),
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.stdout.strip(), f"{want} {want}", out.stderr)


class Starting(unittest.TestCase):
    """How a child is started: no at-fork hook of ours runs (a module a
    thread imports meanwhile would get its after-fork hook without its
    before-fork one), the child dies with us, and a program that cannot
    run is an OSError as exec would give it."""

    def test_starting_a_child_runs_no_at_fork_hook(self):
        forks = []
        os.register_at_fork(before=lambda: forks.append(os.getpid()))
        procs.run(["true"], timeout=30)
        self.assertEqual(forks, [])

    def test_a_child_dies_when_its_parent_is_killed(self):
        if not procs.DIE_WITH_PARENT:
            self.skipTest("no setpriv here")
        d = tmpdir(self)
        pidfile = os.path.join(d, "pid")
        program = (
            "import os, sys, time; sys.path.insert(0, %r)\n"
            "from orchestration import procs\n"
            "child = procs.start(['sleep', '60'])\n"
            "open(%r, 'w').write(str(child.pid))\n"
            "time.sleep(60)\n"
        ) % (SCRIPTS, pidfile)
        parent = subprocess.Popen([sys.executable, "-c", program])
        for _ in range(200):
            if os.path.exists(pidfile) and os.path.getsize(pidfile):
                break
            time.sleep(0.05)
        with open(pidfile) as f:
            child = int(f.read())
        self.assertTrue(running(child))
        parent.kill()
        parent.wait()
        for _ in range(100):
            if not running(child):
                break
            time.sleep(0.05)
        self.assertFalse(running(child))

    def test_a_missing_program_and_one_that_is_not_executable_are_oserrors(self):
        d = tmpdir(self)
        plain = os.path.join(d, "plain")
        open(plain, "w").close()
        with self.assertRaises(FileNotFoundError):
            procs.start(["memgate-no-such-program"])
        with self.assertRaises(FileNotFoundError):
            procs.start([os.path.join(d, "absent")])
        with self.assertRaises(PermissionError):
            procs.start(["./plain"], cwd=d)

    def test_a_program_with_a_slash_is_found_from_cwd(self):
        d = tmpdir(self)
        with open(os.path.join(d, "hi"), "w") as f:
            f.write("#!/bin/sh\nexit 7\n")
        os.chmod(os.path.join(d, "hi"), 0o755)
        self.assertEqual(procs.run(["./hi"], cwd=d, timeout=30).returncode, 7)

    def test_the_child_sees_its_argv0_as_given(self):
        # What a child's command line shows (ps, pgrep) is what the caller wrote.
        d = tmpdir(self)
        seen = os.path.join(d, "argv0")
        code = f"open({seen!r}, 'w').write(open('/proc/self/cmdline').read().split(chr(0))[0])"
        self.assertEqual(procs.run(["python3", "-c", code], timeout=30).returncode, 0)
        with open(seen) as f:
            self.assertEqual(f.read(), "python3")

    def test_a_stop_signal_while_a_child_starts_waits_until_it_is_recorded(self):
        real = subprocess.Popen

        def signalled_meanwhile(*args, **kwargs):
            child = real(*args, **kwargs)
            procs._on_stop_signal(signal.SIGTERM, None)  # as the handler would run
            return child

        procs.subprocess.Popen = signalled_meanwhile
        try:
            with self.assertRaises(procs.Interrupted):
                procs.start(["sleep", "60"])
            self.assertEqual(len(procs.RUNNING), 1)
        finally:
            procs.subprocess.Popen = real
            procs.stop_all()
            del procs._interrupted[:]
        self.assertEqual(procs.RUNNING, {})


if __name__ == "__main__":
    unittest.main()

"""procs.run ends every process a child started at the deadline: one that
blocks every signal, and its forked child holding the output."""
import os
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


def running(pid):
    """Whether pid is a live process (a zombie waiting for its reaper is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


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


if __name__ == "__main__":
    unittest.main()

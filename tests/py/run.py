"""Runs every tests/py/test_*.py (unittest) and prints one line per test,
PASS or FAIL NAME: REASON, for tests/run's count; exit 1 if any failed.

Most of the tests' time is spent waiting (on the deadlines and signals of
scripts/fuzz and procs.run, with their children sleeping), so the tests
run in MEMGATE_PY_JOBS processes at once (default 3), each test whole in
one of them; the lines are printed in the tests' order."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class Lines(unittest.TestResult):
    """Each test's line, kept by its index in the whole run."""

    def __init__(self, index):
        super().__init__()
        self.index = index
        self.lines = {}

    def line(self, test, text):
        self.lines[self.index[test.id()]] = text

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line(test, f"PASS py: {test.id()}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.line(test, f"FAIL py: {test.id()}: {str(err[1]).splitlines()[0] if str(err[1]) else err[0].__name__}")

    def addError(self, test, err):
        super().addError(test, err)
        # An error of a class or module fixture has no test of its own.
        key = test.id() if test.id() in self.index else None
        text = f"FAIL py: {test.id()}: {err[0].__name__}: {err[1]}"
        if key is None:
            self.lines[-1 - len(self.lines)] = text
        else:
            self.line(test, text)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.line(test, f"SKIP py: {test.id()}: {reason}")


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def run_shard(tests, index, out_fd):
    """In a child: runs `tests`, writes "INDEX\\tLINE" for each, exits 0
    if all passed."""
    result = Lines(index)
    unittest.TestSuite(tests).run(result)
    with os.fdopen(out_fd, "w", encoding="utf-8") as out:
        for i, text in result.lines.items():
            out.write(f"{i}\t{text.replace(chr(10), ' ')}\n")
    os._exit(0 if result.wasSuccessful() else 1)


def main():
    tests = list(flatten(unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)))
    if not tests:
        print("FAIL py: no unit test ran")
        return 1
    index = {t.id(): i for i, t in enumerate(tests)}
    jobs = max(1, min(int(os.environ.get("MEMGATE_PY_JOBS", "3")), len(tests)))
    children = []
    sys.stdout.flush()
    for shard in range(jobs):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                run_shard(tests[shard::jobs], index, w)
            finally:
                os._exit(3)
        os.close(w)
        children.append((pid, os.fdopen(r, encoding="utf-8")))
    lines, ok = {}, True
    for pid, pipe in children:
        with pipe:
            for row in pipe:
                i, _, text = row.rstrip("\n").partition("\t")
                lines[int(i)] = text
        _, status = os.waitpid(pid, 0)
        if status != 0:
            ok = False
    for i in sorted(lines):
        print(lines[i])
    for t in tests:
        if index[t.id()] not in lines:
            print(f"FAIL py: {t.id()}: its process ended before it reported")
            ok = False
    return 0 if ok else 1


sys.exit(main())

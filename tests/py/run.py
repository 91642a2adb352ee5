"""Runs every tests/py/test_*.py (unittest) and prints one line per test,
PASS or FAIL NAME: REASON, for tests/run's count; exit 1 if any failed."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class Lines(unittest.TestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"PASS py: {test.id()}", flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"FAIL py: {test.id()}: {str(err[1]).splitlines()[0] if str(err[1]) else err[0].__name__}", flush=True)

    def addError(self, test, err):
        super().addError(test, err)
        print(f"FAIL py: {test.id()}: {err[0].__name__}: {err[1]}", flush=True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"SKIP py: {test.id()}: {reason}", flush=True)


suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
result = Lines()
suite.run(result)
if result.testsRun == 0:
    print("FAIL py: no unit test ran")
    sys.exit(1)
sys.exit(0 if result.wasSuccessful() else 1)

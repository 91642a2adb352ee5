"""scripts/repro --valgrind's classification (orchestration.repro_memcheck):
from the replay's records and memcheck's errors, never memcheck's text."""
import unittest

import common  # noqa: F401  (the orchestration package on sys.path)

from orchestration import repro_memcheck
from orchestration.records import CouldNotJudge

SUMMARY = {"record": "summary", "command": "replay", "complete": True, "cases": 1, "passed": 1, "failed": 0,
           "errors": 0, "skipped": 0}
OVER = {"name": "aligned-over-read", "text": "reads past a buffer", "buffer": "src", "side": "past-end",
        "distance": 1, "width": 16}


def case(warnings=()):
    return {"record": "case", "variant": "v", "class": "ok", "warnings": list(warnings)}


def memcheck(kind):
    return {"check": "valgrind", "kind": "out-of-bounds-read" if kind == "InvalidRead" else "out-of-bounds-write",
            "detail": f"Invalid access (memcheck {kind} in v)", "input": "", "repro": "", "signature": "s"}


class Classify(unittest.TestCase):
    def test_an_aligned_over_read_is_a_warning(self):
        got = repro_memcheck.classify(99, [case([OVER]), SUMMARY], [memcheck("InvalidRead")] * 2)
        self.assertEqual(got[:2], ("warning", "aligned-over-read"))
        self.assertIn("within an aligned 16-byte block", got[2])

    def test_a_finding_record_is_a_failure(self):
        finding = {"record": "finding", "class": "aligned-over-read", "detail": "src, 1 byte past the end"}
        got = repro_memcheck.classify(99, [finding, dict(SUMMARY, failed=1)], [memcheck("InvalidRead")])
        self.assertEqual(got, ("failure", "aligned-over-read", "src, 1 byte past the end"))

    def test_a_write_is_never_explained_by_an_over_read(self):
        got = repro_memcheck.classify(99, [case([OVER]), SUMMARY], [memcheck("InvalidWrite")])
        self.assertEqual(got[:2], ("failure", "out-of-bounds-write"))

    def test_memcheck_errors_without_records_are_a_failure(self):
        got = repro_memcheck.classify(99, [case(), SUMMARY], [memcheck("InvalidRead")])
        self.assertEqual(got[:2], ("failure", "out-of-bounds-read"))

    def test_clean(self):
        self.assertEqual(repro_memcheck.classify(0, [case(), SUMMARY], []), ("pass", "-", ""))

    def test_an_error_exit_with_nothing_reported_cannot_be_judged(self):
        with self.assertRaises(CouldNotJudge):
            repro_memcheck.classify(99, [case(), SUMMARY], [])
        with self.assertRaises(CouldNotJudge):
            repro_memcheck.classify(0, [case(), dict(SUMMARY, skipped=1)], [])


if __name__ == "__main__":
    unittest.main()

"""tests/probes/probe.py's rule for earlier files: one that was appended to
is kept (its earlier bytes stay, as a findings file's earlier runs do); one
removed, truncated or written over, even at the same size, is not."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("probe", os.path.join(HERE, "..", "probes", "probe.py"))
probe = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(probe)


class EarlierFiles(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="probe-snapshot-")
        self.path = os.path.join(self.root, "f.txt")
        with open(self.path, "wb") as f:
            f.write(b"== earlier run\nwrong-result: kept\n")
        self.before = probe.snapshot(self.root)

    def tearDown(self):
        for name in os.listdir(self.root):
            os.unlink(os.path.join(self.root, name))
        os.rmdir(self.root)

    def rewrite(self, data, mode="wb"):
        with open(self.path, mode) as f:
            f.write(data)
        return probe.changed_files(self.before, self.root)

    def test_unchanged_is_kept(self):
        self.assertEqual(probe.changed_files(self.before, self.root), [])

    def test_appended_is_kept(self):
        self.assertEqual(self.rewrite(b"== a later run\n", "ab"), [])

    def test_truncated_is_changed(self):
        self.assertEqual(self.rewrite(b"== earlier"), ["f.txt (changed)"])

    def test_overwritten_at_the_same_size_is_changed(self):
        self.assertEqual(self.rewrite(b"== earlier run\nwrong-result: KEPT\n"), ["f.txt (changed)"])

    def test_overwritten_then_grown_is_changed(self):
        self.assertEqual(self.rewrite(b"== later run\nwrong-result: other\nmore\n"), ["f.txt (changed)"])

    def test_removed(self):
        os.unlink(self.path)
        self.assertEqual(probe.changed_files(self.before, self.root), ["f.txt (removed)"])


if __name__ == "__main__":
    unittest.main()

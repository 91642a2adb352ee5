"""Where a command works (orchestration/workspace.py): the tree, or a
results directory of links beside its own builds; the user's paths and
repro lines as seen from where they started. And the action's inputs
(orchestration/action.py)."""
import json
import os
import unittest
from unittest import mock

from common import ROOT, tmpdir
from orchestration import action, workspace


class Chosen(unittest.TestCase):
    def test_the_tree_is_the_tree(self):
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("MEMGATE_OUT", None)
            self.assertIsNone(workspace.chosen(None, ROOT))
            self.assertIsNone(workspace.chosen(ROOT, "/"))

    def test_elsewhere_the_default_or_the_given_directory(self):
        d = tmpdir(self)
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("MEMGATE_OUT", None)
            self.assertEqual(workspace.chosen(None, d), os.path.join(d, "memgate-results"))
            self.assertEqual(workspace.chosen("x/y", d), os.path.join(d, "x", "y"))
            os.environ["MEMGATE_OUT"] = "env-out"
            self.assertEqual(workspace.chosen(None, d), os.path.join(d, "env-out"))


def fake_tree(test, built):
    """A memgate tree of one source and a Makefile whose `all` copies it
    into build/ (made now when `built`)."""
    root = tmpdir(test)
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write("all: build/memgate\nbuild/memgate: harness/main.c\n\tmkdir -p build && cp $< $@\n")
    os.makedirs(os.path.join(root, "harness"))
    open(os.path.join(root, "harness", "main.c"), "w").close()
    if built:
        for part in ("memgate", "obj/main.o", "gate/x-1/prog", "zoo/glibc/a.o", "valgrind/v.log"):
            os.makedirs(os.path.dirname(os.path.join(root, "build", part)), exist_ok=True)
            open(os.path.join(root, "build", part), "w").close()
        os.utime(os.path.join(root, "harness", "main.c"), (1000, 1000))
    return root


class Prepare(unittest.TestCase):
    def setUp(self):
        # The real tree's build is not copied into the tests' directories.
        patch = mock.patch.object(workspace, "tree_built", return_value=False)
        patch.start()
        self.addCleanup(patch.stop)

    def test_links_to_the_tree_and_a_changed_memgate_is_rebuilt(self):
        out = os.path.join(tmpdir(self), "res")
        workspace.prepare(out)
        self.assertEqual(os.readlink(os.path.join(out, "Makefile")), os.path.join(ROOT, "Makefile"))
        os.makedirs(os.path.join(out, "build", "obj"))
        workspace.prepare(out)  # the same memgate: its build stays
        self.assertTrue(os.path.isdir(os.path.join(out, "build", "obj")))
        os.remove(os.path.join(out, "harness"))
        os.symlink("/nonexistent/harness", os.path.join(out, "harness"))
        workspace.prepare(out)
        self.assertFalse(os.path.exists(os.path.join(out, "build")))

    def test_a_users_file_of_a_parts_name_is_refused(self):
        out = tmpdir(self)
        open(os.path.join(out, "scripts"), "w").close()
        with self.assertRaisesRegex(workspace.Unusable, "is not memgate's"):
            workspace.prepare(out)

    def test_a_file_in_the_way_cannot_be_written(self):
        d = tmpdir(self)
        open(os.path.join(d, "f"), "w").close()
        with self.assertRaisesRegex(workspace.Unusable, "cannot write the results directory"):
            workspace.prepare(os.path.join(d, "f", "res"))


class Seeded(unittest.TestCase):
    """A new results directory starts from the tree's build when that one
    is whole, so a first gate builds only what it adds."""

    def prepared(self, built):
        root = fake_tree(self, built)
        out = os.path.join(tmpdir(self), "res")
        with mock.patch.object(workspace, "ROOT", root):
            workspace.prepare(out)
        return root, out

    def test_a_whole_build_is_copied_with_its_times_and_without_the_runs(self):
        root, out = self.prepared(built=True)
        self.assertTrue(os.path.isfile(os.path.join(out, "build", "memgate")))
        self.assertEqual(sorted(os.listdir(os.path.join(out, "build"))), ["memgate", "obj"])
        self.assertFalse(os.path.islink(os.path.join(out, "build", "obj")))
        self.assertEqual([n for n in os.listdir(out) if n.startswith(".build-seed-")], [])

    def test_the_copy_keeps_the_trees_times(self):
        root = fake_tree(self, built=True)
        os.utime(os.path.join(root, "build", "obj", "main.o"), (3000, 3000))
        out = os.path.join(tmpdir(self), "res")
        with mock.patch.object(workspace, "ROOT", root):
            workspace.prepare(out)
        self.assertEqual(os.stat(os.path.join(out, "build", "obj", "main.o")).st_mtime, 3000)

    def test_a_tree_with_something_to_remake_is_not_copied(self):
        root, out = self.prepared(built=False)
        self.assertFalse(os.path.lexists(os.path.join(out, "build")))
        self.assertFalse(os.path.isdir(os.path.join(root, "build")))
        root = fake_tree(self, built=True)
        os.utime(os.path.join(root, "harness", "main.c"), None)  # newer than its build
        with mock.patch.object(workspace, "ROOT", root):
            self.assertFalse(workspace.tree_built())

    def test_a_directory_with_a_build_keeps_its_own(self):
        root, out = self.prepared(built=True)
        os.remove(os.path.join(out, "build", "memgate"))
        with mock.patch.object(workspace, "ROOT", root):
            workspace.prepare(out)
        self.assertEqual(os.listdir(os.path.join(out, "build")), ["obj"])


class Shown(unittest.TestCase):
    def test_paths_and_commands_from_where_the_user_started(self):
        ws = workspace.Workspace("/home/u/proj", "/home/u/proj/memgate-results")
        self.assertEqual(ws.shown("findings/gate/x/sweep-1.in"), "memgate-results/findings/gate/x/sweep-1.in")
        self.assertEqual(ws.shown("/etc/passwd"), "/etc/passwd")
        self.assertEqual(ws.command("scripts/repro a.in"), "(cd memgate-results && scripts/repro a.in)")

    def test_the_speed_rows_path_as_the_user_names_it(self):
        # memgate speed prints the path of its rows where the gate works;
        # the gate shows it from where the user started it (issue 44).
        from orchestration import gate_verdict
        ws = workspace.Workspace("/home/u/proj", "/home/u/proj/memgate-results")
        with mock.patch.object(workspace, "CURRENT", ws):
            text = gate_verdict.speed_text("measured in 2.6 s\nrows written to findings/gate/x/speed.tsv")
        self.assertEqual(text, "measured in 2.6 s\nrows written to memgate-results/findings/gate/x/speed.tsv")

    def test_in_the_tree_nothing_changes(self):
        ws = workspace.Workspace(ROOT, ROOT)
        self.assertEqual(ws.shown("findings/x"), "findings/x")
        self.assertEqual(ws.command("scripts/repro a.in"), "scripts/repro a.in")

    def test_absolute_paths_and_include_flags(self):
        self.assertEqual(workspace.absolute("a/b.c", "/p"), "/p/a/b.c")
        self.assertEqual(workspace.absolute("lib.a(m.o)", "/p"), "/p/lib.a(m.o)")
        self.assertEqual(workspace.absolute_flag("-Iinc", "/p"), "-I/p/inc")
        self.assertEqual(workspace.absolute_flag("-DX=1", "/p"), "-DX=1")


class Action(unittest.TestCase):
    def given(self, **kw):
        base = {k: "" for k in action.INPUTS}
        base.update(kw)
        return base

    def test_the_gate_command_line(self):
        argv = action.gate_argv(self.given(files="a.S, b.c\nc.o", op="memcpy", requires="avx2", seconds="30",
                                           flags="--quick --symbol 'my_memcpy'"))
        self.assertEqual(argv[1:7], ["--out", "memgate-results", "--report", "memgate-results/gate.json",
                                     "--sarif", "memgate-results/gate.sarif"])
        self.assertEqual(argv[7:], ["--op", "memcpy", "--requires", "avx2", "--seconds", "30", "--quick",
                                    "--symbol", "my_memcpy", "--", "a.S", "b.c", "c.o"])

    def test_entries(self):
        argv = action.gate_argv(self.given(files="x.o", entries="memmove=a memcpy=b"))
        self.assertIn("--entry=memmove=a", argv)
        self.assertIn("--entry=memcpy=b", argv)

    def test_bad_inputs(self):
        for kw, why in (({"op": "memcpy"}, "'files' is empty"), ({"files": "a.c"}, "is needed"),
                        ({"files": "a.c", "op": "memcpy", "entries": "memcpy=a"}, "not both"),
                        ({"files": "a.c", "op": "memcpy", "flags": "'x"}, "No closing quotation")):
            with self.assertRaisesRegex(action.Bad, why):
                action.gate_argv(self.given(**kw))

    def test_the_verdict_from_the_report_else_the_status(self):
        d = tmpdir(self)
        path = os.path.join(d, "gate.json")
        self.assertEqual(action.verdict_of(2, path), "could-not-judge")
        self.assertEqual(action.verdict_of(1, path), "rejected")
        with open(path, "w") as f:
            json.dump({"verdict": "accepted"}, f)
        self.assertEqual(action.verdict_of(0, path), "accepted")
